import { useEffect, useState } from 'preact/hooks';
import { MAX_PAGE_SIZE, type ApiClient } from '../api/api-client.js';
import { recordsById, searchClients, searchDefinitions, type Choice } from '../api/catalogue.js';
import { add, text, type Operation } from '../api/documents.js';
import { Combobox } from '../forms/combobox.js';
import { CheckboxGroup, ErrorSummary, TextField, type Option } from '../forms/fields.js';
import { fieldText } from '../forms/form-data.js';
import { FormButtons } from '../forms/form-buttons.js';
import { NO_ERRORS, type FormErrors, type PointerLayout } from '../forms/form-errors.js';

export type TicketValues = {
  client: string;
  definition: string;
  scopes: string[];
  purpose: string;
  /** Purpose-of-use codes for UDAP requests, separated by spaces (may be empty). */
  purposesOfUse: string;
  ticketId: string;
  ticketName: string;
  requestedResourceId: string;
  maxDuration: string;
};

/**
 * The whole consent ticket as one JSON Patch request: purpose, capability ticket, requested
 * resource, one scope binding per scope, the combination. Later operations refer to earlier
 * records by local ids (`lid`), so the console never has to pick ids. A purpose of the same text
 * and purpose-of-use codes that exists already (`existingPurpose`, its id) is related to instead of
 * added again.
 */
export function ticketOperations(values: TicketValues, existingPurpose?: string): { operations: Operation[]; layout: PointerLayout } {
  const client = { type: 'uma-client', id: values.client };
  const purpose = existingPurpose ? { type: 'purpose', id: existingPurpose } : { type: 'purpose', lid: 'purpose' };
  const requested = { type: 'requested-resource', lid: 'requested-resource' };
  const duration = /^\d+$/.test(values.maxDuration) ? Number(values.maxDuration) : values.maxDuration;
  const operations = [
    ...(existingPurpose ? [] : [add('purpose', purposeAttributes(values), undefined, 'purpose')]),
    add('capability-ticket', { ticketId: values.ticketId, ticketName: values.ticketName }, { purpose, umaClient: client }, 'ticket'),
    add(
      'requested-resource',
      { maxPermissionDuration: duration, requestedResourceId: values.requestedResourceId },
      { resourceDefinition: { type: 'resource-definition', id: values.definition }, umaClient: client },
      'requested-resource',
    ),
    ...values.scopes.map((scope) => add('requested-resource-scopes', {}, { scope: { type: 'scope', id: scope }, purpose, requestedResource: requested })),
    add('requested-resources-capability-tickets', {}, { capabilityTicket: { type: 'capability-ticket', lid: 'ticket' }, requestedResource: requested }),
  ];
  const layout: PointerLayout = [
    ...(existingPurpose ? [] : [{ name: 'purpose', purposesOfUse: 'purposesOfUse' }]),
    { ticketId: 'ticketId', ticketName: 'ticketName', umaClient: 'client', purpose: 'purpose' },
    { maxPermissionDuration: 'maxDuration', requestedResourceId: 'requestedResourceId', resourceDefinition: 'definition', umaClient: 'client' },
    ...values.scopes.map(() => ({ scope: 'scopes', requestedResource: 'scopes', purpose: 'purpose' })),
    { capabilityTicket: 'client', requestedResource: 'client' },
  ];
  return { operations, layout };
}

/** The codes typed in the "Purposes of use" field, each once, in order. */
export function purposeCodes(typed: string): string[] {
  return [...new Set(typed.split(/\s+/).filter(Boolean))];
}

/** A new purpose: its text, and its purpose-of-use codes when any were typed (the server's default is none). */
function purposeAttributes(values: TicketValues): Record<string, unknown> {
  const codes = purposeCodes(values.purposesOfUse);
  return codes.length > 0 ? { name: values.purpose, purposesOfUse: codes } : { name: values.purpose };
}

/** What the form can tell before asking the server: the choices it cannot send without. */
function missingChoices(values: TicketValues): FormErrors {
  const fields: Record<string, string> = {};
  if (!values.client) fields.client = 'Choose the client the ticket is for.';
  if (!values.definition) fields.definition = 'Choose the resource definition.';
  else if (values.scopes.length === 0) fields.scopes = 'Choose at least one scope.';
  return { fields, summary: Object.entries(fields).map(([field, message]) => ({ field, message })) };
}

type Choices = { client?: Choice; definition?: Choice; scopes: string[] };
const NOTHING_CHOSEN: Choices = { scopes: [] };

/** The scopes of the chosen definition, asked of the server when the choice changes. */
function useScopesOf(api: ApiClient, definition: Choice | undefined): Option[] | undefined {
  const [scopes, setScopes] = useState<Option[]>();
  useEffect(() => {
    setScopes(undefined);
    if (!definition) return;
    let current = true;
    api.list('scope', 1, MAX_PAGE_SIZE, [], { filter: { resourceDefinition: definition.id }, sort: 'name' }).then(
      (page) => current && setScopes(page.data.map((scope) => ({ value: scope.id, label: text(scope, 'name') }))),
      () => current && setScopes([]),
    );
    return () => {
      current = false;
    };
  }, [definition?.id]);
  return scopes;
}

/** The client's allowed scopes (`<definition>:<scope>` names), asked of the server when the choice changes. */
function useAllowedScopes(api: ApiClient, client: Choice | undefined): Set<string> | undefined {
  const [allowed, setAllowed] = useState<Set<string>>();
  useEffect(() => {
    setAllowed(undefined);
    if (!client) return;
    let current = true;
    recordsById(api, 'uma-client', [client.id]).then(
      (records) => {
        const record = records.get(client.id);
        if (current && record) setAllowed(new Set(text(record, 'allowedScopes').split(/\s+/).filter(Boolean)));
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [client?.id]);
  return allowed;
}

/**
 * A ticket grants a scope only to a client allowed it (docs/guides/console.md#consent-tickets-in-one-form):
 * one warning per chosen scope the client's allowed scopes lack, said before anything is saved.
 */
export function scopeWarnings(
  client: Choice | undefined,
  definition: Choice | undefined,
  chosen: string[],
  scopes: Option[],
  allowed: Set<string> | undefined,
) {
  if (!client || !definition || !allowed) return [];
  return scopes
    .filter((scope) => chosen.includes(scope.value) && !allowed.has(`${definition.label}:${scope.label}`))
    .map(
      (scope) => `${client.label} is not allowed ${definition.label}:${scope.label}: add it to the client's allowed scopes, or the ticket will not grant it.`,
    );
}

/**
 * The consent ticket form. The client and the resource definition are searchable pickers
 * (comboboxes asking the server), so the form works the same with ten clients or ten thousand.
 */
export function TicketForm(props: { api: ApiClient; errors: FormErrors; onSubmit: (values: TicketValues, client: Choice) => Promise<boolean> }) {
  const [choice, setChoice] = useState<Choices>(NOTHING_CHOSEN);
  const [local, setLocal] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const errors = local.summary.length > 0 ? local : props.errors;
  const scopes = useScopesOf(props.api, choice.definition);
  const allowed = useAllowedScopes(props.api, choice.client);

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => fieldText(data, name);
    const values: TicketValues = {
      client: choice.client?.id ?? '',
      definition: choice.definition?.id ?? '',
      scopes: choice.scopes,
      purpose: read('purpose'),
      purposesOfUse: read('purposesOfUse'),
      ticketId: read('ticketId'),
      ticketName: read('ticketName'),
      requestedResourceId: read('requestedResourceId'),
      maxDuration: read('maxDuration'),
    };
    const missing = missingChoices(values);
    setLocal(missing);
    if (missing.summary.length > 0) return;
    setBusy(true);
    const ok = await props.onSubmit(values, choice.client!);
    setBusy(false);
    if (ok) {
      element.reset();
      setChoice(NOTHING_CHOSEN);
    }
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate class="wide" aria-labelledby="ticket-form-title">
      <h2 id="ticket-form-title">Create a consent ticket</h2>
      <p class="hint">
        One form, one request: the purpose, the capability ticket, the requested resource, its scopes and their combination are written together, or not at all.
      </p>
      <ErrorSummary form="ticket" errors={errors} />
      <Combobox
        form="ticket"
        name="client"
        label="Client"
        errors={errors}
        value={choice.client}
        placeholder="Type the start of a client ID or name"
        search={(typed) => searchClients(props.api, typed)}
        onChange={(client) => setChoice({ ...choice, client })}
      />
      <Combobox
        form="ticket"
        name="definition"
        label="Resource definition"
        errors={errors}
        value={choice.definition}
        placeholder="Type the start of a definition's name"
        search={(typed) => searchDefinitions(props.api, typed)}
        onChange={(definition) => setChoice({ ...choice, definition, scopes: [] })}
      />
      <CheckboxGroup
        form="ticket"
        name="scopes"
        label="Scopes"
        errors={errors}
        checked={choice.scopes}
        options={scopes ?? []}
        warnings={scopeWarnings(choice.client, choice.definition, choice.scopes, scopes ?? [], allowed)}
        empty={
          !choice.definition
            ? 'Choose a resource definition first.'
            : scopes
              ? 'This definition has no scope yet: add one under Resource definitions.'
              : 'Loading the scopes…'
        }
        onChange={(scopes) => setChoice({ ...choice, scopes })}
      />
      <TextField
        form="ticket"
        name="purpose"
        label="Purpose text"
        errors={errors}
        hint="The message an end user reads, e.g. Your doctor follows your blood glucose level"
      />
      <TextField
        form="ticket"
        name="purposesOfUse"
        label="Purposes of use (UDAP)"
        errors={errors}
        hint="Optional: the purpose-of-use codes a business-to-business (UDAP) request may assert, separated by spaces, e.g. urn:oid:2.16.840.1.113883.5.8#TREAT. None: the ticket covers no UDAP request."
      />
      <div class="pair">
        <TextField form="ticket" name="ticketId" label="Ticket ID" errors={errors} />
        <TextField form="ticket" name="ticketName" label="Ticket name" errors={errors} />
      </div>
      <div class="pair">
        <TextField
          form="ticket"
          name="requestedResourceId"
          label="Requested resource ID"
          errors={errors}
          hint="The id of the patient's (data subject's) resource at the data source, e.g. glucose-readings"
        />
        <TextField
          form="ticket"
          name="maxDuration"
          label="Maximum duration (seconds)"
          inputMode="numeric"
          errors={errors}
          hint="The longest a token for it may live, e.g. 1800"
        />
      </div>
      <FormButtons submit="Create ticket" busy={busy} />
    </form>
  );
}
