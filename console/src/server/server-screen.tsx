import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { loadAuthorizationServer } from '../api/authorization-server.js';
import { useLoad } from '../api/use-load.js';
import { whenLoaded } from '../api/when-loaded.js';
import { Status } from '../forms/fields.js';
import { messageOf } from '../forms/form-errors.js';
import { formatDate } from '../format.js';

const ENDPOINTS: [string, string][] = [
  ['token_endpoint', 'Token endpoint'],
  ['jwks_uri', 'JWKS URI'],
  ['introspection_endpoint', 'Introspection endpoint'],
  ['revocation_endpoint', 'Revocation endpoint'],
];

const list = (value: unknown) => (Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : '');

/** Wallet activity 1: the authorization server, its endpoints and its signing keys. */
export function ServerScreen({ api }: ScreenProps) {
  const server = useLoad(() => loadAuthorizationServer(api));
  const [status, setStatus] = useState<string>();
  const [busy, setBusy] = useState(false);

  const rotate = async () => {
    setBusy(true);
    try {
      const { data } = await api.post<{ data: { id: string; attributes: { signsFrom: string } } }>('/admin/keys/rotate');
      setStatus(
        `A new signing key ${data.id} is published now and signs from ${formatDate(data.attributes.signsFrom)}; the previous key stays published while its tokens live.`,
      );
      server.reload();
    } catch (error) {
      setStatus(`The key was not rotated: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return whenLoaded(server, ({ issuer, metadata, keys }) => (
    <>
      {/* The seed's walk starts with "enrol the authorization server": here that step has nothing to do, and says why. */}
      <p class="notice">
        Nothing to enrol here: this console administers the authorization server it runs on, which is set up already; its issuer, endpoints and keys are below.
      </p>
      <section>
        <h2 id="endpoints-title">Issuer and endpoints</h2>
        <dl class="facts">
          <dt>Issuer</dt>
          <dd>
            <code>{issuer}</code>
          </dd>
          {ENDPOINTS.map(([member, label]) => (
            <Fragment key={member}>
              <dt>{label}</dt>
              <dd>
                <code>{list(metadata[member])}</code>
              </dd>
            </Fragment>
          ))}
          <dt>Grant types</dt>
          <dd>{list(metadata.grant_types_supported)}</dd>
          <dt>Client authentication</dt>
          <dd>{list(metadata.token_endpoint_auth_methods_supported)}</dd>
          <dt>Token signing</dt>
          <dd>{list(metadata.access_token_signing_alg_values_supported)}</dd>
        </dl>
      </section>
      <section>
        <h2 id="keys-title">Signing keys</h2>
        <div class="table-wrap">
          <table>
            <caption>Keys published in the JWKS, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Key ID</th>
                <th scope="col">Algorithm</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.kid}>
                  <td>
                    <code class="wrap">{key.kid}</code>
                  </td>
                  <td>{key.alg}</td>
                  <td>{formatDate(key.created)}</td>
                  <td>
                    {key.signing
                      ? 'signing'
                      : new Date(key.signsFrom).getTime() > Date.now()
                        ? `published, signs from ${formatDate(key.signsFrom)}`
                        : `retired, published until ${formatDate(key.publishedUntil)}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <button type="button" onClick={() => void rotate()} disabled={busy} aria-describedby="rotate-key-hint">
          Rotate key
        </button>
        <p class="hint" id="rotate-key-hint">
          Makes a new signing key, published in the JWKS at once so resource servers learn it, that signs every token once SIGNING_KEY_PUBLISH_AHEAD has passed;
          the old key stays in the JWKS while tokens it signed live.
        </p>
        {status && <Status>{status}</Status>}
      </section>
    </>
  ));
}
