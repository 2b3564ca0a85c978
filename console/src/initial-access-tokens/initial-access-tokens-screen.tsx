import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { recordsById } from '../api/catalogue.js';
import { add, remove, replace, text, type ResourceObject } from '../api/documents.js';
import { whenLoaded } from '../api/when-loaded.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { NO_ERRORS, type FormErrors } from '../forms/form-errors.js';
import { PAGE_SIZE, SearchBox, savedRow, usePaged, useShowSaved, withSaved } from '../forms/paging.js';
import { RemoveButton, TableEnd } from '../forms/table-end.js';
import { useChange } from '../forms/use-change.js';
import { Words } from '../forms/words.js';
import { formatDate } from '../format.js';
import { TOKEN_LAYOUT, TokenForm, type TokenValues } from './token-form.js';
import { TokenPanel } from './token-panel.js';

const TYPE = 'initial-access-token';
type Mode = { kind: 'issue' } | { kind: 'edit'; token: ResourceObject };

/** One page of tokens (newest first, narrowed by the search), and the methods the server has enabled. */
async function loadPage(api: ScreenProps['api'], page: number, search: string, highlight?: string) {
  const [found, server] = await Promise.all([
    api.list(TYPE, page, PAGE_SIZE, [], { filter: search ? { search } : {}, sort: '-id' }),
    api.get<{ data: { attributes: { metadata: { token_endpoint_auth_methods_supported?: string[] } } } }>('/admin/authorization-server'),
  ]);
  const tokens = await withSaved(found.data, highlight, async (id) => (await recordsById(api, TYPE, [id])).get(id));
  return { tokens, total: found.meta.total, methods: server.data.attributes.metadata.token_endpoint_auth_methods_supported ?? [] };
}

/** Digits as a number; anything else as typed, so that the server's refusal lands beside the field. */
const numberOrText = (value: string): number | string => (/^\d+$/.test(value) ? Number(value) : value);

/** A refusal of the form's own, before any request: the expiry must be whole hours. */
function hoursRefused(form: { setErrors: (errors: FormErrors) => void }, hours: string): boolean {
  if (hours === '' || /^\d+$/.test(hours)) return false;
  const message = 'Expires after must be a whole number of hours, e.g. 24';
  form.setErrors({ summary: [{ message, field: 'expiresInHours' }], fields: { expiresInHours: message } });
  return true;
}

const expiresAt = (hours: string) => new Date(Date.now() + Number(hours) * 3_600_000).toISOString();

/**
 * Initial access tokens (docs/guides/dynamic-registration.md): what a client registers itself
 * with. Issue one (the token shown once), edit its name, maximum uses and expiry, remove it (it
 * registers nothing more; the clients it registered stay).
 */
export function InitialAccessTokensScreen({ api }: ScreenProps) {
  const paged = usePaged((page, search, highlight) => loadPage(api, page, search, highlight));
  const loaded = paged.loaded;
  useShowSaved(paged.highlight, loaded.value);
  const [mode, setMode] = useState<Mode>({ kind: 'issue' });
  const [status, setStatus] = useState<string>();
  const [issued, setIssued] = useState<{ name: string; token: string }>();
  const form = useChange(api, setStatus);
  const list = useChange(api, setStatus);

  const issue = async (values: TokenValues) => {
    if (hoursRefused(form, values.expiresInHours)) return false;
    const attributes: Record<string, unknown> = {
      name: values.name,
      scopeCeiling: values.scopeCeiling,
      grantTypes: values.grantTypes.join(' '),
      authMethods: values.authMethods.join(' '),
    };
    if (values.accessTokenLifetime !== '') attributes.accessTokenLifetime = numberOrText(values.accessTokenLifetime);
    if (values.maxUses !== '') attributes.maxUses = numberOrText(values.maxUses);
    if (values.expiresInHours !== '') attributes.expiresAt = expiresAt(values.expiresInHours);
    return form.run([add(TYPE, attributes)], {
      done: `Initial access token “${values.name}” issued.`,
      layout: TOKEN_LAYOUT,
      onDone: ([result]) => {
        const token = result?.meta?.token;
        if (typeof token === 'string') setIssued({ name: values.name, token });
        if (result?.data) paged.showSaved(result.data.id);
        else loaded.reload();
      },
    });
  };
  const save = async (token: ResourceObject, values: TokenValues) => {
    if (hoursRefused(form, values.expiresInHours)) return false;
    const attributes: Record<string, unknown> = { name: values.name };
    if (values.maxUses !== '') attributes.maxUses = numberOrText(values.maxUses);
    if (values.expiresInHours !== '') attributes.expiresAt = expiresAt(values.expiresInHours);
    return form.run([replace(TYPE, token.id, attributes)], {
      done: `Initial access token “${values.name}” saved.`,
      layout: TOKEN_LAYOUT,
      onDone: () => {
        setMode({ kind: 'issue' });
        paged.showSaved(token.id);
      },
    });
  };
  const removeToken = (token: ResourceObject) => {
    const name = text(token, 'name');
    void list.run([remove(TYPE, token.id)], {
      done: `Initial access token “${name}” removed: it registers no more clients; the clients it registered keep working.`,
      onDone: () => {
        if (mode.kind === 'edit' && mode.token.id === token.id) setMode({ kind: 'issue' });
        loaded.reload();
      },
    });
  };

  return whenLoaded(loaded, ({ tokens, total, methods }) => (
    <>
      {status && <Status>{status}</Status>}
      {issued && <TokenPanel name={issued.name} token={issued.token} onDone={() => setIssued(undefined)} />}
      <p class="hint">
        A client registers itself at /oauth2/register with one of these tokens, within its ceilings; registration never grants consent (tickets stay yours to
        write).
      </p>
      <SearchBox
        id="initial-access-token-search"
        label="Search initial access tokens"
        value={paged.search}
        onSearch={paged.searchFor}
        hint="The start of a token's name; newest first."
      />
      <ErrorSummary form="initial-access-token-list" errors={list.errors} />
      <div class="table-wrap">
        <table>
          <caption>{paged.search ? `Initial access tokens (${total} matching)` : `Initial access tokens (${total})`}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope ceiling</th>
              <th scope="col">Grant types</th>
              <th scope="col">Authentication methods</th>
              <th scope="col">Uses</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => {
              const name = text(token, 'name');
              const expired = new Date(text(token, 'expiresAt')).getTime() <= Date.now();
              const usedUp = Number(token.attributes.uses) >= Number(token.attributes.maxUses);
              return (
                <tr key={token.id} {...savedRow(paged.highlight === token.id)}>
                  <th scope="row">{name}</th>
                  <td>
                    <Words text={text(token, 'scopeCeiling')} />
                  </td>
                  <td>
                    <Words text={text(token, 'grantTypes')} />
                  </td>
                  <td>
                    <Words text={text(token, 'authMethods')} />
                  </td>
                  <td>
                    {`${text(token, 'uses')} of ${text(token, 'maxUses')}`}
                    {usedUp && ' '}
                    {usedUp && <span class="tag">used up</span>}
                  </td>
                  <td>
                    {formatDate(token.attributes.expiresAt)}
                    {expired && ' '}
                    {expired && <span class="tag">expired</span>}
                  </td>
                  <td>{token.attributes.lastUsedAt ? formatDate(token.attributes.lastUsedAt) : 'never'}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit initial access token ${name}`}
                      onClick={() => {
                        form.setErrors(NO_ERRORS);
                        setMode({ kind: 'edit', token });
                      }}
                    >
                      Edit
                    </button>
                    <RemoveButton label={`Remove initial access token ${name}`} onRemove={() => removeToken(token)} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {total === 0 && !paged.search && <p>No initial access token yet: issue one below.</p>}
      <TableEnd label="Initial access token pages" page={paged.page} total={total} shown={tokens.length} onGo={paged.go} noun="initial access tokens" />
      {mode.kind === 'issue' ? (
        <TokenForm key="issue" methods={methods} errors={form.errors} onSubmit={issue} />
      ) : (
        <TokenForm
          key={`edit-${mode.token.id}`}
          token={mode.token}
          methods={methods}
          errors={form.errors}
          onSubmit={(values) => save(mode.token, values)}
          onCancel={() => {
            form.setErrors(NO_ERRORS);
            setMode({ kind: 'issue' });
          }}
        />
      )}
    </>
  ));
}
