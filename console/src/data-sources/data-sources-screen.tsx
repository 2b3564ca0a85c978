import { useState } from 'preact/hooks';
import type { ScreenProps } from '../app.js';
import { loadClients, loadDefinitions } from '../api/catalogue.js';
import { add, related, remove, replace, text, type Operation, type ResourceObject } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { formErrorsOf, NO_ERRORS, type FormErrors } from '../forms/form-errors.js';
import { DataSourceForm, type DataSourceValues } from './data-source-form.js';
import { UmaResourcesPanel } from './uma-resources-panel.js';

type Mode = { kind: 'enrol' } | { kind: 'edit'; source: ResourceObject };

async function loadAll(api: ScreenProps['api']) {
  const [sources, pairs, definitions, clients] = await Promise.all([
    api.listAll('data-source'), api.listAll('data-source-resource-definitions'), loadDefinitions(api), loadClients(api),
  ]);
  return { sources: sources.data, pairs: pairs.data, definitions, clients };
}

/** Wallet activity 3: data sources (resource servers, identity providers) and what they serve. */
export function DataSourcesScreen({ api }: ScreenProps) {
  const data = useLoad(() => loadAll(api));
  const [mode, setMode] = useState<Mode>({ kind: 'enrol' });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [listErrors, setListErrors] = useState<FormErrors>(NO_ERRORS);
  const [status, setStatus] = useState<string>();
  const [umaOf, setUmaOf] = useState<ResourceObject>();

  const pairsOf = (source: ResourceObject) => data.value!.pairs.filter((pair) => related(pair, 'dataSource') === source.id);
  const definitionName = (id: string | undefined) => data.value!.definitions.find((definition) => definition.id === id)?.name ?? '?';
  const clientName = (id: string | undefined) => {
    const client = data.value!.clients.find((candidate) => candidate.id === id);
    return client ? text(client, 'clientId') : '';
  };

  const submit = async (values: DataSourceValues, operations: Operation[], layout: Parameters<typeof formErrorsOf>[1], done: string) => {
    try {
      await api.patch(operations);
      setErrors(NO_ERRORS);
      setMode({ kind: 'enrol' });
      setStatus(done);
      data.reload();
      return true;
    } catch (error) {
      setErrors(formErrorsOf(error, layout));
      return false;
    }
  };
  const enrol = (values: DataSourceValues) => {
    const source = { type: 'data-source', lid: 'source' };
    const operations = [
      add('data-source', { name: values.name, kind: values.kind, resourceUri: values.resourceUri },
        values.client ? { umaClient: { type: 'uma-client', id: values.client } } : undefined, 'source'),
      ...values.definitions.map((definition) => add('data-source-resource-definitions', {}, { dataSource: source, resourceDefinition: { type: 'resource-definition', id: definition } })),
    ];
    const layout = [{ name: 'name', kind: 'kind', resourceUri: 'resourceUri', umaClient: 'client' }, ...values.definitions.map(() => ({ resourceDefinition: 'definitions', dataSource: 'definitions' }))];
    return submit(values, operations, layout, `Data source ${values.name} enrolled.`);
  };
  const save = (source: ResourceObject, values: DataSourceValues) => {
    const pairs = pairsOf(source);
    const served = pairs.map((pair) => related(pair, 'resourceDefinition'));
    const added = values.definitions.filter((definition) => !served.includes(definition));
    const removed = pairs.filter((pair) => !values.definitions.includes(related(pair, 'resourceDefinition') ?? ''));
    const operations = [
      replace('data-source', source.id, { name: values.name, kind: values.kind, resourceUri: values.resourceUri },
        { umaClient: values.client ? { type: 'uma-client', id: values.client } : null }),
      ...removed.map((pair) => remove('data-source-resource-definitions', pair.id)),
      ...added.map((definition) => add('data-source-resource-definitions', {}, { dataSource: { type: 'data-source', id: source.id }, resourceDefinition: { type: 'resource-definition', id: definition } })),
    ];
    const layout = [{ name: 'name', kind: 'kind', resourceUri: 'resourceUri', umaClient: 'client' }, ...removed.map(() => ({ path: 'definitions' })), ...added.map(() => ({ resourceDefinition: 'definitions' }))];
    return submit(values, operations, layout, `Data source ${values.name} saved.`);
  };
  const removeSource = async (source: ResourceObject) => {
    try {
      await api.patch([...pairsOf(source).map((pair) => remove('data-source-resource-definitions', pair.id)), remove('data-source', source.id)]);
      setListErrors(NO_ERRORS);
      setStatus(`Data source ${text(source, 'name')} removed.`);
      if (mode.kind === 'edit' && mode.source.id === source.id) setMode({ kind: 'enrol' });
      data.reload();
    } catch (error) {
      setListErrors(formErrorsOf(error));
    }
  };

  if (data.error) return <p class="load-error" role="alert">{data.error}</p>;
  if (!data.value) return <p class="loading">Loading…</p>;
  const { sources, definitions, clients } = data.value;
  return (
    <>
      {status && <Status>{status}</Status>}
      <ErrorSummary form="source-list" errors={listErrors} />
      {sources.length === 0 ? <p>No data source yet: enrol the first one below.</p> : (
        <div class="table-wrap">
          <table>
            <caption>Data sources</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Resource URI</th><th scope="col">Serves</th><th scope="col">Introspects as</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {sources.map((source) => (
                <tr key={source.id}>
                  <th scope="row">{text(source, 'name')}</th>
                  <td>{text(source, 'kind')}</td>
                  <td><code class="wrap">{text(source, 'resourceUri')}</code></td>
                  <td>{pairsOf(source).map((pair) => definitionName(related(pair, 'resourceDefinition'))).join(', ')}</td>
                  <td>{clientName(related(source, 'umaClient'))}</td>
                  <td class="actions">
                    <button type="button" class="secondary" aria-label={`Edit data source ${text(source, 'name')}`} onClick={() => { setErrors(NO_ERRORS); setMode({ kind: 'edit', source }); }}>Edit</button>
                    {related(source, 'umaClient') && <button type="button" class="secondary" aria-label={`UMA resources of ${text(source, 'name')}`} onClick={() => setUmaOf(source)}>UMA resources</button>}
                    <button type="button" class="danger" aria-label={`Remove data source ${text(source, 'name')}`} onClick={() => void removeSource(source)}>Remove</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {umaOf && <UmaResourcesPanel key={umaOf.id} api={api} source={umaOf} onClose={() => setUmaOf(undefined)} />}
      {mode.kind === 'enrol'
        ? <DataSourceForm key="enrol" definitions={definitions} clients={clients} errors={errors} onSubmit={enrol} />
        : <DataSourceForm key={`edit-${mode.source.id}`} source={mode.source} served={pairsOf(mode.source).map((pair) => related(pair, 'resourceDefinition') ?? '')}
            definitions={definitions} clients={clients} errors={errors} onSubmit={(values) => save(mode.source, values)}
            onCancel={() => { setErrors(NO_ERRORS); setMode({ kind: 'enrol' }); }} />}
    </>
  );
}
