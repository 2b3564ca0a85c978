import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { MAX_PAGE_SIZE } from '../api/api-client.js';
import { recordsById, type Choice } from '../api/catalogue.js';
import { add, related, remove, replace, text, type Operation, type ResourceObject } from '../api/documents.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { NO_ERRORS, type PointerLayout } from '../forms/form-errors.js';
import { useChange } from '../forms/use-change.js';
import { whenLoaded } from '../api/when-loaded.js';
import { PAGE_SIZE, SearchBox, savedRow, usePaged, useShowSaved, withSaved } from '../forms/paging.js';
import { RemoveButton, TableEnd } from '../forms/table-end.js';
import { Words } from '../forms/words.js';
import type { Reference } from '../api/documents.js';
import { SecretPanel } from '../clients/secret-panel.js';
import { DataSourceForm, type DataSourceValues, type NewClient } from './data-source-form.js';
import { dataSourceWording } from './data-source-wording.js';
import { UmaResourcesPanel } from './uma-resources-panel.js';

type Mode = { kind: 'enrol' } | { kind: 'edit'; source: ResourceObject };

/** One page of data sources (newest first, narrowed by the search), what they serve, their clients. */
async function loadPage(api: ScreenProps['api'], page: number, search: string, highlight?: string) {
  const found = await api.list('data-source', page, PAGE_SIZE, [], { filter: search ? { search } : {}, sort: '-id' });
  const sources = { ...found, data: await withSaved(found.data, highlight, async (id) => (await recordsById(api, 'data-source', [id])).get(id)) };
  if (sources.data.length === 0) {
    return {
      sources: [],
      total: sources.meta.total,
      pairs: [],
      definitions: [],
      clients: new Map<string, ResourceObject>(),
      delegations: [],
      targets: new Map<string, ResourceObject>(),
    };
  }
  const ids = sources.data.map((source) => source.id).join(',');
  const [pairs, clients, delegations] = await Promise.all([
    api.list('data-source-resource-definitions', 1, MAX_PAGE_SIZE, ['resourceDefinition'], { filter: { dataSource: ids } }),
    recordsById(
      api,
      'uma-client',
      sources.data.map((source) => related(source, 'umaClient')),
    ),
    // docs/guides/token-exchange.md#delegations: whom each data source may ask on a client's behalf.
    api.list('data-source-delegation', 1, MAX_PAGE_SIZE, [], { filter: { from: ids } }),
  ]);
  const targets = await recordsById(
    api,
    'data-source',
    delegations.data.map((delegation) => related(delegation, 'to')),
  );
  return {
    sources: sources.data,
    total: sources.meta.total,
    pairs: pairs.data,
    definitions: pairs.included ?? [],
    clients,
    delegations: delegations.data,
    targets,
  };
}

/** Wallet activity 3: data sources (resource servers, identity providers) and what they serve. */
export function DataSourcesScreen({ api }: ScreenProps) {
  const paged = usePaged((page, search, highlight) => loadPage(api, page, search, highlight));
  const [secret, setSecret] = useState<{ clientId: string; secret: string }>();
  useShowSaved(paged.highlight, paged.loaded.value);
  const data = paged.loaded;
  const [mode, setMode] = useState<Mode>({ kind: 'enrol' });
  const [status, setStatus] = useState<string>();
  const form = useChange(api, setStatus);
  const list = useChange(api, setStatus);
  const [umaOf, setUmaOf] = useState<ResourceObject>();

  const pairsOf = (source: ResourceObject) => data.value!.pairs.filter((pair) => related(pair, 'dataSource') === source.id);
  const definitionName = (id: string | undefined) => {
    const definition = data.value!.definitions.find((candidate) => candidate.id === id);
    return definition ? text(definition, 'name') : '?';
  };
  const clientName = (id: string | undefined) => {
    const client = data.value!.clients.get(id ?? '');
    return client ? text(client, 'clientId') : '';
  };
  /** "may ask on a client's behalf: Lab API (read), Archive (every scope it serves)". */
  const delegatesTo = (source: ResourceObject): string => {
    const { delegations, targets } = data.value!;
    return delegations
      .filter((delegation) => related(delegation, 'from') === source.id)
      .map((delegation) => {
        const target = targets.get(related(delegation, 'to') ?? '');
        const scopes = Array.isArray(delegation.attributes.scopes) ? (delegation.attributes.scopes as string[]) : [];
        return `${target ? text(target, 'name') : '?'} (${scopes.length > 0 ? scopes.join(', ') : 'every scope it serves'})`;
      })
      .join('; ');
  };
  const servedBy = (source: ResourceObject): Choice[] =>
    pairsOf(source).map((pair) => ({ id: related(pair, 'resourceDefinition') ?? '', label: definitionName(related(pair, 'resourceDefinition')) }));
  const clientOf = (source: ResourceObject): Choice | undefined => {
    const id = related(source, 'umaClient');
    return id ? { id, label: clientName(id) } : undefined;
  };

  const submit = (operations: Operation[], layout: PointerLayout, done: string, newClient?: NewClient) =>
    form.run(operations, {
      done,
      layout,
      wording: dataSourceWording,
      onDone: (results) => {
        setMode({ kind: 'enrol' });
        const generated = newClient ? results[0]?.meta?.clientSecret : undefined;
        if (newClient && generated) setSecret({ clientId: newClient.clientId, secret: generated });
        // The whole list again, the saved data source highlighted among the others.
        const saved = results.find((result) => result.data?.type === 'data-source')?.data?.id;
        if (saved) paged.showSaved(saved);
        else data.reload();
      },
    });
  /** The client enrolled in place, first in the request, and the reference the data source makes to it. */
  const clientOperations = (values: DataSourceValues): { operations: Operation[]; layout: PointerLayout; reference: Reference | null } => {
    if (!values.newClient) return { operations: [], layout: [], reference: values.client ? { type: 'uma-client', id: values.client } : null };
    const { clientId, clientName } = values.newClient;
    return {
      operations: [
        add(
          'uma-client',
          {
            clientId,
            clientName,
            allowedScopes: 'uma_protection',
            grantTypes: 'client_credentials',
            clientAuthenticationType: 'client_secret_basic',
          },
          undefined,
          'client',
        ),
      ],
      layout: [{ clientId: 'newClientId', clientName: 'newClientName', allowedScopes: 'newClientId', grantTypes: 'newClientId' }],
      reference: { type: 'uma-client', lid: 'client' },
    };
  };
  const enrol = (values: DataSourceValues) => {
    const source = { type: 'data-source', lid: 'source' };
    const client = clientOperations(values);
    const operations = [
      ...client.operations,
      add(
        'data-source',
        { name: values.name, kind: values.kind, resourceUri: values.resourceUri },
        client.reference ? { umaClient: client.reference } : undefined,
        'source',
      ),
      ...values.definitions.map((definition) =>
        add('data-source-resource-definitions', {}, { dataSource: source, resourceDefinition: { type: 'resource-definition', id: definition } }),
      ),
    ];
    const layout = [
      ...client.layout,
      { name: 'name', kind: 'kind', resourceUri: 'resourceUri', umaClient: 'client' },
      ...values.definitions.map(() => ({ resourceDefinition: 'definitions', dataSource: 'definitions' })),
    ];
    const withClient = values.newClient ? ` with its introspection client ${values.newClient.clientId}` : '';
    return submit(operations, layout, `Data source ${values.name} enrolled${withClient}.`, values.newClient);
  };
  const save = (source: ResourceObject, values: DataSourceValues) => {
    const pairs = pairsOf(source);
    const served = pairs.map((pair) => related(pair, 'resourceDefinition'));
    const added = values.definitions.filter((definition) => !served.includes(definition));
    const removed = pairs.filter((pair) => !values.definitions.includes(related(pair, 'resourceDefinition') ?? ''));
    const client = clientOperations(values);
    const operations = [
      ...client.operations,
      replace('data-source', source.id, { name: values.name, kind: values.kind, resourceUri: values.resourceUri }, { umaClient: client.reference }),
      ...removed.map((pair) => remove('data-source-resource-definitions', pair.id)),
      ...added.map((definition) =>
        add(
          'data-source-resource-definitions',
          {},
          { dataSource: { type: 'data-source', id: source.id }, resourceDefinition: { type: 'resource-definition', id: definition } },
        ),
      ),
    ];
    const layout = [
      ...client.layout,
      { name: 'name', kind: 'kind', resourceUri: 'resourceUri', umaClient: 'client' },
      ...removed.map(() => ({ path: 'definitions' })),
      ...added.map(() => ({ resourceDefinition: 'definitions' })),
    ];
    return submit(operations, layout, `Data source ${values.name} saved.`, values.newClient);
  };
  const removeSource = (source: ResourceObject) =>
    list.run([...pairsOf(source).map((pair) => remove('data-source-resource-definitions', pair.id)), remove('data-source', source.id)], {
      done: `Data source ${text(source, 'name')} removed.`,
      onDone: () => {
        if (mode.kind === 'edit' && mode.source.id === source.id) setMode({ kind: 'enrol' });
        data.reload();
      },
    });

  return whenLoaded(data, ({ sources, total }) => (
    <>
      {status && <Status>{status}</Status>}
      {secret && <SecretPanel clientId={secret.clientId} secret={secret.secret} onDone={() => setSecret(undefined)} />}
      <ErrorSummary form="source-list" errors={list.errors} />
      <SearchBox
        id="source-search"
        label="Search data sources"
        value={paged.search}
        onSearch={paged.searchFor}
        hint="The start of a name or resource URI; newest first."
      />
      {sources.length === 0 ? (
        <p>{paged.search ? 'No data source matches.' : 'No data source yet: enrol the first one below.'}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>Data sources</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Resource URI</th>
                <th scope="col">Serves</th>
                <th scope="col">Introspects as</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((source) => (
                <tr key={source.id} {...savedRow(paged.highlight === source.id)}>
                  <th scope="row">{text(source, 'name')}</th>
                  <td>
                    <span class="id">{text(source, 'kind')}</span>
                  </td>
                  <td>
                    <code class="id">{text(source, 'resourceUri')}</code>
                  </td>
                  <td>
                    <Words
                      text={pairsOf(source)
                        .map((pair) => definitionName(related(pair, 'resourceDefinition')))
                        .join(' ')}
                    />
                    {delegatesTo(source) && <p class="hint">May ask on a client's behalf: {delegatesTo(source)}</p>}
                  </td>
                  <td>
                    <span class="id">{clientName(related(source, 'umaClient'))}</span>
                  </td>
                  <td class="actions stacked">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit data source ${text(source, 'name')}`}
                      onClick={() => {
                        form.setErrors(NO_ERRORS);
                        setMode({ kind: 'edit', source });
                      }}
                    >
                      Edit
                    </button>
                    {related(source, 'umaClient') && (
                      <button type="button" class="secondary" aria-label={`UMA resources of ${text(source, 'name')}`} onClick={() => setUmaOf(source)}>
                        UMA resources
                      </button>
                    )}
                    <RemoveButton label={`Remove data source ${text(source, 'name')}`} onRemove={() => void removeSource(source)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <TableEnd label="Data source pages" page={paged.page} total={total} shown={sources.length} onGo={paged.go} noun="data sources" />
      {umaOf && <UmaResourcesPanel key={umaOf.id} api={api} source={umaOf} onClose={() => setUmaOf(undefined)} />}
      {mode.kind === 'enrol' ? (
        <DataSourceForm key="enrol" api={api} errors={form.errors} onSubmit={enrol} />
      ) : (
        <DataSourceForm
          key={`edit-${mode.source.id}`}
          api={api}
          source={mode.source}
          served={servedBy(mode.source)}
          client={clientOf(mode.source)}
          errors={form.errors}
          onSubmit={(values) => save(mode.source, values)}
          onCancel={() => {
            form.setErrors(NO_ERRORS);
            setMode({ kind: 'enrol' });
          }}
        />
      )}
    </>
  ));
}
