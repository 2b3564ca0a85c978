// panva's oidc-provider configured for the same job as our server: one
// confidential client (client_secret_basic) using the client credentials
// grant, receiving JWT access tokens signed with TOKEN_SIGNING_ALG.
//
// Env: PORT, TOKEN_SIGNING_ALG (RS256 | ES256), CLIENT_ID, CLIENT_SECRET.
// Proof-of-possession case (issue 12): POP_CLIENT_ID and POP_CLIENT_JWKS (its public JWKS, JSON)
// add a private_key_jwt client bound to DPoP (dpop_bound_access_tokens), with features.dPoP on.
// Introspection case: INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET add a resource server's
// client (client_secret_basic) and turn on features.introspection at /oauth2/introspect; the access
// tokens are then opaque, as oidc-provider refuses to introspect JWTs.
// Prints one line `oidc-provider listening on <port>` when ready.
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const alg = process.env.TOKEN_SIGNING_ALG ?? 'RS256';
const clientId = process.env.CLIENT_ID ?? 'bench-client';
const clientSecret = process.env.CLIENT_SECRET ?? 'bench-secret';
const issuer = `http://127.0.0.1:${port}`;
// One resource server (the audience of every token); the client never sends
// `resource`, so defaultResource picks this one for it.
const RESOURCE = 'urn:bench:api';
const SCOPE = 'read uma_protection';

// Fresh signing keys per start, both kinds, so either alg can be selected.
function privateJwk(type, options, kid, keyAlg) {
  const { privateKey } = generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), kid, alg: keyAlg, use: 'sig' };
}

const jwks = {
  keys: [privateJwk('rsa', { modulusLength: 2048 }, 'rsa-1', 'RS256'), privateJwk('ec', { namedCurve: 'P-256' }, 'ec-1', 'ES256')],
};

// --- proof of possession (issue 12) ---
const popClients = process.env.POP_CLIENT_JWKS
  ? [
      {
        client_id: process.env.POP_CLIENT_ID ?? 'bench-pop-client',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: JSON.parse(process.env.POP_CLIENT_JWKS),
        dpop_bound_access_tokens: true,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: SCOPE,
      },
    ]
  : [];
// --- end proof of possession ---

// --- introspection ---
const introspection = Boolean(process.env.INTROSPECTION_CLIENT_ID);
const introspectionClients = introspection
  ? [
      {
        client_id: process.env.INTROSPECTION_CLIENT_ID,
        client_secret: process.env.INTROSPECTION_CLIENT_SECRET ?? 'bench-rs-secret',
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: SCOPE,
      },
    ]
  : [];
// --- end introspection ---

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: SCOPE,
    },
    ...popClients,
    ...introspectionClients,
  ],
  clientAuthMethods: ['client_secret_basic', 'private_key_jwt'],
  jwks,
  scopes: SCOPE.split(' '),
  // Explicit TTL, as our server issues 3600 s tokens (also silences a NOTICE).
  ttl: { ClientCredentials: 3600 },
  // Same path as our server, so the load generator sends identical requests.
  routes: { token: '/oauth2/token', introspection: '/oauth2/introspect' },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: introspection },
    // No nonceSecret: no server nonces, as our server with DPOP_NONCE unset.
    dPoP: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => RESOURCE,
      getResourceServerInfo: async () => ({
        scope: SCOPE,
        audience: RESOURCE,
        accessTokenTTL: 3600,
        accessTokenFormat: introspection ? 'opaque' : 'jwt',
        jwt: { sign: { alg } },
      }),
    },
  },
});

// Don't let the default logging of every server_error go unnoticed, but keep
// the hot path quiet otherwise.
provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error:', err));

const server = provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc-provider listening on ${port} (${alg})`);
});

function shutdown() {
  server.close(() => process.exit(0));
  // Keep-alive sockets from the load generator can hold close() open.
  server.closeAllConnections();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
