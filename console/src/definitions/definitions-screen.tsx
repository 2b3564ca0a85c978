import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { withScopes, type Definition } from '../api/catalogue.js';
import { add, remove, replace, type Operation, type OperationResult } from '../api/documents.js';
import { ErrorSummary, SelectField, Status, TextField } from '../forms/fields.js';
import { NO_ERRORS, type PointerLayout } from '../forms/form-errors.js';
import { useChange } from '../forms/use-change.js';
import { whenLoaded } from '../api/when-loaded.js';
import { PAGE_SIZE, SearchBox, savedRow, usePaged, useShowSaved, withSaved } from '../forms/paging.js';
import { FormButtons } from '../forms/form-buttons.js';
import { RemoveButton, TableEnd } from '../forms/table-end.js';
import { recordsById } from '../api/catalogue.js';

type FormName = 'add-definition' | 'add-scope' | 'rename-definition' | 'rename-scope' | 'map-definition' | 'scope-permissions' | 'list';

/** An optional text field: omitted when empty on create, null (cleared) when empty on change. */
const optional = (value: string | undefined, clearing: boolean) => (value ? value : clearing ? null : undefined);

/** One page of definitions (newest first, narrowed by the search) with their scopes. */
async function loadPage(api: ScreenProps['api'], page: number, search: string, highlight?: string) {
  const found = await api.list('resource-definition', page, PAGE_SIZE, [], { filter: search ? { search } : {}, sort: '-id' });
  const rows = await withSaved(found.data, highlight, async (id) => (await recordsById(api, 'resource-definition', [id])).get(id));
  return { definitions: await withScopes(api, rows), total: found.meta.total };
}

/**
 * Wallet activity 2: resource definitions and their scopes (list, add, rename, remove). The
 * forms pick among the definitions of the page shown: the search brings any other one there.
 */
export function DefinitionsScreen({ api }: ScreenProps) {
  const paged = usePaged((page, search, highlight) => loadPage(api, page, search, highlight));
  const definitions = paged.loaded;
  useShowSaved(paged.highlight, definitions.value);
  const [status, setStatus] = useState<string>();
  const changes = useChange(api, setStatus, { clearStatusOnError: true });
  // The form whose change was refused last: only it shows the errors.
  const [failed, setFailed] = useState<FormName>();
  const [chosen, setChosen] = useState({ definition: '', scope: '' });
  const errorsOf = (form: FormName) => (failed === form ? changes.errors : NO_ERRORS);

  /** One change, one request; the form is emptied and the list read again only when it succeeded. */
  const change = (
    form: FormName,
    operations: Operation[],
    layout: PointerLayout,
    done: string,
    element?: HTMLFormElement,
    saved?: (results: OperationResult[]) => string | undefined,
  ) =>
    changes.run(operations, {
      done,
      layout,
      onDone: (results) => {
        element?.reset();
        setChosen({ definition: '', scope: '' });
        // The whole list again, the saved definition highlighted among the others.
        const id = saved?.(results);
        if (id) paged.showSaved(id);
        else definitions.reload();
      },
      onFailed: () => setFailed(form),
    });
  const submitted = (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const values = Object.fromEntries([...new FormData(element)].map(([name, value]) => [name, typeof value === 'string' ? value.trim() : '']));
    return { element, values };
  };

  const addDefinition = (event: Event) => {
    const { element, values } = submitted(event);
    const mapping = { fhirResourceType: optional(values.fhirResourceType, false), fhirQuery: optional(values.fhirQuery, false) };
    void change(
      'add-definition',
      [add('resource-definition', withoutUndefined({ name: values.name, description: values.description, ...mapping }))],
      [{ name: 'name', description: 'description', fhirResourceType: 'fhirResourceType', fhirQuery: 'fhirQuery' }],
      `Resource definition ${values.name} added.`,
      element,
      (results) => results[0]?.data?.id,
    );
  };
  const addScope = (event: Event) => {
    const { element, values } = submitted(event);
    const attributes = withoutUndefined({ name: values.name, smartPermissions: optional(values.smartPermissions, false) });
    void change(
      'add-scope',
      [add('scope', attributes, { resourceDefinition: { type: 'resource-definition', id: values.definition } })],
      [{ name: 'name', resourceDefinition: 'definition', smartPermissions: 'smartPermissions' }],
      `Scope ${values.name} added.`,
      element,
      () => values.definition,
    );
  };
  const mapDefinition = (event: Event) => {
    const { element, values } = submitted(event);
    const mapping = { fhirResourceType: optional(values.fhirResourceType, true), fhirQuery: optional(values.fhirQuery, true) };
    void change(
      'map-definition',
      [replace('resource-definition', values.definition, mapping)],
      [{ fhirResourceType: 'fhirResourceType', fhirQuery: 'fhirQuery', path: 'definition' }],
      'FHIR mapping saved.',
      element,
      () => values.definition,
    );
  };
  const setPermissions = (event: Event) => {
    const { element, values } = submitted(event);
    void change(
      'scope-permissions',
      [replace('scope', values.scope, { smartPermissions: optional(values.smartPermissions, true) })],
      [{ smartPermissions: 'smartPermissions', path: 'scope' }],
      'SMART permissions saved.',
      element,
    );
  };
  const renameDefinition = (event: Event) => {
    const { element, values } = submitted(event);
    void change(
      'rename-definition',
      [replace('resource-definition', values.definition, { name: values.name })],
      [{ name: 'name', path: 'definition' }],
      `Resource definition renamed to ${values.name}.`,
      element,
      () => values.definition,
    );
  };
  const renameScope = (event: Event) => {
    const { element, values } = submitted(event);
    void change(
      'rename-scope',
      [replace('scope', values.scope, { name: values.name })],
      [{ name: 'name', path: 'scope' }],
      `Scope renamed to ${values.name}.`,
      element,
    );
  };

  return whenLoaded(definitions, ({ definitions: list, total }) => {
    const definitionOptions = list.map((definition) => ({ value: definition.id, label: definition.name }));
    const scopeOptions = list.flatMap((definition) => definition.scopes.map((scope) => ({ value: scope.id, label: `${definition.name}: ${scope.name}` })));
    return (
      <>
        {status && <Status>{status}</Status>}
        <ErrorSummary form="list" errors={errorsOf('list')} />
        <SearchBox
          id="definition-search"
          label="Search definitions"
          value={paged.search}
          onSearch={paged.searchFor}
          hint="The start of a definition's name; newest definitions first."
        />
        <DefinitionTable
          definitions={list}
          searching={paged.search !== ''}
          highlight={paged.highlight}
          onRemove={(operation, label) => void change('list', [operation], [], `${label} removed.`)}
        />
        <TableEnd label="Definition pages" page={paged.page} total={total} shown={list.length} onGo={paged.go} noun="definitions" />
        <div class="forms">
          <form aria-labelledby="add-definition-title" onSubmit={addDefinition} noValidate>
            <h2 id="add-definition-title">Add a resource definition</h2>
            <ErrorSummary form="add-definition" errors={errorsOf('add-definition')} />
            <TextField
              form="add-definition"
              name="name"
              label="Definition name"
              errors={errorsOf('add-definition')}
              hint="A resource type, e.g. blood-glucose-level"
            />
            <TextField form="add-definition" name="description" label="Description" errors={errorsOf('add-definition')} />
            <TextField
              form="add-definition"
              name="fhirResourceType"
              label="FHIR resource type (optional)"
              errors={errorsOf('add-definition')}
              hint="For SMART scopes, e.g. Observation"
            />
            <TextField
              form="add-definition"
              name="fhirQuery"
              label="FHIR query (optional)"
              errors={errorsOf('add-definition')}
              hint="Only with a type: param=value pairs joined by &, e.g. category=laboratory"
            />
            <FormButtons submit="Add definition" />
          </form>
          {/* An empty list shows one form: the others need a definition (or a scope) to act on. */}
          {list.length > 0 && (
            <>
              <form aria-labelledby="add-scope-title" onSubmit={addScope} noValidate>
                <h2 id="add-scope-title">Add a scope</h2>
                <ErrorSummary form="add-scope" errors={errorsOf('add-scope')} />
                <SelectField
                  form="add-scope"
                  name="definition"
                  label="Resource definition"
                  options={definitionOptions}
                  placeholder="Choose a definition"
                  value={chosen.definition}
                  onChange={(definition) => setChosen({ ...chosen, definition })}
                  errors={errorsOf('add-scope')}
                />
                <TextField form="add-scope" name="name" label="Scope name" errors={errorsOf('add-scope')} hint="e.g. read; clients ask for definition:scope" />
                <TextField
                  form="add-scope"
                  name="smartPermissions"
                  label="SMART permissions (optional)"
                  errors={errorsOf('add-scope')}
                  hint="Letters of cruds in that order, e.g. rs for read and search"
                />
                <FormButtons submit="Add scope" />
              </form>
              <form aria-labelledby="map-definition-title" onSubmit={mapDefinition} noValidate>
                <h2 id="map-definition-title">Map a definition to FHIR</h2>
                <ErrorSummary form="map-definition" errors={errorsOf('map-definition')} />
                <SelectField
                  form="map-definition"
                  name="definition"
                  label="Definition to map"
                  options={definitionOptions}
                  placeholder="Choose a definition"
                  errors={errorsOf('map-definition')}
                />
                <TextField
                  form="map-definition"
                  name="fhirResourceType"
                  label="FHIR resource type"
                  errors={errorsOf('map-definition')}
                  hint="Empty removes the mapping"
                />
                <TextField
                  form="map-definition"
                  name="fhirQuery"
                  label="FHIR query"
                  errors={errorsOf('map-definition')}
                  hint="Optional, e.g. category=laboratory"
                />
                <FormButtons submit="Save mapping" />
              </form>
              <form aria-labelledby="rename-definition-title" onSubmit={renameDefinition} noValidate>
                <h2 id="rename-definition-title">Rename a resource definition</h2>
                <ErrorSummary form="rename-definition" errors={errorsOf('rename-definition')} />
                <SelectField
                  form="rename-definition"
                  name="definition"
                  label="Definition to rename"
                  options={definitionOptions}
                  placeholder="Choose a definition"
                  errors={errorsOf('rename-definition')}
                />
                <TextField form="rename-definition" name="name" label="New name of the definition" errors={errorsOf('rename-definition')} />
                <FormButtons submit="Rename definition" />
              </form>
            </>
          )}
          {scopeOptions.length > 0 && (
            <>
              <form aria-labelledby="scope-permissions-title" onSubmit={setPermissions} noValidate>
                <h2 id="scope-permissions-title">Set a scope's SMART permissions</h2>
                <ErrorSummary form="scope-permissions" errors={errorsOf('scope-permissions')} />
                <SelectField
                  form="scope-permissions"
                  name="scope"
                  label="Scope to set"
                  options={scopeOptions}
                  placeholder="Choose a scope"
                  errors={errorsOf('scope-permissions')}
                />
                <TextField
                  form="scope-permissions"
                  name="smartPermissions"
                  label="SMART permissions"
                  errors={errorsOf('scope-permissions')}
                  hint="e.g. rs; empty removes them"
                />
                <FormButtons submit="Save permissions" />
              </form>
              <form aria-labelledby="rename-scope-title" onSubmit={renameScope} noValidate>
                <h2 id="rename-scope-title">Rename a scope</h2>
                <ErrorSummary form="rename-scope" errors={errorsOf('rename-scope')} />
                <SelectField
                  form="rename-scope"
                  name="scope"
                  label="Scope to rename"
                  options={scopeOptions}
                  placeholder="Choose a scope"
                  errors={errorsOf('rename-scope')}
                />
                <TextField form="rename-scope" name="name" label="New name of the scope" errors={errorsOf('rename-scope')} />
                <FormButtons submit="Rename scope" />
              </form>
            </>
          )}
        </div>
      </>
    );
  });
}

function withoutUndefined(attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined));
}

function DefinitionTable(props: {
  definitions: Definition[];
  searching: boolean;
  highlight?: string;
  onRemove: (operation: Operation, label: string) => void;
}) {
  if (props.definitions.length === 0)
    return <p>{props.searching ? 'No resource definition matches.' : 'No resource definition yet: add the first one with the form below.'}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>Resource definitions and their scopes</caption>
        <thead>
          <tr>
            <th scope="col">Definition</th>
            <th scope="col">Description</th>
            <th scope="col">FHIR mapping</th>
            <th scope="col">Scopes</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.definitions.map((definition) => (
            <tr key={definition.id} {...savedRow(props.highlight === definition.id)}>
              <th scope="row">
                <span class="id">{definition.name}</span>
              </th>
              <td>{definition.description}</td>
              <td>
                {definition.fhirResourceType && (
                  <code>
                    {definition.fhirResourceType}
                    {definition.fhirQuery ? `?${definition.fhirQuery}` : ''}
                  </code>
                )}
              </td>
              <td>
                <ul class="inline">
                  {definition.scopes.map((scope) => (
                    <li key={scope.id}>
                      <span class="tag">
                        {scope.name}
                        {scope.smartPermissions && ` (${scope.smartPermissions})`}
                      </span>{' '}
                      <RemoveButton
                        label={`Remove scope ${scope.name} of ${definition.name}`}
                        onRemove={() => props.onRemove(remove('scope', scope.id), `Scope ${scope.name}`)}
                      />
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <RemoveButton
                  label={`Remove definition ${definition.name}`}
                  onRemove={() => props.onRemove(remove('resource-definition', definition.id), `Resource definition ${definition.name}`)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
