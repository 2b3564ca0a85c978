// `oidc-provider`: panva's oidc-provider (bench/oidc-provider-peer.mjs) doing the job of `ours`:
// one client_secret_basic client, client credentials grant, JWT access tokens signed with the
// same alg, in-memory adapter. The reference implementation of the field.
import { CLIENT_ID } from '../lib/settings.mjs';
import { basicAuth, benchServer } from '../lib/load.mjs';
import { withOidcProvider } from '../lib/servers.mjs';

async function runOidcProvider(alg) {
  const secret = 'bench-secret-' + Math.random().toString(36).slice(2);
  return withOidcProvider('oidc-provider', 'oidc-provider', alg, { CLIENT_SECRET: secret }, (baseUrl, server) =>
    benchServer('oidc-provider', alg, baseUrl, basicAuth(CLIENT_ID, secret), server),
  );
}

export default { name: 'oidc-provider', key: 'oidcProvider', label: 'oidc-provider', unit: 'tok/s', needsBuild: false, run: runOidcProvider };
