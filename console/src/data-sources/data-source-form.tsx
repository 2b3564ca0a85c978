import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/api-client.js';
import { searchDefinitions, searchProtectionClients, type Choice } from '../api/catalogue.js';
import { text, type ResourceObject } from '../api/documents.js';
import { Combobox } from '../forms/combobox.js';
import { CheckboxGroup, ErrorSummary, SelectField, TextField } from '../forms/fields.js';
import { fieldText } from '../forms/form-data.js';
import { FormButtons } from '../forms/form-buttons.js';
import type { FormErrors } from '../forms/form-errors.js';

/** A client enrolled in place, for the data source to introspect with (allowed uma_protection). */
export type NewClient = { clientId: string; clientName: string };

export type DataSourceValues = { name: string; kind: string; resourceUri: string; definitions: string[]; client: string; newClient?: NewClient };

const KINDS = [
  { value: 'resource-server', label: 'resource server' },
  { value: 'identity-provider', label: 'identity provider' },
];

/**
 * Enrols a data source, or (given one) edits it. The definitions it serves are checkboxes: those
 * it serves, and those added with the searchable picker; the introspection client is a picker.
 */
export function DataSourceForm(props: {
  api: ApiClient;
  source?: ResourceObject;
  served?: Choice[];
  client?: Choice;
  errors: FormErrors;
  onSubmit: (values: DataSourceValues) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const source = props.source;
  const [choice, setChoice] = useState({
    kind: source ? text(source, 'kind') : 'resource-server',
    definitions: (props.served ?? []).map((definition) => definition.id),
  });
  const [offered, setOffered] = useState<Choice[]>(props.served ?? []);
  const [client, setClient] = useState<Choice | undefined>(props.client);
  // Enrolling the introspection client here, in the same request (the seed enrols the data source before any client).
  const [enrolClient, setEnrolClient] = useState(false);
  const offer = (definition: Choice | undefined) => {
    if (!definition) return;
    if (!offered.some((candidate) => candidate.id === definition.id)) setOffered([...offered, definition]);
    if (!choice.definitions.includes(definition.id)) setChoice({ ...choice, definitions: [...choice.definitions, definition.id] });
  };
  const [busy, setBusy] = useState(false);
  const form = source ? 'edit-source' : 'enrol-source';

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => fieldText(data, name);
    setBusy(true);
    const newClient = enrolClient ? { clientId: read('newClientId'), clientName: read('newClientName') } : undefined;
    const ok = await props.onSubmit({
      name: read('name'),
      resourceUri: read('resourceUri'),
      ...choice,
      client: enrolClient ? '' : (client?.id ?? ''),
      newClient,
    });
    setBusy(false);
    if (ok && !source) {
      element.reset();
      setChoice({ kind: 'resource-server', definitions: [] });
      setOffered([]);
      setClient(undefined);
    }
    if (ok) setEnrolClient(false);
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate class="wide">
      <h2 id={`${form}-title`}>{source ? `Edit data source ${text(source, 'name')}` : 'Enrol a data source'}</h2>
      <ErrorSummary form={form} errors={props.errors} />
      <TextField form={form} name="name" label="Data source name" value={source ? text(source, 'name') : undefined} errors={props.errors} />
      <SelectField
        form={form}
        name="kind"
        label="Kind"
        hint="What the data source is: a resource server (an API holding the data) or an identity provider (one holding data about who the user is)."
        options={KINDS}
        value={choice.kind}
        errors={props.errors}
        onChange={(kind) => setChoice({ ...choice, kind })}
      />
      <TextField
        form={form}
        name="resourceUri"
        label="Resource URI"
        type="url"
        value={source ? text(source, 'resourceUri') : undefined}
        errors={props.errors}
        hint="The RFC 8707 resource indicator, and the audience of tokens meant for it, e.g. https://glucose.example/api"
      />
      <CheckboxGroup
        form={form}
        name="definitions"
        label="Definitions served"
        errors={props.errors}
        checked={choice.definitions}
        options={offered.map((definition) => ({ value: definition.id, label: definition.label }))}
        empty="None yet: add one with the picker below."
        onChange={(definitions) => setChoice({ ...choice, definitions })}
      />
      <Combobox
        clearOnPick
        form={form}
        name="add-definition"
        label="Add a definition served"
        errors={props.errors}
        placeholder="Type the start of a definition's name"
        search={(typed) => searchDefinitions(props.api, typed)}
        onChange={offer}
      />
      {enrolClient ? (
        <fieldset class="group" id={`${form}-new-client`}>
          <legend>New introspection client</legend>
          <p class="hint">
            Enrolled with this data source, in the same request: allowed uma_protection and the client_credentials grant. Its secret is shown once, after the
            save.
          </p>
          <TextField form={form} name="newClientId" label="New client ID" errors={props.errors} hint="e.g. glucose-api" />
          <TextField form={form} name="newClientName" label="New client name" errors={props.errors} />
          <button type="button" class="secondary" onClick={() => setEnrolClient(false)}>
            Pick an existing client instead
          </button>
        </fieldset>
      ) : (
        <>
          <Combobox
            form={form}
            name="client"
            label="Introspection client"
            errors={props.errors}
            value={client}
            placeholder="(none): type the start of a client ID"
            hint="The client it introspects tokens with. Only clients allowed uma_protection are offered. Leave it empty to choose one later."
            search={(typed) => searchProtectionClients(props.api, typed)}
            onChange={setClient}
          />
          <p class="field">
            <button type="button" class="secondary" onClick={() => setEnrolClient(true)}>
              Enrol a new introspection client
            </button>
          </p>
        </>
      )}
      <FormButtons submit={source ? 'Save data source' : 'Enrol data source'} busy={busy} onCancel={props.onCancel} />
    </form>
  );
}
