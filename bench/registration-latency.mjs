// The `register` case (bench/README.md, "Registration latency"): POST /oauth2/register one at a
// time over one kept-alive connection, each timed from sending to the last byte of the answer,
// for a client_secret_basic client (one slow hash and one transaction) and for a private_key_jwt
// client with `jwks` (one transaction). The contract's budget is a p95 of 300 ms.
import { generateKeyPairSync } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';

/** One registration's answer: its status, and the time it took in milliseconds. */
function registerOnce(url, agent, initialAccessToken, body) {
  const text = JSON.stringify(body);
  const headers = { Authorization: `Bearer ${initialAccessToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) };
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: 'POST', agent, headers }, (incoming) => {
      incoming.resume();
      incoming.on('end', () => resolve({ status: incoming.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

/** Registrations of one kind, one at a time, for `seconds`: their count, the non-201 answers and p50/p95/p99/max. */
async function sequentialRegistrations(url, initialAccessToken, seconds, body) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies = [];
  let refused = 0;
  const deadline = Date.now() + seconds * 1000;
  try {
    while (Date.now() < deadline) {
      const { status, ms } = await registerOnce(url, agent, initialAccessToken, body);
      if (status === 201) latencies.push(ms);
      else refused += 1;
    }
  } finally {
    agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { registered: latencies.length, refused, latencyMs: { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: latencies.at(-1) } };
}

/** Both kinds, `seconds` each, after one warm-up registration of each. */
export async function measureRegistrationLatency(baseUrl, initialAccessToken, seconds) {
  const url = `${baseUrl}/oauth2/register`;
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const kinds = {
    client_secret_basic: { client_name: 'Bench registration', token_endpoint_auth_method: 'client_secret_basic', scope: 'read' },
    private_key_jwt: {
      client_name: 'Bench registration',
      token_endpoint_auth_method: 'private_key_jwt',
      scope: 'read',
      jwks: { keys: [{ ...jwk, kid: 'bench-1' }] },
    },
  };
  const results = {};
  for (const [method, body] of Object.entries(kinds)) {
    await registerOnce(url, undefined, initialAccessToken, body);
    results[method] = await sequentialRegistrations(url, initialAccessToken, seconds, body);
  }
  return results;
}
