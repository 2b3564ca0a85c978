// `exchange` (docs/guides/token-exchange.md): the bench data source's client (the actor) exchanges
// resource-scope tokens of the bench client for tokens meant for a second data source, with
// consent decided again and a disclosure row committed before each answer; compare it with the
// `disclosures` case of the same run (a resource-scope token with its row), which API §23 bounds
// at 1.5× its cost.
import autocannon from 'autocannon';
import { connectEmbedded } from '../fill-database.mjs';
import { config, RESOURCE_SCOPE, TICKET_REQUEST_BODY } from '../lib/settings.mjs';
import { basicAuth, requestToken, timedLoad, tokenRequestHeaders, warnErrors, warnNon2xx, withCpu } from '../lib/load.mjs';
import { runOurs, seedBenchTicket } from '../lib/servers.mjs';

const ACTOR_CLIENT_ID = 'bench-facade';
const FACADE = 'https://glucose.example/api';
const LAB = 'https://lab.example/api';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
// Distinct subject tokens, cycled through by every connection.
const SUBJECT_TOKENS = 200;

/** The bench ticket, its data source (A, the facade) introspected by the actor, a second data source B and the A→B delegation. */
async function seedExchange(dataDir) {
  await seedBenchTicket(dataDir);
  const db = await connectEmbedded(dataDir);
  try {
    await db.query('BEGIN');
    await db.query(`UPDATE client_metadata SET grant_types = $2 WHERE id = (SELECT metadata_id FROM client WHERE client_id = $1)`, [
      ACTOR_CLIENT_ID,
      `client_credentials ${EXCHANGE}`,
    ]);
    const [{ id: facade }] = (
      await db.query(`UPDATE data_source SET client_id = (SELECT id FROM client WHERE client_id = $1) WHERE resource_uri = $2 RETURNING id`, [
        ACTOR_CLIENT_ID,
        FACADE,
      ])
    ).rows;
    const lab = 3_000_000;
    await db.query(`INSERT INTO data_source (id, name, kind, resource_uri) VALUES ($1, 'Lab API', 'resource-server', $2)`, [lab, LAB]);
    await db.query(
      `INSERT INTO data_source_resource_definitions (id, data_source_id, resource_definition_id)
       SELECT $1, $1, resource_definition_id FROM data_source_resource_definitions WHERE data_source_id = $2`,
      [lab, facade],
    );
    await db.query(`INSERT INTO data_source_delegation (id, from_id, to_id, scopes) VALUES ($1, $2, $1, '{}')`, [lab, facade]);
    await db.query('COMMIT');
  } finally {
    await db.end();
  }
}

async function measureExchange(name, alg, baseUrl, auth, server, secrets) {
  const subjectBody = `${TICKET_REQUEST_BODY}&resource=${encodeURIComponent(FACADE)}`;
  const tokens = [];
  for (let i = 0; i < SUBJECT_TOKENS; i++) tokens.push(JSON.parse((await requestToken(name, baseUrl, auth, subjectBody)).text).access_token);
  const headers = tokenRequestHeaders(basicAuth(ACTOR_CLIENT_ID, secrets[ACTOR_CLIENT_ID]));
  const bodyOf = (token) =>
    new URLSearchParams({
      grant_type: EXCHANGE,
      subject_token: token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      resource: LAB,
      scope: RESOURCE_SCOPE,
    }).toString();
  const check = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', headers, body: bodyOf(tokens[0]) });
  const text = await check.text();
  if (check.status !== 200) throw new Error(`${name}: the exchange answered HTTP ${check.status}: ${text.slice(0, 300)}`);
  console.log(`${alg}  measuring ${name} (${tokens.length} subject tokens, answer ${Buffer.byteLength(text)} bytes) ...`);
  const requests = tokens.map((token) => ({ method: 'POST', path: '/oauth2/token', headers, body: bodyOf(token) }));
  const fire = (duration) => autocannon({ url: baseUrl, connections: config.connections, duration, requests });
  const { r, used } = await timedLoad(server.child.pid, fire);
  warnNon2xx(alg, name, r);
  warnErrors(alg, name, r);
  return { bodyBytes: Buffer.byteLength(text), ...withCpu(r, used) };
}

export default {
  name: 'exchange',
  key: 'oursExchange',
  label: 'ours, token exchange',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, {
      name: 'ours, token exchange (consent decided again, disclosure row)',
      logName: 'ours-exchange',
      extraClients: [{ clientId: ACTOR_CLIENT_ID, scopes: 'uma_protection' }],
      prepare: seedExchange,
      measureWith: measureExchange,
    }),
};
