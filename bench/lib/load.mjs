// Load generation with autocannon and what a measured run yields: throughput and latency of the
// 2xx answers, and the server's CPU (with its descendants: database, workers) read from /proc.
import autocannon from 'autocannon';
import { startCpuMeasurement } from '../proc-cpu.mjs';
import { config, REQUEST_BODY, TOKEN_PATH } from './settings.mjs';
import { notes } from './processes.mjs';

// Above this, in cores on average, something outside the run skewed the measurement.
const OTHER_LOAD_WARNING_CORES = 0.1;

export function basicAuth(id, secret) {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

export function tokenRequestHeaders(auth) {
  return { 'content-type': 'application/x-www-form-urlencoded', authorization: auth };
}

// One real request before the load: a benchmark of error responses is worthless.
export async function verifyToken(name, baseUrl, auth, alg, body = REQUEST_BODY) {
  const { res, text } = await requestToken(name, baseUrl, auth, body);
  const parts = String(JSON.parse(text).access_token).split('.');
  if (parts.length !== 3) throw new Error(`${name}: access_token is not a JWS compact JWT: ${text.slice(0, 120)}`);
  const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
  if (header.alg !== alg) throw new Error(`${name}: JWT header alg is ${header.alg}, expected ${alg}`);
  if (!/no-store/.test(res.headers.get('cache-control') ?? '')) notes.push(`${name} (${alg}): token response lacks Cache-Control: no-store`);
  return { bodyBytes: Buffer.byteLength(text), header };
}

/** One token request that must be answered 200: the answer and its text. */
export async function requestToken(name, baseUrl, auth, body) {
  const res = await fetch(baseUrl + TOKEN_PATH, { method: 'POST', headers: tokenRequestHeaders(auth), body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${name}: token request returned HTTP ${res.status}: ${text.slice(0, 300)}`);
  return { res, text };
}

/** Verifies a token, then measures the token endpoint of a running server with the usual load. */
export async function benchServer(name, alg, baseUrl, auth, server, body = REQUEST_BODY) {
  const { bodyBytes } = await verifyToken(name, baseUrl, auth, alg, body);
  console.log(`${alg}  measuring ${name} (token response ${bodyBytes} bytes) ...`);
  return { bodyBytes, ...(await measure(name, alg, baseUrl + TOKEN_PATH, auth, body, server.child.pid)) };
}

// Warm-up (JIT, key caches, connection pools) is run and thrown away. `pid`: the server's main
// process, whose CPU (with its descendants: database, workers) is read from /proc around the run.
export async function measure(name, alg, url, auth, body, pid) {
  const fireTokens = (duration) => autocannon({ url, method: 'POST', connections: config.connections, duration, headers: tokenRequestHeaders(auth), body });
  const { r, used } = await timedLoad(pid, fireTokens);
  warnNon2xx(alg, name, r);
  warnErrors(alg, name, r);
  if (used.otherCores > OTHER_LOAD_WARNING_CORES) {
    console.warn(
      `WARNING ${alg} ${name}: something outside the run used ${Math.round(used.otherCores * 100)} % of a core during the measurement: throughput and latency are skewed (CPU per token much less)`,
    );
  }
  return withCpu(r, used);
}

/** `fire(seconds)` for the warm-up (thrown away), then for the measured run with the CPU of `pid` read around it. */
export async function timedLoad(pid, fire) {
  if (config.warmup > 0) await fire(config.warmup);
  const cpu = startCpuMeasurement(pid);
  const r = await fire(config.duration);
  return { r, used: cpu.stop() };
}

export function warnNon2xx(alg, name, r) {
  if (r.non2xx > 0) console.warn(`WARNING ${alg} ${name}: ${r.non2xx} non-2xx responses in the measured run (${JSON.stringify(r.statusCodeStats)})`);
}

export function warnErrors(alg, name, r) {
  if (r.errors > 0 || r.timeouts > 0) console.warn(`WARNING ${alg} ${name}: ${r.errors} errors, ${r.timeouts} timeouts in the measured run`);
}

/** The report's shape of an autocannon run, with the CPU it cost per 2xx answer. */
export function withCpu(r, used) {
  const perResponse = (seconds) => (r['2xx'] > 0 ? (seconds * 1e6) / r['2xx'] : null);
  return {
    ...summarize(r),
    cpu: {
      ...used,
      microsPerResponse: perResponse(used.serverCpuSeconds),
      mainProcessMicrosPerResponse: perResponse(used.mainProcessCpuSeconds),
      mainProcessSystemMicrosPerResponse: perResponse(used.mainProcessSystemSeconds),
    },
  };
}

// requests.average counts every response per second; scale it to 2xx only.
export function summarize(r) {
  const completed = r['2xx'] + r.non2xx;
  const share2xx = completed > 0 ? r['2xx'] / completed : 0;
  return {
    perSecond: r.requests.average * share2xx,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.average },
    responses2xx: r['2xx'],
    non2xx: r.non2xx,
    statusCodes: r.statusCodeStats,
    errors: r.errors,
    timeouts: r.timeouts,
    throughputBytesPerSecond: r.throughput.average,
    durationSeconds: r.duration,
  };
}
