import { useState } from 'preact/hooks';
import type { Definition } from '../api/catalogue.js';
import { related, text, type ResourceObject } from '../api/documents.js';
import { CheckboxGroup, ErrorSummary, SelectField, TextField } from '../forms/fields.js';
import type { FormErrors } from '../forms/form-errors.js';

export type DataSourceValues = { name: string; kind: string; resourceUri: string; definitions: string[]; client: string };

const KINDS = [
  { value: 'resource-server', label: 'resource server' },
  { value: 'identity-provider', label: 'identity provider' },
];

/** Enrols a data source, or (given one) edits it; the definitions it serves are checkboxes. */
export function DataSourceForm(props: {
  source?: ResourceObject; served?: string[]; definitions: Definition[]; clients: ResourceObject[]; errors: FormErrors;
  onSubmit: (values: DataSourceValues) => Promise<boolean>; onCancel?: () => void;
}) {
  const source = props.source;
  const [choice, setChoice] = useState({
    kind: source ? text(source, 'kind') : 'resource-server',
    definitions: props.served ?? [],
    client: source ? related(source, 'umaClient') ?? '' : '',
  });
  const [busy, setBusy] = useState(false);
  const form = source ? 'edit-source' : 'enrol-source';

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => String(data.get(name) ?? '').trim();
    setBusy(true);
    const ok = await props.onSubmit({ name: read('name'), resourceUri: read('resourceUri'), ...choice });
    setBusy(false);
    if (ok && !source) {
      element.reset();
      setChoice({ kind: 'resource-server', definitions: [], client: '' });
    }
  };

  return (
    <form onSubmit={submit} noValidate class="wide">
      <h2 id={`${form}-title`}>{source ? `Edit data source ${text(source, 'name')}` : 'Enrol a data source'}</h2>
      <ErrorSummary form={form} errors={props.errors} />
      <TextField form={form} name="name" label="Data source name" value={source ? text(source, 'name') : undefined} errors={props.errors} />
      <SelectField form={form} name="kind" label="Kind" options={KINDS} value={choice.kind} errors={props.errors} onChange={(kind) => setChoice({ ...choice, kind })} />
      <TextField form={form} name="resourceUri" label="Resource URI" type="url" value={source ? text(source, 'resourceUri') : undefined} errors={props.errors}
        hint="The RFC 8707 resource indicator, and the audience of tokens meant for it, e.g. https://glucose.example/api" />
      <CheckboxGroup form={form} name="definitions" label="Definitions served" errors={props.errors} checked={choice.definitions}
        options={props.definitions.map((definition) => ({ value: definition.id, label: definition.name }))}
        empty="No resource definition yet." onChange={(definitions) => setChoice({ ...choice, definitions })} />
      <SelectField form={form} name="client" label="Introspection client" placeholder="(none)" value={choice.client} errors={props.errors}
        hint="The client it introspects tokens with; it must be allowed uma_protection."
        options={props.clients.map((client) => ({ value: client.id, label: text(client, 'clientId') }))} onChange={(client) => setChoice({ ...choice, client })} />
      <div class="actions">
        <button type="submit" disabled={busy}>{source ? 'Save data source' : 'Enrol data source'}</button>
        {props.onCancel && <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
