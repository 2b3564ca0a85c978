import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { add, related, remove, replace, text, type Operation, type ResourceObject } from '../api/documents.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { NO_ERRORS } from '../forms/form-errors.js';
import { useChange } from '../forms/use-change.js';
import { whenLoaded } from '../api/when-loaded.js';
import { PAGE_SIZE, SearchBox, savedRow, usePaged, useShowSaved, withSaved } from '../forms/paging.js';
import { RemoveButton, TableEnd } from '../forms/table-end.js';
import { Words } from '../forms/words.js';
import { recordsById } from '../api/catalogue.js';
import { authenticationMethodsOf, bindsTokensToCertificates, loadAuthorizationServer } from '../api/authorization-server.js';
import { useLoad } from '../api/use-load.js';
import { ClientForm, CLIENT_LAYOUT, type ClientValues, type ServerSupport } from './client-form.js';
import { newClientSecret } from './client-secret.js';
import { holdsNoSecret } from '../../../src/oauth/client-authentication-methods.js';
import { SecretPanel } from './secret-panel.js';

type Mode = { kind: 'enrol' } | { kind: 'edit'; client: ResourceObject };

/** One page of clients, newest first, narrowed by the search; and how many there are in all. */
async function loadPage(api: ScreenProps['api'], page: number, search: string, highlight?: string) {
  const [found, all] = await Promise.all([
    api.list('uma-client', page, PAGE_SIZE, [], { filter: search ? { search } : {}, sort: '-id' }),
    search ? api.list('uma-client', 1, 1) : undefined,
  ]);
  const clients = await withSaved(found.data, highlight, async (id) => (await recordsById(api, 'uma-client', [id])).get(id));
  // The trust communities of the page's UDAP clients, one request for all (named, not numbered).
  const communities = await recordsById(
    api,
    'trust-community',
    clients.map((client) => related(client, 'trustCommunity')),
  );
  return { clients, communities, matching: found.meta.total, total: (all ?? found).meta.total };
}

/** Wallet activity 4: clients (list and search, enrol, edit, rotate the secret, remove). */
export function ClientsScreen({ api }: ScreenProps) {
  const paged = usePaged((page, search, highlight) => loadPage(api, page, search, highlight));
  const clients = paged.loaded;
  useShowSaved(paged.highlight, clients.value);
  const [mode, setMode] = useState<Mode>({ kind: 'enrol' });
  const [status, setStatus] = useState<string>();
  const form = useChange(api, setStatus);
  const list = useChange(api, setStatus);
  const [secret, setSecret] = useState<{ clientId: string; secret: string }>();
  // What the server supports decides the methods offered (no mutual-TLS method without MTLS=true).
  const server = useLoad(() => loadAuthorizationServer(api));
  const support: ServerSupport | undefined = server.value && {
    methods: authenticationMethodsOf(server.value.metadata),
    certificateBinding: bindsTokensToCertificates(server.value.metadata),
  };

  const enrol = (values: ClientValues) =>
    form.run([add('uma-client', attributesOf(values, false))], {
      done: `Client ${values.clientId} enrolled.`,
      layout: CLIENT_LAYOUT,
      onDone: ([result]) => {
        const generated = result?.meta?.clientSecret;
        if (generated) setSecret({ clientId: values.clientId ?? '', secret: generated });
        // The whole list again, the new client highlighted among the others.
        if (result?.data) paged.showSaved(result.data.id);
        else clients.reload();
      },
    });
  const save = (client: ResourceObject, values: ClientValues) =>
    form.run(
      [
        replace(
          'uma-client',
          client.id,
          attributesOf(values, 'dpopBoundAccessTokens' in client.attributes, 'tlsClientCertificateBoundAccessTokens' in client.attributes),
        ),
      ],
      {
        done: `Client ${text(client, 'clientId')} saved.`,
        layout: CLIENT_LAYOUT,
        onDone: () => {
          setMode({ kind: 'enrol' });
          paged.showSaved(client.id);
        },
      },
    );
  const listChange = (operation: Operation, done: string, newSecret?: { clientId: string; secret: string }) =>
    list.run([operation], {
      done,
      onDone: () => {
        if (newSecret) setSecret(newSecret);
        clients.reload();
      },
    });
  const rotate = (client: ResourceObject) => {
    const value = newClientSecret();
    const clientId = text(client, 'clientId');
    void listChange(replace('uma-client', client.id, { clientSecret: value }), `The secret of ${clientId} was replaced; the old one no longer works.`, {
      clientId,
      secret: value,
    });
  };

  return whenLoaded(clients, ({ clients: shown, communities, matching, total }) => (
    <>
      {status && <Status>{status}</Status>}
      {secret && <SecretPanel clientId={secret.clientId} secret={secret.secret} onDone={() => setSecret(undefined)} />}
      <SearchBox
        id="client-search"
        label="Search clients"
        value={paged.search}
        onSearch={paged.searchFor}
        hint="The start of a client ID or name; newest clients first."
      />
      <ErrorSummary form="client-list" errors={list.errors} />
      <div class="table-wrap">
        <table>
          <caption>{paged.search ? `Clients (${matching} of ${total})` : `Clients (${total})`}</caption>
          <thead>
            <tr>
              <th scope="col">Client ID</th>
              <th scope="col">Name</th>
              <th scope="col">Allowed scopes</th>
              <th scope="col">Grant types</th>
              <th scope="col">Authentication</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((client) => {
              const clientId = text(client, 'clientId');
              const dpop = client.attributes.dpopBoundAccessTokens === true;
              const certificateBound = client.attributes.tlsClientCertificateBoundAccessTokens === true;
              return (
                <tr key={client.id} {...savedRow(paged.highlight === client.id)}>
                  <th scope="row">
                    <code class="id">{clientId}</code>
                  </th>
                  <td>
                    {text(client, 'clientName')}
                    {client.attributes.registeredVia === 'dcr' && (
                      <>
                        {' '}
                        <span class="tag">registered dynamically</span>
                      </>
                    )}
                    {client.attributes.registeredVia === 'udap' && <UdapMark client={client} communities={communities} />}
                  </td>
                  <td>
                    <Words text={text(client, 'allowedScopes')} />
                  </td>
                  <td>
                    <Words text={text(client, 'grantTypes')} />
                  </td>
                  <td>
                    <span class="id">{text(client, 'clientAuthenticationType')}</span>
                    {dpop ? ', DPoP-bound tokens' : ''}
                    {certificateBound ? ', certificate-bound tokens' : ''}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit ${clientId}`}
                      onClick={() => {
                        form.setErrors(NO_ERRORS);
                        setMode({ kind: 'edit', client });
                      }}
                    >
                      Edit
                    </button>
                    {!holdsNoSecret(text(client, 'clientAuthenticationType')) && (
                      <button type="button" class="secondary" aria-label={`Rotate secret of ${clientId}`} onClick={() => rotate(client)}>
                        Rotate secret
                      </button>
                    )}
                    <RemoveButton
                      label={`Remove ${clientId}`}
                      onRemove={() => void listChange(remove('uma-client', client.id), `Client ${clientId} removed.`)}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <TableEnd label="Client pages" page={paged.page} total={matching} shown={shown.length} onGo={paged.go} noun="clients" />
      {mode.kind === 'enrol' ? (
        <ClientForm key="enrol" support={support} errors={form.errors} onSubmit={enrol} />
      ) : (
        <ClientForm
          key={`edit-${mode.client.id}`}
          client={mode.client}
          support={support}
          errors={form.errors}
          onSubmit={(values) => save(mode.client, values)}
          onCancel={() => {
            form.setErrors(NO_ERRORS);
            setMode({ kind: 'enrol' });
          }}
        />
      )}
    </>
  ));
}

/**
 * A client UDAP registered (docs/reference/trust-communities.md#registered-clients): the tag, its
 * trust community by name (by id when the community cannot be read) and its organization.
 */
function UdapMark(props: { client: ResourceObject; communities: Map<string, ResourceObject> }) {
  const id = related(props.client, 'trustCommunity');
  const community = id ? props.communities.get(id) : undefined;
  const organization = text(props.client, 'organization');
  return (
    <>
      {' '}
      <span class="tag">UDAP</span>
      <span class="udap-member">
        {' '}
        {community ? `of trust community “${text(community, 'name')}”` : id ? `of trust community ${id}` : 'of a removed trust community'}
        {organization && `, organization ${organization}`}
      </span>
    </>
  );
}

// Clients of these methods hold keys or certificates, no secret to rotate (docs/guides/mtls.md).
/** The attributes a form sends: on edit only what it edits; DPoP and certificate binding only where the server knows them. */
function attributesOf(values: ClientValues, dpopKnown: boolean, certificateBindingKnown = false): Record<string, unknown> {
  const attributes: Record<string, unknown> = { allowedScopes: values.allowedScopes, grantTypes: values.grantTypes.join(' ') };
  if (values.clientId !== undefined) {
    attributes.clientId = values.clientId;
    attributes.clientName = values.clientName;
    attributes.clientAuthenticationType = values.authenticationType;
    if (values.redirectUris.length > 0) attributes.redirectUris = values.redirectUris;
    if (values.authenticationType === 'private_key_jwt' || values.authenticationType === 'self_signed_tls_client_auth') {
      if (values.jwksRaw) attributes.jwksRaw = values.jwksRaw;
      if (values.jwksUri) attributes.jwksUri = values.jwksUri;
    }
    if (values.authenticationType === 'tls_client_auth') attributes[values.tlsSubjectAttribute] = values.tlsSubjectValue === '' ? null : values.tlsSubjectValue;
  }
  if (values.registrationManagement !== undefined) attributes.registrationManagement = values.registrationManagement;
  if (dpopKnown || values.dpopBound) attributes.dpopBoundAccessTokens = values.dpopBound;
  if (certificateBindingKnown || values.certificateBound) attributes.tlsClientCertificateBoundAccessTokens = values.certificateBound;
  // Digits go as a number; anything else as typed, so the server's error lands beside the field.
  const lifetime = values.accessTokenLifetime;
  if (lifetime !== '') attributes.accessTokenLifetime = /^\d+$/.test(lifetime) ? Number(lifetime) : lifetime;
  else if (values.clientId === undefined) attributes.accessTokenLifetime = null;
  return attributes;
}
