// Token endpoint benchmark: our server vs panva's oidc-provider vs a bare
// node:http server, one at a time, client credentials grant, JWT access tokens.
// Usage: npm run bench   (see bench/README.md for the knobs)
import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { connectEmbedded, fillBenchTicket, fillDatabase } from './fill-database.mjs';
import { measureProofOfPossession, POP_CLIENT_ID, popClientKey } from './proof-of-possession.mjs';
import { measureRegistrationLatency } from './registration-latency.mjs';
import { startCpuMeasurement } from './proc-cpu.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH_DIR);
const RESULTS_DIR = path.join(BENCH_DIR, 'results');

const config = {
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  algs: (process.env.BENCH_ALGS ?? 'RS256,ES256')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  // Which cases run (names from CASES below, `pop`: private_key_jwt + DPoP, ours and oidc-provider, and
  // `introspection`: a data source's client introspecting resource-scope tokens, ours and oidc-provider).
  servers: (
    process.env.BENCH_SERVERS ??
    'ours,nostatus,statuslist,flood,key-flood,register-flood,register,tickets,disclosures,workers2,oidc-provider,bare,pop,introspection'
  )
    .split(',')
    .map((s) => s.trim()),
};

const CLIENT_ID = 'bench-client';
const TOKEN_PATH = '/oauth2/token';
const DISCOVERY_PATH = '/.well-known/oauth-authorization-server';
const REQUEST_BODY = 'grant_type=client_credentials&scope=read';
// The consent-ticket case (issue 4): a resource scope covered by a ticket, in a database holding
// 10,000 other clients and 100,000 ticket records.
const RESOURCE_SCOPE = 'blood-glucose-level:read';
const TICKET_REQUEST_BODY = `grant_type=client_credentials&scope=${encodeURIComponent(RESOURCE_SCOPE)}`;
// Used for the bare peer when our server was not run in the same alg round.
const DEFAULT_BODY_BYTES = 900;

// ---------------------------------------------------------------------------
// Child processes and temp dirs, all tracked so that every exit path cleans up.

const live = new Set(); // { name, child, exited: Promise<{code, signal}> }
const tempDirs = new Set();
const notes = []; // odd things seen along the way, printed at the end

// A server that did not come up: `detail` holds the tail of its output.
class StartError extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

// Each child gets its own process group (detached) so that whatever it spawns
// (the embedded PostgreSQL) can be reaped with it, and Ctrl-C reaches only us.
function startChild(name, args, env, logFile) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = { name, child, tail: [], stdout: '', logFile };
  proc.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  proc.exited.then(() => live.delete(proc));
  child.once('error', (err) => proc.tail.push(`spawn error: ${err.message}`));
  captureOutput(proc);
  live.add(proc);
  return proc;
}

// Keeps a full log on disk (bench/results/*.log), the stdout text in memory
// (the CLI prints its JSON there) and the last lines for error messages.
function captureOutput(proc) {
  const log = createWriteStream(proc.logFile);
  const onData = (stream) => (chunk) => {
    const text = chunk.toString();
    log.write(text);
    if (stream === 'stdout') proc.stdout += text;
    proc.tail.push(...text.split('\n').filter(Boolean));
    proc.tail.splice(0, Math.max(0, proc.tail.length - 15));
  };
  proc.child.stdout.on('data', onData('stdout'));
  proc.child.stderr.on('data', onData('stderr'));
  proc.exited.then(() => log.end());
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

// Polite stop: SIGTERM to the main process only (it must stop its own
// database), then SIGKILL to the whole group if it hangs or leaves anything.
async function stopChild(proc, timeoutMs = 20_000) {
  const { pid } = proc.child;
  if (live.has(proc)) {
    proc.child.kill('SIGTERM');
    const done = await Promise.race([proc.exited, sleep(timeoutMs).then(() => null)]);
    if (!done) notes.push(`${proc.name}: did not exit within ${timeoutMs / 1000} s of SIGTERM, killed`);
  }
  await reapGroup(proc.name, pid);
}

async function reapGroup(name, pid) {
  for (let i = 0; i < 20 && groupAlive(pid); i++) await sleep(100);
  if (!groupAlive(pid)) return;
  notes.push(`${name}: processes of its group still running after it exited (killed)`);
  killGroup(pid, 'SIGKILL');
}

let cleaningUp = null;
function cleanup() {
  cleaningUp ??= (async () => {
    await Promise.all([...live].map((proc) => stopChild(proc, 5_000)));
    for (const dir of tempDirs) removeDataDir(dir);
  })();
  return cleaningUp;
}

// A PostgreSQL whose server died without stopping it would keep its data dir
// busy: find its postmaster.pid and stop it before removing the directory.
function removeDataDir(dir) {
  for (const pidFile of findFiles(dir, 'postmaster.pid', 4)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid > 0 && processAlive(pid)) {
      notes.push(`PostgreSQL (pid ${pid}) still running in ${dir} after the server stopped (killed)`);
      process.kill(pid, 'SIGKILL');
    }
  }
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

function findFiles(dir, name, depth) {
  if (depth < 0 || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findFiles(full, name, depth - 1);
    return entry.name === name ? [full] : [];
  });
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Last resort if we exit without awaiting cleanup(): synchronous, no waiting.
process.on('exit', () => {
  for (const proc of live) killGroup(proc.child.pid, 'SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    console.error(`\nbench: ${signal} received, stopping child processes`);
    await cleanup();
    process.exit(130);
  });
}

// ---------------------------------------------------------------------------
// Small helpers.

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// The embedded PostgreSQL runs as user postgres: its dir must be reachable.
function makeDataDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oauth-bench-'));
  chmodSync(dir, 0o755);
  tempDirs.add(dir);
  return dir;
}

function logPath(name, alg) {
  return path.join(RESULTS_DIR, `${name}-${alg}.log`);
}

function failStart(proc, reason) {
  const tail = proc.tail.map((line) => `  | ${line}`).join('\n');
  const log = path.relative(ROOT, proc.logFile);
  return new StartError(`${proc.name} did not start: ${reason} (full output in ${log})`, `last output of ${proc.name}:\n${tail}`);
}

// Poll until the server answers `ok(status)`; fail early if it exits.
async function waitReady(proc, url, timeoutMs, ok = (status) => status === 200) {
  const deadline = Date.now() + timeoutMs;
  let exit = null;
  proc.exited.then((e) => {
    exit = e;
  });
  while (Date.now() < deadline) {
    if (exit) throw failStart(proc, `exited early (code ${exit.code}, signal ${exit.signal})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (ok(res.status)) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw failStart(proc, `no ready answer from ${url} within ${timeoutMs / 1000} s`);
}

function basicAuth(id, secret) {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

function tokenRequestHeaders(auth) {
  return { 'content-type': 'application/x-www-form-urlencoded', authorization: auth };
}

// One real request before the load: a benchmark of error responses is worthless.
async function verifyToken(name, baseUrl, auth, alg, body = REQUEST_BODY) {
  const res = await fetch(baseUrl + TOKEN_PATH, { method: 'POST', headers: tokenRequestHeaders(auth), body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${name}: token request returned HTTP ${res.status}: ${text.slice(0, 300)}`);
  const parts = String(JSON.parse(text).access_token).split('.');
  if (parts.length !== 3) throw new Error(`${name}: access_token is not a JWS compact JWT: ${text.slice(0, 120)}`);
  const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
  if (header.alg !== alg) throw new Error(`${name}: JWT header alg is ${header.alg}, expected ${alg}`);
  if (!/no-store/.test(res.headers.get('cache-control') ?? '')) notes.push(`${name} (${alg}): token response lacks Cache-Control: no-store`);
  return { bodyBytes: Buffer.byteLength(text), header };
}

// ---------------------------------------------------------------------------
// Load generation.

function fire(url, auth, duration, body = REQUEST_BODY) {
  return autocannon({
    url,
    method: 'POST',
    connections: config.connections,
    duration,
    headers: tokenRequestHeaders(auth),
    body,
  });
}

// Above this, in cores on average, something outside the run skewed the measurement.
const OTHER_LOAD_WARNING_CORES = 0.1;

// Warm-up (JIT, key caches, connection pools) is run and thrown away. `pid`: the server's main
// process, whose CPU (with its descendants: database, workers) is read from /proc around the run.
async function measure(name, alg, url, auth, body, pid) {
  if (config.warmup > 0) await fire(url, auth, config.warmup, body);
  const cpu = startCpuMeasurement(pid);
  const r = await fire(url, auth, config.duration, body);
  const used = cpu.stop();
  if (r.non2xx > 0) console.warn(`WARNING ${alg} ${name}: ${r.non2xx} non-2xx responses in the measured run (${JSON.stringify(r.statusCodeStats)})`);
  if (r.errors > 0 || r.timeouts > 0) console.warn(`WARNING ${alg} ${name}: ${r.errors} errors, ${r.timeouts} timeouts in the measured run`);
  if (used.otherCores > OTHER_LOAD_WARNING_CORES) {
    console.warn(
      `WARNING ${alg} ${name}: something outside the run used ${Math.round(used.otherCores * 100)} % of a core during the measurement: throughput and latency are skewed (CPU per token much less)`,
    );
  }
  const perResponse = (seconds) => (r['2xx'] > 0 ? (seconds * 1e6) / r['2xx'] : null);
  return {
    ...summarize(r),
    cpu: { ...used, microsPerResponse: perResponse(used.serverCpuSeconds), mainProcessMicrosPerResponse: perResponse(used.mainProcessCpuSeconds) },
  };
}

// requests.average counts every response per second; scale it to 2xx only.
function summarize(r) {
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

// ---------------------------------------------------------------------------
// The servers.

/**
 * Our server on a fresh embedded database: `env` is added to its environment, `prepare(dataDir)`
 * runs once it is up (to seed data), then `body` is measured.
 */
async function runOurs(
  alg,
  { name = 'ours', logName = 'ours', env: extraEnv = {}, setup, prepare, body = REQUEST_BODY, alongside, measureWith, extraClients = [] } = {},
) {
  let [port, adminPort] = [await freePort(), await freePort()];
  // Two probes in a row may get the same port back; the server refuses PORT = ADMIN_PORT.
  while (adminPort === port) adminPort = await freePort();
  const dataDir = makeDataDir();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), ADMIN_PORT: String(adminPort), DATA_DIR: dataDir, TOKEN_SIGNING_ALG: alg, ISSUER: baseUrl, ...extraEnv };
  try {
    const secret = await createClient(alg, env, logName);
    // `extraClients`: more clients made the same way before the start; their secrets go to `prepare` and `measureWith`.
    const secrets = {};
    for (const extra of extraClients) secrets[extra.clientId] = await createClient(alg, env, `${logName}-${extra.clientId}`, extra);
    // `setup(env, logName)`: more CLI work before the server starts; what it answers goes to `measureWith`.
    const prepared = setup ? await setup(alg, env, logName) : undefined;
    // BENCH_CPU_PROFILE=1: a V8 CPU profile of our server (start-up and warm-up included) per case.
    const profile = process.env.BENCH_CPU_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${path.join(RESULTS_DIR, 'profiles')}`, `--cpu-prof-name=${logName}-${alg}.cpuprofile`]
      : [];
    const server = startChild(`our server (${name})`, [...profile, 'dist/src/main.js'], env, logPath(logName, alg));
    try {
      await waitReady(server, baseUrl + DISCOVERY_PATH, 120_000);
      if (prepare) await prepare(dataDir, secrets);
      // `alongside(baseUrl)`: other load during the measurement; it returns the function that stops it.
      // It starts once the bench client has a token (its secret verified, as a working client's is).
      if (alongside) await verifyToken(name, baseUrl, basicAuth(CLIENT_ID, secret), alg, body);
      const stopAlongside = alongside?.(baseUrl);
      try {
        // `measureWith`: a case that measures in its own way instead of the usual load.
        if (measureWith) return await measureWith(name, alg, baseUrl, basicAuth(CLIENT_ID, secret), server, secrets, prepared);
        return await benchServer(name, alg, baseUrl, basicAuth(CLIENT_ID, secret), server, body);
      } finally {
        await stopAlongside?.();
      }
    } finally {
      await stopChild(server);
      scanServerLog(server, alg);
    }
  } finally {
    removeDataDir(dataDir);
  }
}

async function createClient(alg, env, logName, { clientId = CLIENT_ID, scopes = `uma_protection read ${RESOURCE_SCOPE}` } = {}) {
  const args = ['client', 'create', '--client-id', clientId, '--name', 'Bench', '--scopes', scopes, '--json'];
  return (await cliJson(args, 'client_secret', alg, env, `${logName}-cli`)).client_secret;
}

/** Runs our CLI (`args` after dist/src/cli.js) on the case's database; answers the JSON line it printed holding `member`. */
async function cliJson(args, member, alg, env, logName) {
  const what = args.slice(0, 2).join(' ');
  const cli = startChild(`our CLI (${what})`, ['dist/src/cli.js', ...args], env, logPath(logName, alg));
  const exit = await Promise.race([cli.exited, sleep(120_000).then(() => null)]);
  if (!exit) throw failStart(cli, `${what} did not finish within 120 s`);
  // The CLI may leave its database running; anything left in its group goes.
  await reapGroup(cli.name, cli.child.pid);
  if (exit.code !== 0) throw failStart(cli, `${what} exited with code ${exit.code}`);
  const line = cli.stdout
    .split('\n')
    .reverse()
    .find((l) => l.trim().startsWith('{') && l.includes(`"${member}"`));
  if (!line) throw failStart(cli, `${what} printed no JSON line with "${member}"`);
  return JSON.parse(line);
}

// Lines of our server's output that look like trouble go into the notes.
function scanServerLog(proc, alg) {
  const text = existsSync(proc.logFile) ? readFileSync(proc.logFile, 'utf8') : '';
  // Strip colour codes (Nest colours its logs even into a pipe).
  // eslint-disable-next-line no-control-regex -- ESC (\x1b) opens every colour code; matching it is the point.
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const bad = lines.filter((l) => /error|exception|warn|unhandled/i.test(l));
  if (bad.length > 0) notes.push(`our server (${alg}): ${bad.length} error/warning lines in its output, first: ${bad[0].trim().slice(0, 200)}`);
}

async function runOidcProvider(alg) {
  const port = await freePort();
  const secret = 'bench-secret-' + Math.random().toString(36).slice(2);
  const env = { PORT: String(port), TOKEN_SIGNING_ALG: alg, CLIENT_ID, CLIENT_SECRET: secret };
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = startChild('oidc-provider', ['bench/oidc-provider-peer.mjs'], env, logPath('oidc-provider', alg));
  try {
    await waitReady(server, baseUrl + DISCOVERY_PATH, 30_000);
    return await benchServer('oidc-provider', alg, baseUrl, basicAuth(CLIENT_ID, secret), server);
  } finally {
    await stopChild(server);
  }
}

// ---------------------------------------------------------------------------
// Introspection (docs/guides/resource-servers.md#by-introspection): the data source's client
// (allowed uma_protection, the data source's umaClient) introspects resource-scope tokens of the
// bench client at POST /oauth2/introspect, as a resource server that introspects every request
// does. oidc-provider in the same run does the same with its introspection feature; it refuses to
// introspect JWTs, so its tokens there are opaque (looked up in its in-memory store).

const INTROSPECTION_PATH = '/oauth2/introspect';
const INTROSPECTION_CLIENT_ID = 'bench-rs';
// Distinct tokens, cycled through by every connection (no answer is reused for the same token).
const INTROSPECTED_TOKENS = 200;

async function issueTokens(name, baseUrl, auth, body, count) {
  const tokens = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(baseUrl + TOKEN_PATH, { method: 'POST', headers: tokenRequestHeaders(auth), body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${name}: token request returned HTTP ${res.status}: ${text.slice(0, 300)}`);
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
  if (config.warmup > 0) await fireIntrospection(config.warmup);
  const cpu = startCpuMeasurement(server.child.pid);
  const r = await fireIntrospection(config.duration);
  const used = cpu.stop();
  if (r.non2xx > 0) console.warn(`WARNING ${alg} ${name}: ${r.non2xx} non-2xx responses in the measured run (${JSON.stringify(r.statusCodeStats)})`);
  if (r.errors > 0 || r.timeouts > 0) console.warn(`WARNING ${alg} ${name}: ${r.errors} errors, ${r.timeouts} timeouts in the measured run`);
  const perResponse = (seconds) => (r['2xx'] > 0 ? (seconds * 1e6) / r['2xx'] : null);
  return {
    bodyBytes,
    ...summarize(r),
    cpu: { ...used, microsPerResponse: perResponse(used.serverCpuSeconds), mainProcessMicrosPerResponse: perResponse(used.mainProcessCpuSeconds) },
  };
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

async function runOursIntrospection(alg) {
  const name = 'ours, introspection of resource-scope tokens';
  return runOurs(alg, {
    name,
    logName: 'ours-introspection',
    extraClients: [{ clientId: INTROSPECTION_CLIENT_ID, scopes: 'uma_protection' }],
    prepare: seedIntrospection,
    measureWith: async (_name, _alg, baseUrl, auth, server, secrets) => {
      const tokens = await issueTokens(name, baseUrl, auth, TICKET_REQUEST_BODY, INTROSPECTED_TOKENS);
      return benchIntrospection(name, alg, baseUrl, tokens, basicAuth(INTROSPECTION_CLIENT_ID, secrets[INTROSPECTION_CLIENT_ID]), server);
    },
  });
}

async function runOidcProviderIntrospection(alg) {
  const name = 'oidc-provider, introspection of opaque tokens';
  const port = await freePort();
  const secret = 'bench-secret-' + Math.random().toString(36).slice(2);
  const rsSecret = 'bench-rs-secret-' + Math.random().toString(36).slice(2);
  const env = {
    PORT: String(port),
    TOKEN_SIGNING_ALG: alg,
    CLIENT_ID,
    CLIENT_SECRET: secret,
    INTROSPECTION_CLIENT_ID,
    INTROSPECTION_CLIENT_SECRET: rsSecret,
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = startChild('oidc-provider (introspection)', ['bench/oidc-provider-peer.mjs'], env, logPath('oidc-provider-introspection', alg));
  try {
    await waitReady(server, baseUrl + DISCOVERY_PATH, 30_000);
    const tokens = await issueTokens(name, baseUrl, basicAuth(CLIENT_ID, secret), REQUEST_BODY, INTROSPECTED_TOKENS);
    return await benchIntrospection(name, alg, baseUrl, tokens, basicAuth(INTROSPECTION_CLIENT_ID, rsSecret), server);
  } finally {
    await stopChild(server);
  }
}

async function runIntrospection(alg) {
  const oursIntrospection = await runOursIntrospection(alg);
  const oidcProviderIntrospection = await runOidcProviderIntrospection(alg);
  return { oursIntrospection, oidcProviderIntrospection };
}

async function runBare(alg, bodyBytes) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), BODY_BYTES: String(bodyBytes) };
  const server = startChild('bare node:http', ['bench/bare-http-peer.mjs'], env, logPath('bare-http', alg));
  try {
    // The bare peer only answers POST; any HTTP answer means it is up.
    await waitReady(server, baseUrl + TOKEN_PATH, 30_000, () => true);
    const auth = basicAuth(CLIENT_ID, 'unused');
    console.log(`${alg}  measuring bare node:http (${bodyBytes} byte body) ...`);
    return { bodyBytes, ...(await measure('bare node:http', alg, baseUrl + TOKEN_PATH, auth, REQUEST_BODY, server.child.pid)) };
  } finally {
    await stopChild(server);
  }
}

/**
 * The status list endpoint (docs/reference/status-lists.md): GET of the list a token names, as a
 * resource server asks for it (Accept, gzip), answered from the in-memory cache.
 */
async function benchStatusList(name, alg, baseUrl, auth, server) {
  const res = await fetch(baseUrl + TOKEN_PATH, { method: 'POST', headers: tokenRequestHeaders(auth), body: REQUEST_BODY });
  const claims = JSON.parse(Buffer.from(String((await res.json()).access_token).split('.')[1], 'base64url').toString());
  const uri = claims.status?.status_list?.uri;
  if (typeof uri !== 'string') throw new Error(`${name}: the token has no status claim`);
  const headers = { accept: 'application/statuslist+jwt', 'accept-encoding': 'gzip' };
  const check = await fetch(uri, { headers });
  if (check.status !== 200) throw new Error(`${name}: GET ${uri} returned HTTP ${check.status}`);
  const bodyBytes = Buffer.byteLength(await check.text());
  console.log(`${alg}  measuring ${name} (list token ${bodyBytes} bytes) ...`);
  const fireList = (duration) => autocannon({ url: uri, method: 'GET', connections: config.connections, duration, headers });
  if (config.warmup > 0) await fireList(config.warmup);
  const cpu = startCpuMeasurement(server.child.pid);
  const r = await fireList(config.duration);
  const used = cpu.stop();
  if (r.non2xx > 0) console.warn(`WARNING ${alg} ${name}: ${r.non2xx} non-2xx responses in the measured run (${JSON.stringify(r.statusCodeStats)})`);
  const perResponse = (seconds) => (r['2xx'] > 0 ? (seconds * 1e6) / r['2xx'] : null);
  return {
    bodyBytes,
    ...summarize(r),
    cpu: { ...used, microsPerResponse: perResponse(used.serverCpuSeconds), mainProcessMicrosPerResponse: perResponse(used.mainProcessCpuSeconds) },
  };
}

async function benchServer(name, alg, baseUrl, auth, server, body = REQUEST_BODY) {
  const { bodyBytes } = await verifyToken(name, baseUrl, auth, alg, body);
  console.log(`${alg}  measuring ${name} (token response ${bodyBytes} bytes) ...`);
  return { bodyBytes, ...(await measure(name, alg, baseUrl + TOKEN_PATH, auth, body, server.child.pid)) };
}

/**
 * The cases, in the order they run for each alg (one at a time, never together). `name` is what
 * BENCH_SERVERS selects, `key` names the result in latest.json, `label` the report row, `unit`
 * what the row counts. `run(alg, results)` sees the results of the cases before it. Add a case
 * here to measure another configuration.
 */
const CASES = [
  { name: 'ours', key: 'ours', label: 'ours', unit: 'tok/s', run: (alg) => runOurs(alg) },
  // The same without token status lists (STATUS_LIST=false): the claim's cost is the difference (docs/reference/status-lists.md).
  {
    name: 'nostatus',
    key: 'oursNoStatus',
    label: 'ours, no status',
    unit: 'tok/s',
    run: (alg) => runOurs(alg, { name: 'ours, STATUS_LIST=false', logName: 'ours-nostatus', env: { STATUS_LIST: 'false' } }),
  },
  // GET of a status list token from the cache, gzip-compressed, as resource servers fetch it.
  {
    name: 'statuslist',
    key: 'oursStatusList',
    label: 'status list GET',
    unit: 'req/s',
    run: (alg) =>
      runOurs(alg, {
        name: 'ours, GET /oauth2/status/{id}',
        logName: 'ours-statuslist',
        measureWith: (_name, _alg, baseUrl, auth, server) => benchStatusList('ours, GET /oauth2/status/{id}', alg, baseUrl, auth, server),
      }),
  },
  {
    name: 'tickets',
    key: 'oursTickets',
    label: 'ours, tickets',
    unit: 'tok/s',
    run: (alg) =>
      runOurs(alg, { name: 'ours, resource scope + 100k ticket records', logName: 'ours-tickets', prepare: seedTickets, body: TICKET_REQUEST_BODY }),
  },
  // Every token of this case commits its disclosure row (docs/guides/consent-withdrawal.md) before it is answered.
  {
    name: 'disclosures',
    key: 'oursDisclosures',
    label: 'ours, disclosure',
    unit: 'tok/s',
    run: (alg) =>
      runOurs(alg, { name: 'ours, resource scope with its disclosure row', logName: 'ours-disclosures', prepare: seedBenchTicket, body: TICKET_REQUEST_BODY }),
  },
  // Mutual TLS on (docs/guides/mtls.md, behind a proxy's certificate header): the secret client's
  // token path must not pay for it. `proxy` is the same server behind the same trusted proxy
  // without mutual TLS (TRUST_PROXY alone costs something per request): compare `mtls` with it.
  {
    name: 'proxy',
    key: 'oursProxy',
    label: 'ours, TRUST_PROXY',
    unit: 'tok/s',
    run: (alg) => runOurs(alg, { name: 'ours, TRUST_PROXY=loopback', logName: 'ours-proxy', env: { TRUST_PROXY: 'loopback' } }),
  },
  {
    name: 'mtls',
    key: 'oursMtls',
    label: 'ours, MTLS=true',
    unit: 'tok/s',
    run: (alg) =>
      runOurs(alg, {
        name: 'ours, MTLS=true (secret client)',
        logName: 'ours-mtls',
        env: { MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'ssl-client-cert', TRUST_PROXY: 'loopback' },
      }),
  },
  // WORKERS (docs/reference/configuration.md) forks workers sharing the port; CPU per token then counts them all.
  {
    name: 'workers2',
    key: 'oursWorkers2',
    label: 'ours, WORKERS=2',
    unit: 'tok/s',
    run: (alg) => runOurs(alg, { name: 'ours, WORKERS=2', logName: 'ours-workers2', env: { WORKERS: '2' } }),
  },
  // A known client's tokens while 24 connections send wrong secrets for unknown client ids from 40
  // addresses, each under its limit (docs/operations/security.md): the slow hashes are bounded, so
  // the flood must not starve the known client, whose secret is verified once and then cached.
  {
    name: 'flood',
    key: 'oursFlood',
    label: 'ours, flood',
    unit: 'tok/s',
    run: (alg) =>
      runOurs(alg, {
        name: 'ours, known client during a wrong-secret flood',
        logName: 'ours-flood',
        env: { TRUST_PROXY: 'loopback' },
        alongside: floodWrongSecrets,
      }),
  },
  // A known client's median latency (one request at a time) while another connection floods DPoP
  // proofs whose keys would be costly to verify with (docs/operations/security.md#bounded-key-cost),
  // against its calm median: the contract wants at most 10x.
  {
    name: 'key-flood',
    key: 'oursKeyFlood',
    label: 'ours, key flood',
    unit: 'tok/s',
    run: (alg) => runOurs(alg, { name: 'ours, known client during an oversized-key DPoP flood', logName: 'ours-key-flood', measureWith: measureKeyFlood }),
  },
  // The same measure while POST /oauth2/register is flooded (docs/guides/dynamic-registration.md):
  // registrations with a valid initial access token (one transaction and one bounded slow hash
  // each) and with unknown ones (failures counted per address), from 40 addresses.
  {
    name: 'register-flood',
    key: 'oursRegisterFlood',
    label: 'ours, reg. flood',
    unit: 'tok/s',
    run: (alg) =>
      runOurs(alg, {
        name: 'ours, known client during a registration flood',
        logName: 'ours-register-flood',
        env: { TRUST_PROXY: 'loopback' },
        setup: createFloodInitialAccessToken,
        measureWith: measureRegistrationFlood,
      }),
  },
  // POST /oauth2/register one at a time (bench/registration-latency.mjs): the contract's p95 of 300 ms.
  {
    name: 'register',
    key: 'oursRegister',
    label: 'ours, register',
    unit: 'reg/s',
    run: (alg) =>
      runOurs(alg, {
        name: 'ours, registrations one at a time',
        logName: 'ours-register',
        setup: createFloodInitialAccessToken,
        measureWith: measureRegistrations,
      }),
  },
  { name: 'oidc-provider', key: 'oidcProvider', label: 'oidc-provider', unit: 'tok/s', run: (alg) => runOidcProvider(alg) },
  // Same body size as our real token response for this alg, so bytes on the wire match.
  { name: 'bare', key: 'bare', label: 'bare node:http', unit: 'req/s', run: (alg, results) => runBare(alg, results.ours?.bodyBytes ?? DEFAULT_BODY_BYTES) },
];

const FLOOD_CONNECTIONS = 24;
const FLOOD_ADDRESSES = 40;

/** Starts bench/wrong-secret-flood.mjs against our server; the returned function stops it and notes its answers. */
function floodWrongSecrets(baseUrl) {
  const env = { FLOOD_URL: baseUrl + TOKEN_PATH, FLOOD_CONNECTIONS: String(FLOOD_CONNECTIONS), FLOOD_ADDRESSES: String(FLOOD_ADDRESSES) };
  const flood = startChild('wrong-secret flood', ['bench/wrong-secret-flood.mjs'], env, logPath('wrong-secret-flood', 'any'));
  return async () => {
    flood.child.kill('SIGTERM');
    await Promise.race([flood.exited, sleep(10_000)]);
    await reapGroup(flood.name, flood.child.pid);
    const line = flood.stdout.trim().split('\n').pop();
    notes.push(`wrong-secret flood (${FLOOD_CONNECTIONS} connections, ${FLOOD_ADDRESSES} addresses): ${line || 'no summary'}`);
  };
}

const KEY_FLOOD_CONNECTIONS = Number(process.env.BENCH_KEY_FLOOD_CONNECTIONS ?? 1);

/**
 * The known client's token requests one at a time for `seconds`, over one kept-alive connection,
 * each timed from sending to the last byte of the answer: the median of single requests is what
 * a flood must not multiply (autocannon's whole-millisecond latencies are too coarse for it).
 */
async function sequentialLatencies(url, auth, seconds) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { ...tokenRequestHeaders(auth), 'content-length': Buffer.byteLength(REQUEST_BODY) };
  const latencies = [];
  let non2xx = 0;
  const deadline = Date.now() + seconds * 1000;
  try {
    while (Date.now() < deadline) {
      const started = process.hrtime.bigint();
      const status = await new Promise((resolve, reject) => {
        const outgoing = httpRequest(url, { method: 'POST', agent, headers }, (incoming) => {
          incoming.resume();
          incoming.on('end', () => resolve(incoming.statusCode));
          incoming.on('error', reject);
        });
        outgoing.on('error', reject);
        outgoing.end(REQUEST_BODY);
      });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (status < 200 || status > 299) non2xx += 1;
    }
  } finally {
    agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    requests: latencies.length,
    non2xx,
    perSecond: (latencies.length - non2xx) / seconds,
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies.at(-1), mean: latencies.reduce((a, b) => a + b, 0) / latencies.length },
  };
}

/** The `key-flood` case: calm median, then the median while bench/oversized-key-flood.mjs runs. */
function measureKeyFlood(name, alg, baseUrl, auth, server) {
  return measureBesideFlood(name, alg, baseUrl, auth, server, {
    what: 'oversized-key DPoP flood',
    script: 'bench/oversized-key-flood.mjs',
    connections: KEY_FLOOD_CONNECTIONS,
    env: { FLOOD_URL: baseUrl + TOKEN_PATH, FLOOD_CLIENT_ID: CLIENT_ID },
  });
}

const REGISTER_FLOOD_CONNECTIONS = Number(process.env.BENCH_REGISTER_FLOOD_CONNECTIONS ?? 24);
const REGISTER_FLOOD_VALID_SHARE = Number(process.env.BENCH_REGISTER_FLOOD_VALID_SHARE ?? 0.5);

/** An initial access token for the registration flood, made with the CLI before the server starts: 100,000 uses of scope `read`. */
async function createFloodInitialAccessToken(alg, env, logName) {
  const args = ['initial-access-token', 'create', '--name', 'Bench flood', '--scopes', 'read', '--max-uses', '100000', '--expires-in', '86400', '--json'];
  return (await cliJson(args, 'token', alg, env, `${logName}-iat`)).token;
}

/** The `register` case: secret and key registrations one at a time, BENCH_DURATION seconds each; the table shows the secret ones. */
async function measureRegistrations(name, alg, baseUrl, _auth, server, _secrets, initialAccessToken) {
  console.log(`${alg}  measuring ${name}: client_secret_basic, then private_key_jwt ...`);
  const cpu = startCpuMeasurement(server.child.pid);
  const kinds = await measureRegistrationLatency(baseUrl, initialAccessToken, config.duration);
  const used = cpu.stop();
  const secret = kinds.client_secret_basic;
  return {
    bodyBytes: 0,
    requests: secret.registered + secret.refused,
    non2xx: secret.refused,
    perSecond: secret.registered / config.duration,
    latencyMs: secret.latencyMs,
    kinds,
    cpu: { ...used, microsPerResponse: null },
  };
}

/** The `register-flood` case: calm median, then the median while bench/registration-flood.mjs runs. */
function measureRegistrationFlood(name, alg, baseUrl, auth, server, _secrets, initialAccessToken) {
  return measureBesideFlood(name, alg, baseUrl, auth, server, {
    what: `registration flood (${Math.round(REGISTER_FLOOD_VALID_SHARE * 100)} % with a valid initial access token, ${FLOOD_ADDRESSES} addresses)`,
    script: 'bench/registration-flood.mjs',
    connections: REGISTER_FLOOD_CONNECTIONS,
    env: {
      FLOOD_URL: `${baseUrl}/oauth2/register`,
      FLOOD_IAT: initialAccessToken,
      FLOOD_VALID_SHARE: String(REGISTER_FLOOD_VALID_SHARE),
      FLOOD_ADDRESSES: String(FLOOD_ADDRESSES),
    },
  });
}

/**
 * The known client's token requests one at a time, calm for BENCH_DURATION seconds, then as long
 * again while `flood.script` (a process of its own, `flood.connections` connections) floods the
 * server: both medians, the flood's summary line and roughly the server's CPU per flooding request.
 */
async function measureBesideFlood(name, alg, baseUrl, auth, server, flood) {
  const { bodyBytes } = await verifyToken(name, baseUrl, auth, alg);
  const url = baseUrl + TOKEN_PATH;
  console.log(`${alg}  measuring ${name}: calm, then beside ${flood.connections} flooding connection(s) ...`);
  if (config.warmup > 0) await sequentialLatencies(url, auth, config.warmup);
  const calmCpu = startCpuMeasurement(server.child.pid);
  const calm = await sequentialLatencies(url, auth, config.duration);
  const calmUsed = calmCpu.stop();
  const env = { ...flood.env, FLOOD_CONNECTIONS: String(flood.connections) };
  const attacker = startChild(flood.what, [flood.script], env, logPath(path.basename(flood.script, '.mjs'), alg));
  let duringFlood;
  let used;
  try {
    // The flood's first second (its start-up) is not measured.
    await sleep(1_000);
    const cpu = startCpuMeasurement(server.child.pid);
    duringFlood = await sequentialLatencies(url, auth, config.duration);
    used = cpu.stop();
  } finally {
    attacker.child.kill('SIGTERM');
    await Promise.race([attacker.exited, sleep(10_000)]);
    await reapGroup(attacker.name, attacker.child.pid);
  }
  const line = attacker.stdout.trim().split('\n').pop();
  notes.push(`${flood.what} (${alg}, ${flood.connections} connection(s)): ${line || 'no summary'}`);
  for (const [phase, r] of [
    ['calm', calm],
    ['during the flood', duringFlood],
  ]) {
    if (r.non2xx > 0) console.warn(`WARNING ${alg} ${name}: ${r.non2xx} non-2xx answers to the known client ${phase}`);
  }
  let floodSummary = null;
  try {
    floodSummary = JSON.parse(line);
  } catch {
    // No summary: noted above.
  }
  // The server's CPU for one flooding request, roughly: its CPU during the flood, less what the
  // known client's requests of that window cost at the calm rate, over the flood's requests.
  const perKnownRequest = calmUsed.serverCpuSeconds / Math.max(1, calm.requests);
  const floodRequests = (floodSummary?.perSecond ?? 0) * config.duration;
  const microsPerFloodRequest = floodRequests > 0 ? ((used.serverCpuSeconds - duringFlood.requests * perKnownRequest) * 1e6) / floodRequests : null;
  return {
    bodyBytes,
    ...duringFlood,
    calm: { ...calm, cpu: calmUsed },
    flood: floodSummary ? { ...floodSummary, microsPerFloodRequest } : null,
    cpu: { ...used, microsPerResponse: null },
  };
}

// Fills our embedded database through plain SQL (bench/fill-database.mjs, shared with the console
// benchmark): 10,000 clients, 100,000 ticket records, 1,000 data sources, and a ticket for the
// bench client covering RESOURCE_SCOPE with a data source serving it (the token's aud).
async function seedTickets(dataDir) {
  const db = await connectEmbedded(dataDir);
  try {
    await fillDatabase(db, { scope: RESOURCE_SCOPE, benchClientId: CLIENT_ID });
  } finally {
    await db.end();
  }
}

// The disclosures case: only the bench client's ticket and its data source, so the figure is
// what a resource-scope token costs (its decision and its durable disclosure row), not the seeding.
async function seedBenchTicket(dataDir) {
  const db = await connectEmbedded(dataDir);
  try {
    await fillBenchTicket(db, { benchClientId: CLIENT_ID });
  } finally {
    await db.end();
  }
}

// ---------------------------------------------------------------------------
// Proof of possession (issue 12): private_key_jwt + DPoP on every request, ours against
// oidc-provider configured for the same. The signing and load live in proof-of-possession.mjs.

const POP_SCOPE = 'read';

async function runOursProofOfPossession(alg, key) {
  let [port, adminPort] = [await freePort(), await freePort()];
  while (adminPort === port) adminPort = await freePort();
  const dataDir = makeDataDir();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), ADMIN_PORT: String(adminPort), DATA_DIR: dataDir, TOKEN_SIGNING_ALG: alg, ISSUER: baseUrl };
  try {
    const jwksFile = path.join(dataDir, 'bench-client-jwks.json');
    writeFileSync(jwksFile, JSON.stringify(key.jwks));
    const args = [
      'dist/src/cli.js',
      'client',
      'create',
      '--client-id',
      POP_CLIENT_ID,
      '--name',
      'Bench PoP',
      '--scopes',
      POP_SCOPE,
      '--auth-method',
      'private_key_jwt',
      '--jwks-file',
      jwksFile,
      '--dpop-bound',
      '--json',
    ];
    const cli = startChild('our CLI (client create, private_key_jwt)', args, env, logPath('ours-pop-cli', alg));
    const exit = await Promise.race([cli.exited, sleep(120_000).then(() => null)]);
    await reapGroup(cli.name, cli.child.pid);
    if (!exit || exit.code !== 0) throw failStart(cli, 'client create --auth-method private_key_jwt failed');
    const server = startChild('our server (pop)', ['dist/src/main.js'], env, logPath('ours-pop', alg));
    try {
      await waitReady(server, baseUrl + DISCOVERY_PATH, 120_000);
      return await measureProofOfPossession({ name: 'ours, private_key_jwt + DPoP', alg, baseUrl, key, scope: POP_SCOPE, config, summarize });
    } finally {
      await stopChild(server);
      scanServerLog(server, alg);
    }
  } finally {
    removeDataDir(dataDir);
  }
}

async function runOidcProviderProofOfPossession(alg, key) {
  const port = await freePort();
  const env = {
    PORT: String(port),
    TOKEN_SIGNING_ALG: alg,
    CLIENT_ID,
    CLIENT_SECRET: 'unused-secret',
    POP_CLIENT_ID,
    POP_CLIENT_JWKS: JSON.stringify(key.jwks),
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = startChild('oidc-provider (pop)', ['bench/oidc-provider-peer.mjs'], env, logPath('oidc-provider-pop', alg));
  try {
    await waitReady(server, baseUrl + DISCOVERY_PATH, 30_000);
    return await measureProofOfPossession({ name: 'oidc-provider, private_key_jwt + DPoP', alg, baseUrl, key, scope: POP_SCOPE, config, summarize });
  } finally {
    await stopChild(server);
  }
}

async function runProofOfPossession(alg) {
  const key = await popClientKey();
  const oursPop = await runOursProofOfPossession(alg, key);
  const oidcProviderPop = await runOidcProviderProofOfPossession(alg, key);
  return { oursPop, oidcProviderPop };
}

// ---------------------------------------------------------------------------
// Report.

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));
const fmtRatio = (a, b) => (a && b ? `${(a.perSecond / b.perSecond).toFixed(2)}x` : 'n/a');
// Below 1: we spend less CPU (server and database) per token than the other.
const fmtCpuRatio = (a, b) =>
  a?.cpu?.microsPerResponse && b?.cpu?.microsPerResponse ? `${(a.cpu.microsPerResponse / b.cpu.microsPerResponse).toFixed(2)}x` : 'n/a';

function describe(label, unit, r) {
  if (!r) return `${label} (not run)`;
  return `${label} ${fmtInt(r.perSecond)} ${unit} p50 ${fmtMs(r.latencyMs.p50)} ms p99 ${fmtMs(r.latencyMs.p99)} ms`;
}

// Other work on this 2-core box skews every number: show how busy it was.
const loadAvg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

const fmtMicros = (x) => (x.cpu?.microsPerResponse ? fmtInt(x.cpu.microsPerResponse) : 'n/a');
const fmtOther = (x) => (x.cpu ? `${Math.round(x.cpu.otherCores * 100)} %` : 'n/a');

function printReport(results) {
  console.log(`\nload average at the end ${loadAvg()} (1, 5, 15 min; the bench itself adds ~2)\n`);
  for (const [alg, r] of Object.entries(results)) {
    console.log(`${alg}  server            per second   p50 ms   p99 ms   non-2xx  body bytes  µs CPU/resp  procs  other load`);
    for (const { key, label } of CASES) {
      const x = r[key];
      if (!x) continue;
      const cols = [
        fmtInt(x.perSecond).padStart(10),
        fmtMs(x.latencyMs.p50).padStart(8),
        fmtMs(x.latencyMs.p99).padStart(8),
        String(x.non2xx).padStart(9),
        String(x.bodyBytes).padStart(11),
        fmtMicros(x).padStart(12),
        String(x.cpu?.serverProcesses ?? '').padStart(6),
        fmtOther(x).padStart(11),
      ];
      console.log(`${alg}  ${label.padEnd(16)}${cols.join(' ')}`);
    }
    console.log('');
  }
  for (const [alg, r] of Object.entries(results)) {
    console.log(
      `${alg}  ${describe('ours', 'tok/s', r.ours)} | ${describe('oidc-provider', 'tok/s', r.oidcProvider)} | ${describe('bare node:http', 'req/s', r.bare)}`,
    );
    console.log(
      `${alg}  ours/oidc-provider ${fmtRatio(r.ours, r.oidcProvider)}   ours/bare ${fmtRatio(r.ours, r.bare)}   CPU per token ours/oidc-provider ${fmtCpuRatio(r.ours, r.oidcProvider)}`,
    );
    if (r.oursWorkers2) console.log(`${alg}  WORKERS=2 / WORKERS=1 ${fmtRatio(r.oursWorkers2, r.ours)} (the load generator takes much of the second core)`);
    if (r.oursFlood) console.log(`${alg}  known client during a wrong-secret flood / plain ${fmtRatio(r.oursFlood, r.ours)}`);
    if (r.oursKeyFlood)
      console.log(
        `${alg}  known client's median latency during an oversized-key DPoP flood ${fmtMs(r.oursKeyFlood.latencyMs.p50)} ms / calm ${fmtMs(r.oursKeyFlood.calm.latencyMs.p50)} ms = ${(r.oursKeyFlood.latencyMs.p50 / r.oursKeyFlood.calm.latencyMs.p50).toFixed(2)}x (wanted: at most 10x; flood ${r.oursKeyFlood.flood?.perSecond ?? 'n/a'} requests/s, about ${r.oursKeyFlood.flood?.microsPerFloodRequest ? fmtInt(r.oursKeyFlood.flood.microsPerFloodRequest) : 'n/a'} µs of server CPU each)`,
      );
    if (r.oursRegisterFlood)
      console.log(
        `${alg}  known client's median latency during a registration flood ${fmtMs(r.oursRegisterFlood.latencyMs.p50)} ms / calm ${fmtMs(r.oursRegisterFlood.calm.latencyMs.p50)} ms = ${(r.oursRegisterFlood.latencyMs.p50 / r.oursRegisterFlood.calm.latencyMs.p50).toFixed(2)}x, tokens/s flood / calm ${fmtRatio(r.oursRegisterFlood, r.oursRegisterFlood.calm)} (flood ${r.oursRegisterFlood.flood?.perSecond ?? 'n/a'} requests/s, about ${r.oursRegisterFlood.flood?.microsPerFloodRequest ? fmtInt(r.oursRegisterFlood.flood.microsPerFloodRequest) : 'n/a'} µs of server CPU each)`,
      );
    if (r.oursRegister)
      console.log(
        `${alg}  registrations one at a time: ${Object.entries(r.oursRegister.kinds)
          .map(
            ([method, k]) => `${method} p50 ${fmtMs(k.latencyMs.p50)} ms, p95 ${fmtMs(k.latencyMs.p95)} ms (${k.registered} registered, ${k.refused} refused)`,
          )
          .join('; ')} (wanted: p95 at most 300 ms)`,
      );
    if (r.oursTickets)
      console.log(
        `${alg}  resource scope with 10k clients, 100k ticket records and 1k data sources / plain scope ${fmtRatio(r.oursTickets, r.ours)} (issue 13 wants at least 0.95x: a cost at most 1.05x)`,
      );
    if (r.oursDisclosures)
      console.log(
        `${alg}  resource scope with its durable disclosure row / plain scope ${fmtRatio(r.oursDisclosures, r.ours)} (wanted: at least 0.8x)   µs CPU per token ${fmtMicros(r.oursDisclosures)} vs ${r.ours ? fmtMicros(r.ours) : 'n/a'}`,
      );
    if (r.oursNoStatus)
      console.log(
        `${alg}  STATUS_LIST=true / false ${fmtRatio(r.ours, r.oursNoStatus)} (wanted: at least 0.95x)   µs CPU per token ${fmtMicros(r.ours)} vs ${fmtMicros(r.oursNoStatus)}`,
      );
    if (r.oursStatusList)
      console.log(`${alg}  status list GET from the cache: ${describe('ours', 'req/s', r.oursStatusList)} (wanted: at least 5,000 per worker)`);
    if (r.oursIntrospection || r.oidcProviderIntrospection)
      console.log(
        `${alg}  introspection: ${describe('ours', 'req/s', r.oursIntrospection)} (µs CPU ${r.oursIntrospection ? fmtMicros(r.oursIntrospection) : 'n/a'}) | ${describe('oidc-provider', 'req/s', r.oidcProviderIntrospection)} (µs CPU ${r.oidcProviderIntrospection ? fmtMicros(r.oidcProviderIntrospection) : 'n/a'}) | ours/oidc-provider ${fmtRatio(r.oursIntrospection, r.oidcProviderIntrospection)} (aim: 2x)`,
      );
    if (r.oursPop)
      console.log(
        `${alg}  private_key_jwt + DPoP: ours/oidc-provider ${fmtRatio(r.oursPop, r.oidcProviderPop)}   ours pop/ours plain ${fmtRatio(r.oursPop, r.ours)}`,
      );
  }
  if (notes.length > 0) console.log(`\nNotes:\n${notes.map((n) => `  - ${n}`).join('\n')}`);
}

function writeJson(results) {
  const out = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAverageAtEnd: os.loadavg() },
    config: { duration: config.duration, warmup: config.warmup, connections: config.connections, algs: config.algs },
    results,
    ratios: Object.fromEntries(
      Object.entries(results).map(([alg, r]) => [
        alg,
        {
          oursOverOidcProvider: r.ours && r.oidcProvider ? r.ours.perSecond / r.oidcProvider.perSecond : null,
          oursOverBare: r.ours && r.bare ? r.ours.perSecond / r.bare.perSecond : null,
          cpuPerTokenOursOverOidcProvider:
            r.ours?.cpu?.microsPerResponse && r.oidcProvider?.cpu?.microsPerResponse
              ? r.ours.cpu.microsPerResponse / r.oidcProvider.cpu.microsPerResponse
              : null,
          workers2OverWorkers1: r.oursWorkers2 && r.ours ? r.oursWorkers2.perSecond / r.ours.perSecond : null,
          floodOverPlain: r.oursFlood && r.ours ? r.oursFlood.perSecond / r.ours.perSecond : null,
          keyFloodMedianOverCalm: r.oursKeyFlood ? r.oursKeyFlood.latencyMs.p50 / r.oursKeyFlood.calm.latencyMs.p50 : null,
          registerFloodMedianOverCalm: r.oursRegisterFlood ? r.oursRegisterFlood.latencyMs.p50 / r.oursRegisterFlood.calm.latencyMs.p50 : null,
          registerFloodTokensOverCalm: r.oursRegisterFlood ? r.oursRegisterFlood.perSecond / r.oursRegisterFlood.calm.perSecond : null,
          registerSecretP95Ms: r.oursRegister ? r.oursRegister.kinds.client_secret_basic.latencyMs.p95 : null,
          registerKeyP95Ms: r.oursRegister ? r.oursRegister.kinds.private_key_jwt.latencyMs.p95 : null,
          ticketsOverPlain: r.oursTickets && r.ours ? r.oursTickets.perSecond / r.ours.perSecond : null,
          disclosuresOverPlain: r.oursDisclosures && r.ours ? r.oursDisclosures.perSecond / r.ours.perSecond : null,
          statusListOverNoStatus: r.ours && r.oursNoStatus ? r.ours.perSecond / r.oursNoStatus.perSecond : null,
          statusListClaimMicrosCpuPerToken:
            r.ours?.cpu?.microsPerResponse && r.oursNoStatus?.cpu?.microsPerResponse
              ? r.ours.cpu.microsPerResponse - r.oursNoStatus.cpu.microsPerResponse
              : null,
          introspectionOursOverOidcProvider:
            r.oursIntrospection && r.oidcProviderIntrospection ? r.oursIntrospection.perSecond / r.oidcProviderIntrospection.perSecond : null,
          proofOfPossessionOursOverOidcProvider: r.oursPop && r.oidcProviderPop ? r.oursPop.perSecond / r.oidcProviderPop.perSecond : null,
        },
      ]),
    ),
    notes,
  };
  const file = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`\nResults written to ${path.relative(ROOT, file)}`);
}

// ---------------------------------------------------------------------------

async function runAlg(alg) {
  const r = {};
  for (const benchCase of CASES) {
    if (config.servers.includes(benchCase.name)) r[benchCase.key] = await benchCase.run(alg, r);
  }
  if (config.servers.includes('pop')) Object.assign(r, await runProofOfPossession(alg));
  if (config.servers.includes('introspection')) Object.assign(r, await runIntrospection(alg));
  return r;
}

function checkBuilt() {
  for (const file of ['dist/src/main.js', 'dist/src/cli.js']) {
    if (!existsSync(path.join(ROOT, file))) throw new StartError(`our server is not built: ${file} is missing (run npm run build)`);
  }
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const unknown = config.servers.filter((name) => name !== 'pop' && name !== 'introspection' && !CASES.some((c) => c.name === name));
  if (unknown.length > 0)
    throw new StartError(`BENCH_SERVERS names unknown cases: ${unknown.join(', ')} (known: ${CASES.map((c) => c.name).join(', ')}, pop, introspection)`);
  if (
    config.servers.includes('pop') ||
    config.servers.includes('introspection') ||
    CASES.some((c) => c.key.startsWith('ours') && config.servers.includes(c.name))
  )
    checkBuilt();
  console.log(
    `bench: ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s measured, algs ${config.algs.join(', ')}, ${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAvg()}`,
  );
  const results = {};
  for (const alg of config.algs) results[alg] = await runAlg(alg);
  printReport(results);
  writeJson(results);
}

try {
  await main();
  await cleanup();
} catch (err) {
  await cleanup();
  // Context first, then the one line that says what went wrong, last.
  if (err.detail) console.error(err.detail);
  else if (!(err instanceof StartError)) console.error(err.stack);
  console.error(`bench: FAILED: ${err.message}`);
  process.exit(1);
}
