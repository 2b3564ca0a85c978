// `introspection` (docs/guides/resource-servers.md#by-introspection): the data source's client
// (allowed uma_protection, the data source's umaClient) introspects resource-scope tokens of the
// bench client at POST /oauth2/introspect, as a resource server that introspects every request
// does. oidc-provider in the same run does the same with its introspection feature; it refuses to
// introspect JWTs, so its tokens there are opaque (looked up in its in-memory store). Two results
// (oursIntrospection, oidcProviderIntrospection), no table row.
import autocannon from 'autocannon';
import { connectEmbedded } from '../fill-database.mjs';
import { CLIENT_ID, config, inComparisonOrder, REQUEST_BODY, TICKET_REQUEST_BODY } from '../lib/settings.mjs';
import { basicAuth, requestToken, timedLoad, tokenRequestHeaders, warnErrors, warnNon2xx, withCpu } from '../lib/load.mjs';
import { runOurs, seedBenchTicket, withOidcProvider } from '../lib/servers.mjs';

const INTROSPECTION_PATH = '/oauth2/introspect';
const INTROSPECTION_CLIENT_ID = 'bench-rs';
// Distinct tokens, cycled through by every connection (no answer is reused for the same token).
const INTROSPECTED_TOKENS = 200;

async function issueTokens(name, baseUrl, auth, body, count) {
  const tokens = [];
  for (let i = 0; i < count; i++) {
    const { text } = await requestToken(name, baseUrl, auth, body);
    tokens.push(JSON.parse(text).access_token);
  }
  return tokens;
}

async function benchIntrospection(name, alg, baseUrl, tokens, introspectionAuth, server) {
  const headers = tokenRequestHeaders(introspectionAuth);
  const check = await fetch(baseUrl + INTROSPECTION_PATH, { method: 'POST', headers, body: `token=${encodeURIComponent(tokens[0])}` });
  const text = await check.text();
  if (check.status !== 200 || JSON.parse(text).active !== true) throw new Error(`${name}: introspection answered HTTP ${check.status}: ${text.slice(0, 300)}`);
  const bodyBytes = Buffer.byteLength(text);
  console.log(`${alg}  measuring ${name} (${tokens.length} tokens, answer ${bodyBytes} bytes) ...`);
  const requests = tokens.map((token) => ({ method: 'POST', path: INTROSPECTION_PATH, headers, body: `token=${encodeURIComponent(token)}` }));
  const fireIntrospection = (duration) => autocannon({ url: baseUrl, connections: config.connections, duration, requests });
  const { r, used } = await timedLoad(server.child.pid, fireIntrospection);
  warnNon2xx(alg, name, r);
  warnErrors(alg, name, r);
  return { bodyBytes, ...withCpu(r, used) };
}

/** The bench client's ticket and data source, whose umaClient becomes the introspection client. */
async function seedIntrospection(dataDir) {
  await seedBenchTicket(dataDir);
  const db = await connectEmbedded(dataDir);
  try {
    await db.query(`UPDATE data_source SET client_id = (SELECT id FROM client WHERE client_id = $1) WHERE resource_uri = 'https://glucose.example/api'`, [
      INTROSPECTION_CLIENT_ID,
    ]);
  } finally {
    await db.end();
  }
}

export async function runOursIntrospection(alg, { name = 'ours, introspection of resource-scope tokens', logName = 'ours-introspection', env } = {}) {
  return runOurs(alg, {
    name,
    logName,
    env,
    extraClients: [{ clientId: INTROSPECTION_CLIENT_ID, scopes: 'uma_protection' }],
    prepare: seedIntrospection,
    measureWith: async (_name, _alg, baseUrl, auth, server, secrets) => {
      const tokens = await issueTokens(name, baseUrl, auth, TICKET_REQUEST_BODY, INTROSPECTED_TOKENS);
      return benchIntrospection(name, alg, baseUrl, tokens, basicAuth(INTROSPECTION_CLIENT_ID, secrets[INTROSPECTION_CLIENT_ID]), server);
    },
  });
}

function runOidcProviderIntrospection(alg) {
  const name = 'oidc-provider, introspection of opaque tokens';
  const secret = 'bench-secret-' + Math.random().toString(36).slice(2);
  const rsSecret = 'bench-rs-secret-' + Math.random().toString(36).slice(2);
  const env = { CLIENT_SECRET: secret, INTROSPECTION_CLIENT_ID, INTROSPECTION_CLIENT_SECRET: rsSecret };
  return withOidcProvider('oidc-provider (introspection)', 'oidc-provider-introspection', alg, env, async (baseUrl, server) => {
    const tokens = await issueTokens(name, baseUrl, basicAuth(CLIENT_ID, secret), REQUEST_BODY, INTROSPECTED_TOKENS);
    return benchIntrospection(name, alg, baseUrl, tokens, basicAuth(INTROSPECTION_CLIENT_ID, rsSecret), server);
  });
}

async function runIntrospection(alg) {
  const { ours, peer } = await inComparisonOrder(
    () => runOursIntrospection(alg),
    () => runOidcProviderIntrospection(alg),
  );
  return { oursIntrospection: ours, oidcProviderIntrospection: peer };
}

export default { name: 'introspection', needsBuild: true, run: runIntrospection };
