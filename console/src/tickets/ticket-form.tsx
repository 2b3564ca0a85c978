import { useState } from 'preact/hooks';
import type { Definition } from '../api/catalogue.js';
import { add, text, type Operation, type ResourceObject } from '../api/documents.js';
import { CheckboxGroup, ErrorSummary, SelectField, TextField } from '../forms/fields.js';
import { NO_ERRORS, type FormErrors, type PointerLayout } from '../forms/form-errors.js';

export type TicketValues = {
  client: string; definition: string; scopes: string[]; purpose: string;
  ticketId: string; ticketName: string; requestedResourceId: string; maxDuration: string;
};

/**
 * The whole consent ticket as one JSON Patch request: purpose, capability ticket, requested
 * resource, one scope binding per scope, the combination. Later operations refer to earlier
 * records by local ids (`lid`), so the console never has to pick ids.
 */
export function ticketOperations(values: TicketValues): { operations: Operation[]; layout: PointerLayout } {
  const client = { type: 'uma-client', id: values.client };
  const purpose = { type: 'purpose', lid: 'purpose' };
  const requested = { type: 'requested-resource', lid: 'requested-resource' };
  const duration = /^\d+$/.test(values.maxDuration) ? Number(values.maxDuration) : values.maxDuration;
  const operations = [
    add('purpose', { name: values.purpose }, undefined, 'purpose'),
    add('capability-ticket', { ticketId: values.ticketId, ticketName: values.ticketName }, { purpose, umaClient: client }, 'ticket'),
    add('requested-resource', { maxPermissionDuration: duration, requestedResourceId: values.requestedResourceId },
      { resourceDefinition: { type: 'resource-definition', id: values.definition }, umaClient: client }, 'requested-resource'),
    ...values.scopes.map((scope) => add('requested-resource-scopes', {}, { scope: { type: 'scope', id: scope }, purpose, requestedResource: requested })),
    add('requested-resources-capability-tickets', {}, { capabilityTicket: { type: 'capability-ticket', lid: 'ticket' }, requestedResource: requested }),
  ];
  const layout: PointerLayout = [
    { name: 'purpose' },
    { ticketId: 'ticketId', ticketName: 'ticketName', umaClient: 'client', purpose: 'purpose' },
    { maxPermissionDuration: 'maxDuration', requestedResourceId: 'requestedResourceId', resourceDefinition: 'definition', umaClient: 'client' },
    ...values.scopes.map(() => ({ scope: 'scopes', requestedResource: 'scopes', purpose: 'purpose' })),
    { capabilityTicket: 'client', requestedResource: 'client' },
  ];
  return { operations, layout };
}

/** What the form can tell before asking the server: the choices it cannot send without. */
function missingChoices(values: TicketValues): FormErrors {
  const fields: Record<string, string> = {};
  if (!values.client) fields.client = 'Choose the client the ticket is for.';
  if (!values.definition) fields.definition = 'Choose the resource definition.';
  else if (values.scopes.length === 0) fields.scopes = 'Choose at least one scope.';
  return { fields, summary: Object.entries(fields).map(([field, message]) => ({ field, message })) };
}

export function TicketForm(props: { clients: ResourceObject[]; definitions: Definition[]; errors: FormErrors; onSubmit: (values: TicketValues) => Promise<boolean> }) {
  const [choice, setChoice] = useState({ client: '', definition: '', scopes: [] as string[] });
  const [local, setLocal] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const errors = local.summary.length > 0 ? local : props.errors;
  const definition = props.definitions.find((candidate) => candidate.id === choice.definition);

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => String(data.get(name) ?? '').trim();
    const values: TicketValues = {
      ...choice, purpose: read('purpose'), ticketId: read('ticketId'), ticketName: read('ticketName'),
      requestedResourceId: read('requestedResourceId'), maxDuration: read('maxDuration'),
    };
    const missing = missingChoices(values);
    setLocal(missing);
    if (missing.summary.length > 0) return;
    setBusy(true);
    const ok = await props.onSubmit(values);
    setBusy(false);
    if (ok) {
      element.reset();
      setChoice({ client: '', definition: '', scopes: [] });
    }
  };

  return (
    <form onSubmit={submit} noValidate class="wide">
      <h2 id="ticket-form-title">Create a consent ticket</h2>
      <p class="hint">One form, one request: the purpose, the capability ticket, the requested resource, its scopes and their combination are written together, or not at all.</p>
      <ErrorSummary form="ticket" errors={errors} />
      <SelectField form="ticket" name="client" label="Client" placeholder="Choose a client" value={choice.client} errors={errors}
        options={props.clients.map((client) => ({ value: client.id, label: text(client, 'clientId') }))}
        onChange={(client) => setChoice({ ...choice, client })} />
      <SelectField form="ticket" name="definition" label="Resource definition" placeholder="Choose a definition" value={choice.definition} errors={errors}
        options={props.definitions.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
        onChange={(value) => setChoice({ ...choice, definition: value, scopes: [] })} />
      <CheckboxGroup form="ticket" name="scopes" label="Scopes" errors={errors} checked={choice.scopes}
        options={(definition?.scopes ?? []).map((scope) => ({ value: scope.id, label: scope.name }))}
        empty={definition ? 'This definition has no scope yet: add one under Resource definitions.' : 'Choose a resource definition first.'}
        onChange={(scopes) => setChoice({ ...choice, scopes })} />
      <TextField form="ticket" name="purpose" label="Purpose text" errors={errors} hint="The message an end user reads, e.g. Your doctor follows your blood glucose level" />
      <div class="pair">
        <TextField form="ticket" name="ticketId" label="Ticket ID" errors={errors} />
        <TextField form="ticket" name="ticketName" label="Ticket name" errors={errors} />
      </div>
      <div class="pair">
        <TextField form="ticket" name="requestedResourceId" label="Requested resource ID" errors={errors} hint="e.g. glucose-readings" />
        <TextField form="ticket" name="maxDuration" label="Maximum duration (seconds)" inputMode="numeric" errors={errors} hint="The longest a token for it may live, e.g. 1800" />
      </div>
      <button type="submit" disabled={busy}>Create ticket</button>
    </form>
  );
}
