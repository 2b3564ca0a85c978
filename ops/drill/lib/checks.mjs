// The checks after each failover: every answered token's row on the new primary, every accepted
// assertion refused when replayed, and an admin change on instance 1 seen by instance 2.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { instances, secrets, withPostgres } from './cluster.mjs';
import { assertionBody, REQUEST_TIMEOUT_MS, tokenRequest } from './load.mjs';
import { sleep } from './processes.mjs';
import { admin } from './world.mjs';

function replayKey(clientId, jti) {
  return createHash('sha256').update(`client-assertion\u0000${clientId}\u0000${jti}`).digest('base64url');
}

/** The disclosure rows of the resource-scope tokens and the jti rows of the assertions answered 200, looked up on `primary`. */
export async function checkRows(primary, results) {
  const tokens = results.filter((result) => result.status === 200 && result.kind === 'resource').map((result) => result.jti);
  const assertions = results.filter((result) => result.status === 200 && result.kind === 'assertion');
  const connection = {
    host: '127.0.0.1',
    port: primary.port,
    user: 'postgres',
    password: secrets.superuser,
    database: 'authz',
    connectionTimeoutMillis: 5_000,
  };
  return withPostgres(connection, async (client) => {
    const disclosures = await client.query('SELECT jti FROM disclosure WHERE jti = ANY($1::text[])', [tokens]);
    const keys = assertions.map((result) => replayKey(result.clientId, result.jti));
    const used = await client.query('SELECT key FROM used_jti WHERE key = ANY($1::text[])', [keys]);
    const foundTokens = new Set(disclosures.rows.map((row) => row.jti));
    const foundKeys = new Set(used.rows.map((row) => row.key));
    return {
      tokensAnswered: tokens.length,
      disclosureRowsFound: tokens.filter((jti) => foundTokens.has(jti)).length,
      assertionsAnswered: assertions.length,
      jtiRowsFound: keys.filter((key) => foundKeys.has(key)).length,
      rowsMissing: tokens.filter((jti) => !foundTokens.has(jti)).length + keys.filter((key) => !foundKeys.has(key)).length,
    };
  });
}

// A token request from a given source address on the loopback network (127.0.0.0/8 is all this
// machine's on Linux): the replay check sends from an address of its own.
function tokenRequestFrom(instance, body, localAddress) {
  const sent = Date.now();
  const payload = new URLSearchParams(body).toString();
  return new Promise((done) => {
    const request = httpRequest(
      `${instance.url}/oauth2/token`,
      {
        method: 'POST',
        localAddress,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(payload) },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        response.resume();
        response.on('end', () => done({ sent, answered: Date.now(), status: response.statusCode, instance: instance.name }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => done({ sent, answered: Date.now(), status: 0, error: error.message }));
    request.end(payload);
  });
}

// Every assertion that was answered with a token, sent again: none may be accepted. The replays
// come from a source address of their own, not the load's 127.0.0.1: each is a failed client
// authentication, and past 100 in a minute their address is over its limit
// (docs/reference/token-endpoint.md#brute-force-protection); from the load's address, every
// private_key_jwt request of the next failover would be answered 429 until that minute ended.
let replayRound = 0;
export async function replayAssertions(results) {
  replayRound += 1;
  const localAddress = `127.0.0.${1 + replayRound}`;
  const accepted = results.filter((result) => result.status === 200 && result.kind === 'assertion');
  let replayedAccepted = 0;
  let refused = 0;
  let other = 0;
  const replayStatuses = {};
  for (let index = 0; index < accepted.length; index += 8) {
    const answers = await Promise.all(
      accepted
        .slice(index, index + 8)
        .map((result, offset) => tokenRequestFrom(instances[(index + offset) % instances.length], assertionBody(result.assertion), localAddress)),
    );
    for (const answer of answers) {
      replayStatuses[answer.status] = (replayStatuses[answer.status] ?? 0) + 1;
      if (answer.status === 200) replayedAccepted += 1;
      // 401 invalid_client (the jti is used), or 429 once the replays pass the client's failure limit.
      else if (answer.status === 401 || answer.status === 400 || answer.status === 429) refused += 1;
      else other += 1;
    }
  }
  return { replayedAccepted, replaysRefused: refused, replaysOther: other, replayStatuses, replayedFrom: localAddress };
}

// A change made on instance 1 is seen by instance 2's token endpoint (through its caches, which
// the change feed keeps fresh): the probe client is allowed a new scope on instance 1, and instance
// 2 is asked for a token with it until it answers one. Milliseconds from instance 1's answer.
let probeRound = 0;
export async function crossInstanceChange(world) {
  probeRound += 1;
  const scope = `probe-${probeRound}`;
  const changed = await admin(instances[0], 'PATCH', '/admin', [
    { op: 'replace', path: `/uma-client/${world.probeClient.id}`, value: { type: 'uma-client', attributes: { allowedScopes: `read ${scope}` } } },
  ]);
  if (changed.status !== 200) return { crossInstanceMs: undefined, crossInstanceStatus: changed.status };
  const answeredAt = Date.now();
  const seen = [];
  for (let attempt = 0; attempt < 200 && Date.now() - answeredAt < 5_000; attempt += 1) {
    const answer = await tokenRequest(instances[1], { grant_type: 'client_credentials', scope }, { Authorization: world.probeClient.basic });
    seen.push(answer.status);
    if (answer.status === 200) return { crossInstanceMs: answer.answered - answeredAt, crossInstanceStatus: 200, crossInstanceAttempts: summarize(seen) };
    await sleep(20);
  }
  return { crossInstanceMs: undefined, crossInstanceStatus: 'not seen within 5 s', crossInstanceAttempts: summarize(seen) };
}

/** How many times each value occurs, as "value×count value×count". */
export function summarize(values) {
  const counts = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return Object.entries(counts)
    .map(([value, count]) => `${value}×${count}`)
    .join(' ');
}
