import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { searchClients, type Choice } from '../api/catalogue.js';
import { Combobox } from '../forms/combobox.js';
import { ErrorSummary, TextArea, TextField } from '../forms/fields.js';
import { fieldText } from '../forms/form-data.js';
import { formErrorsOf, NO_ERRORS, type FormErrors } from '../forms/form-errors.js';
import { formatDuration } from '../tickets/ticket-sentence.js';
import type { ScopeVerdict, Verdict } from './verdict.js';
import { FormButtons } from '../forms/form-buttons.js';
import { ApiError } from '../api/api-client.js';

/** Explain: what the token endpoint would answer a client right now, and the first missing link. */
export function ExplainScreen({ api }: ScreenProps) {
  const [client, setClient] = useState<Choice>();
  const [verdict, setVerdict] = useState<Verdict>();
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const read = (name: string) => fieldText(data, name);
    const fields: Record<string, string> = {};
    if (!client) fields.client = 'Choose a client.';
    if (!read('scope')) fields.scope = 'Type at least one scope.';
    if (Object.keys(fields).length > 0) {
      setVerdict(undefined);
      setErrors({ fields, summary: Object.entries(fields).map(([field, message]) => ({ field, message })) });
      return;
    }
    const query = new URLSearchParams({ client: client!.label, scope: read('scope').split(/\s+/).join(' ') });
    for (const resource of read('resources').split(/\s+/).filter(Boolean)) query.append('resource', resource);
    const codes = read('purposesOfUse').split(/\s+/).filter(Boolean);
    for (const code of codes) query.append('purposeOfUse', code);
    setBusy(true);
    try {
      setVerdict(await api.get<Verdict>(`/admin/explain?${query.toString()}`));
      setErrors(NO_ERRORS);
    } catch (error) {
      setVerdict(undefined);
      const found = formErrorsOf(error);
      // A 404 is the client; a 400 names purposeOfUse as its parameter, or is the scope or resource.
      const parameter = error instanceof ApiError ? error.errors[0]?.source?.parameter : undefined;
      const field = (error as { status?: number }).status === 404 ? 'client' : parameter === 'purposeOfUse' ? 'purposesOfUse' : 'scope';
      setErrors({ summary: found.summary.map((entry) => ({ ...entry, field })), fields: { [field]: found.summary[0]?.message ?? '' } });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form onSubmit={(event) => void submit(event)} noValidate class="wide">
        <h2 id="explain-title">Would this client get a token?</h2>
        <p class="hint">Asks the server's own decision, without issuing, storing or counting anything.</p>
        <ErrorSummary form="explain" errors={errors} />
        <Combobox
          form="explain"
          name="client"
          label="Client"
          errors={errors}
          value={client}
          placeholder="Type the start of a client ID or name"
          search={(typed) => searchClients(api, typed)}
          onChange={setClient}
        />
        <TextField form="explain" name="scope" label="Scopes" errors={errors} hint="Space-separated, as in a token request, e.g. blood-glucose-level:read" />
        <TextArea
          form="explain"
          name="resources"
          label="Resources (optional, one URI per line)"
          rows={2}
          errors={errors}
          hint="Resource indicators (RFC 8707): the data sources the token would be for, by their resource URI."
        />
        <TextField
          form="explain"
          name="purposesOfUse"
          label="Purposes of use (optional, UDAP)"
          errors={errors}
          hint="Ask as a business-to-business (UDAP) request asserting these codes would, separated by spaces, e.g. urn:oid:2.16.840.1.113883.5.8#TREAT"
        />
        <FormButtons submit="Explain" busy={busy} />
      </form>
      {verdict && <VerdictView verdict={verdict} />}
    </>
  );
}

function VerdictView({ verdict }: { verdict: Verdict }) {
  const audience = Array.isArray(verdict.aud) ? verdict.aud.join(', ') : verdict.aud;
  return (
    <section class={`verdict ${verdict.granted ? 'granted' : 'refused'}`} aria-live="polite">
      <h2 id="verdict-title">{verdict.granted ? 'Granted' : 'Refused'}</h2>
      <p>
        {verdict.granted
          ? `${verdict.client} would get a token for “${verdict.scope}”${verdict.lifetime !== null ? `, living ${formatDuration(verdict.lifetime)}` : ''}${audience ? `, for ${audience}` : ''}.`
          : `${verdict.client} would be refused a token for “${verdict.scope}”.`}
      </p>
      {verdict.missing && <p>{verdict.missing}</p>}
      <ul class="scope-verdicts">
        {verdict.scopes.map((scope, index) => (
          <ScopeLine key={`${index}-${scope.scope}`} scope={scope} />
        ))}
      </ul>
    </section>
  );
}

function ScopeLine({ scope }: { scope: ScopeVerdict }) {
  return (
    <li class={scope.granted ? 'granted' : 'refused'}>
      <strong>{scope.scope}</strong>: {scope.granted ? 'granted' : 'refused'}
      {scope.denotes !== undefined && <> — denotes {scope.denotes === null ? 'no scope' : <code>{scope.denotes}</code>}</>}
      {scope.expandsTo !== undefined && (
        <>
          {' '}
          — expands to{' '}
          {scope.expandsTo.length === 0
            ? 'nothing'
            : scope.expandsTo.map((name, index) => (
                <>
                  {index > 0 && ', '}
                  <code>{name}</code>
                </>
              ))}
        </>
      )}
      {!scope.granted && scope.missing && <> — {scope.missing}</>}
      {scope.covering && scope.covering.length > 0 && (
        <ul>
          {scope.covering.map((covering) => (
            <li key={String(covering.capabilityTicket.id)}>
              ticket {covering.capabilityTicket.ticketId} (“{covering.purpose.name}”), requested resource {covering.requestedResource.requestedResourceId}, at
              most {formatDuration(covering.requestedResource.maxPermissionDuration)}
              {covering.purposeOfUse !== undefined && (
                <>
                  , purpose of use <code>{covering.purposeOfUse}</code>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
