// The load around each failover: resource-scope tokens (each with its disclosure row) and
// private_key_jwt tokens (each with its jti), alternately, each kind on both instances in turn,
// at DRILL_RATE requests per second; and a probe of whether the database takes durable writes.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { instances, withPostgres } from './cluster.mjs';
import { sleep } from './processes.mjs';

// Requests per second, each kind of token half of them.
export const RATE = Number(process.env.DRILL_RATE ?? 40);
export const REQUEST_TIMEOUT_MS = 15_000;

export const basicAuth = (clientId, secret) => `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** A token request's body authenticated by a private_key_jwt client assertion. */
export const assertionBody = (jwt) => ({
  grant_type: 'client_credentials',
  scope: 'read',
  client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
  client_assertion: jwt,
});

function jwtClaims(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

async function clientAssertion(world, issuer) {
  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const jwt = await new SignJWT({ iss: world.keyClient.clientId, sub: world.keyClient.clientId, aud: issuer, iat: now, exp: now + 290, jti })
    .setProtectedHeader({ alg: 'ES256', kid: 'drill-key' })
    .sign(world.keyClient.privateKey);
  return { jwt, jti };
}

export async function tokenRequest(instance, body, headers = {}) {
  const sent = Date.now();
  try {
    const response = await fetch(`${instance.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body).toString(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { sent, answered: Date.now(), status: response.status, json, retryAfter: response.headers.get('retry-after'), instance: instance.name };
  } catch (error) {
    return { sent, answered: Date.now(), status: 0, error: error.name === 'TimeoutError' ? 'timeout' : error.message };
  }
}

export function startLoad(world, issuer) {
  const results = [];
  let stopped = false;
  let sequence = 0;
  const basic = basicAuth(world.resourceClient.clientId, world.resourceClient.secret);
  const one = async () => {
    const index = (sequence += 1);
    // Kinds alternate with each request, instances with each pair: both kinds reach both instances.
    const instance = instances[Math.floor(index / 2) % instances.length];
    if (index % 2 === 0) {
      const result = await tokenRequest(instance, { grant_type: 'client_credentials', scope: world.resourceClient.scope }, { Authorization: basic });
      result.kind = 'resource';
      if (result.status === 200) result.jti = jwtClaims(result.json.access_token).jti;
      results.push(result);
    } else {
      const { jwt, jti } = await clientAssertion(world, issuer);
      const result = await tokenRequest(instance, assertionBody(jwt));
      result.kind = 'assertion';
      result.clientId = world.keyClient.clientId;
      result.jti = jti;
      result.assertion = jwt;
      results.push(result);
    }
  };
  const inFlight = new Set();
  const timer = setInterval(() => {
    if (stopped || inFlight.size > 400) return;
    const promise = one().finally(() => inFlight.delete(promise));
    inFlight.add(promise);
  }, 1000 / RATE);
  return {
    results,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

// Whether the database takes a durable write through HAProxy, every 200 ms: one row inserted (a
// commit that wrote WAL, so in strict synchronous mode it waits for the synchronous standby):
// "writable again" means what the server needs, not merely "a primary answers".
export function startWriteProbe(superuserUrl) {
  const samples = [];
  let stopped = false;
  const loop = (async () => {
    for (let round = 0; !stopped && round < 3_000; round += 1) {
      const at = Date.now();
      let ok = false;
      try {
        const connection = { connectionString: superuserUrl, connectionTimeoutMillis: 1_000, query_timeout: 1_000 };
        await withPostgres(connection, (client) => client.query('INSERT INTO drill_probe (at) VALUES (now())'));
        ok = true;
      } catch {
        // not writable now
      }
      samples.push({ at, ok });
      await sleep(Math.max(0, 200 - (Date.now() - at)));
    }
  })();
  return {
    samples,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

// When the database took durable writes again through HAProxy after the fault (the fault's own
// time when it never stopped taking them).
export function writableAgainAt(samples, faultAt) {
  const after = samples.filter((sample) => sample.at >= faultAt);
  const firstFailure = after.findIndex((sample) => !sample.ok);
  if (firstFailure === -1) return faultAt;
  let lastFailure = firstFailure;
  after.forEach((sample, index) => {
    if (!sample.ok) lastFailure = index;
  });
  return after[lastFailure + 1]?.at;
}

// The start of the last run of successful answers: tokens flow again from then on.
export function flowingAgainAt(results, faultAt) {
  const after = results.filter((result) => result.sent >= faultAt - 2_000).sort((a, b) => a.answered - b.answered);
  let lastFailure;
  for (const result of after) if (result.status !== 200) lastFailure = result;
  if (!lastFailure) return { seconds: 0, failures: false };
  const firstAfter = after.find((result) => result.status === 200 && result.answered > lastFailure.answered);
  return { seconds: firstAfter ? (firstAfter.answered - faultAt) / 1000 : undefined, failures: true };
}
