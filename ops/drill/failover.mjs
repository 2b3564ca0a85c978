#!/usr/bin/env node
// The failover drill (docs/operations/high-availability.md): on this machine, etcd, two Patroni
// nodes of PostgreSQL (synchronous_mode_strict), HAProxy with Patroni's REST checks, and two
// instances of the server behind it, under token load; then, in turn, the primary's postmaster
// killed with SIGKILL, a switchover with patronictl, and an etcd stop. For each it prints what was
// answered, what is on the new primary, and how long tokens stopped. It exits 0 only when nothing
// was lost, no replayed jti was accepted and no 5xx other than 503 was answered.
//
//   npm run drill:failover            (builds the server first)
//   node ops/drill/failover.mjs --json FILE   also writes the figures as JSON
//   DRILL_BASE_PORT=25000 npm run drill:failover   fixed ports 25000-25010 instead of random ones
//
// Runs as root (PostgreSQL itself runs as the `postgres` user); installs patroni, etcd-server,
// etcd-client, haproxy and postgresql-15 with apt-get when they are missing. Everything listens on
// 127.0.0.1, below port 32768; everything it starts is stopped and its temp folder removed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, chmodSync, chownSync, createWriteStream, readFileSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HA = join(ROOT, 'ops', 'ha');
const argv = process.argv.slice(2);
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : undefined;
const KINDS = (process.env.DRILL_KINDS ?? 'kill-primary,switchover,etcd-stop').split(',').filter(Boolean);
// Requests per second, each kind of token half of them.
const RATE = Number(process.env.DRILL_RATE ?? 40);
const ETCD_DOWN_SECONDS = Number(process.env.DRILL_ETCD_DOWN_SECONDS ?? 12);
const PACKAGES = { patroni: 'patroni', etcd: 'etcd-server', etcdctl: 'etcd-client', haproxy: 'haproxy' };

const log = (line) => process.stdout.write(`[drill ${new Date().toISOString().slice(11, 23)}] ${line}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ---------------------------------------------------------------------------------------------
// Processes and clean-up: everything started is remembered and stopped, whatever happens.
const children = [];
let workDir;
let cleaned = false;

function start(name, command, args, options = {}) {
  const logFile = join(workDir, `${name}.log`);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  const chunks = [];
  // With DRILL_KEEP, every process's output also goes to NAME.log in the kept folder.
  const file = process.env.DRILL_KEEP ? createWriteStream(logFile) : undefined;
  const keep = (chunk) => {
    chunks.push(chunk);
    if (chunks.length > 2000) chunks.splice(0, 1000);
    file?.write(chunk);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const entry = { name, child, logFile, output: () => Buffer.concat(chunks).toString('utf8'), exited: false, code: null, signal: null };
  child.on('exit', (code, signal) => Object.assign(entry, { exited: true, code, signal }));
  child.on('error', (error) => Object.assign(entry, { exited: true, code: -1, signal: String(error.message) }));
  children.push(entry);
  return entry;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopEntry(entry, signal = 'SIGTERM', waitMs = 15_000) {
  if (entry.exited || !entry.child.pid) return;
  try {
    process.kill(entry.child.pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + waitMs;
  while (!entry.exited && Date.now() < deadline) await sleep(100);
  if (!entry.exited) {
    try {
      process.kill(-entry.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

function postmasterPid(dataDir) {
  try {
    return Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

async function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  // Servers first (they drain), then Patroni (it stops its PostgreSQL), then HAProxy and etcd.
  const order = ['server', 'patroni', 'haproxy', 'etcd'];
  for (const prefix of order) {
    await Promise.all(children.filter((entry) => entry.name.startsWith(prefix)).map((entry) => stopEntry(entry)));
  }
  // A postmaster whose Patroni did not stop it (killed earlier): stopped by its own pid file.
  for (const node of nodes) {
    const pid = postmasterPid(node.dataDir);
    if (pid && alive(pid)) {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        /* gone */
      }
      for (let index = 0; index < 50 && alive(pid); index += 1) await sleep(100);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  for (const entry of children) if (!entry.exited && entry.child.pid) process.kill(-entry.child.pid, 'SIGKILL');
  if (workDir && !process.env.DRILL_KEEP) rmSync(workDir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// The machine: packages, the postgres user, free ports below the ephemeral range.
function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function postgresBinDir() {
  for (const version of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'postgres'))) return dir;
  }
  return undefined;
}

function ensurePackages() {
  const missing = Object.entries(PACKAGES)
    .filter(([command]) => !which(command))
    .map(([, pkg]) => pkg);
  if (!postgresBinDir()) missing.push('postgresql-15');
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`missing packages (${missing.join(' ')}): install them with apt-get as root`);
  log(`installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Debian's packages start their own services where systemd runs; policy-rc.d keeps them off.
  const policy = '/usr/sbin/policy-rc.d';
  const hadPolicy = existsSync(policy);
  if (!hadPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env, timeout: 600_000 });
    if (result.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env, timeout: 300_000 });
      result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env, timeout: 600_000 });
    }
    if (result.status !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed`);
  } finally {
    if (!hadPolicy) rmSync(policy, { force: true });
  }
}

function postgresUser() {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0) throw new Error('no postgres user: install postgresql-15 (apt-get install postgresql-15)');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function portFree(port) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

// Ports from a random spot in 20000-31999 (never the ephemeral range, where an outgoing
// connection can take a port between the probe and the bind). DRILL_BASE_PORT=N takes N, N+1, …
// in order instead (docs/operations/high-availability.md#the-drill), each of which must be free.
async function freePorts(count) {
  const base = process.env.DRILL_BASE_PORT;
  if (base !== undefined) {
    const first = Number(base);
    if (!/^\d{4,5}$/.test(base) || first < 1024 || first + count - 1 > 32_767) {
      throw new Error(`DRILL_BASE_PORT must be a port from 1024 to ${32_767 - count + 1} (the drill takes ${count} in a row), got ${JSON.stringify(base)}`);
    }
    const ports = Array.from({ length: count }, (_, index) => first + index);
    for (const port of ports) if (!(await portFree(port))) throw new Error(`DRILL_BASE_PORT: port ${port} is in use`);
    return ports;
  }
  const ports = [];
  let candidate = 20_000 + Math.floor(Math.random() * 11_000);
  for (let tries = 0; ports.length < count && tries < 2_000; tries += 1, candidate += 1) {
    if (candidate >= 32_000) candidate = 20_000;
    if (await portFree(candidate)) ports.push(candidate);
  }
  if (ports.length < count) throw new Error('not enough free ports below 32000');
  return ports;
}

function fill(template, values) {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`no value for \${${name}}`);
    return String(values[name]);
  });
}

async function waitFor(what, check, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`);
}

async function httpStatus(url, options = {}) {
  try {
    const response = await fetch(url, { ...options, signal: AbortSignal.timeout(options.timeoutMs ?? 2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// The set: etcd, two Patroni nodes, HAProxy, two server instances.
const nodes = [];
const secrets = {
  superuser: randomBytes(12).toString('hex'),
  replication: randomBytes(12).toString('hex'),
  app: randomBytes(12).toString('hex'),
  admin: `drill-admin-${randomBytes(16).toString('hex')}`,
};
let etcd;
let etcdArgs;
const instances = [];

async function startEtcd() {
  etcd = start('etcd', which('etcd'), etcdArgs);
  await waitFor('etcd', async () => (await httpStatus(`${etcdArgs.clientUrl}/health`)) === 200, 30_000);
}

async function setUp() {
  ensurePackages();
  const owner = postgresUser();
  const binDir = postgresBinDir();
  workDir = mkdtempSync(join(tmpdir(), 'failover-drill-'));
  chmodSync(workDir, 0o755);
  const [etcdClient, etcdPeer, rest1, rest2, pg1, pg2, haproxy, public1, admin1, public2, admin2] = await freePorts(11);
  log(`work folder ${workDir}; etcd ${etcdClient}, Patroni REST ${rest1}/${rest2}, PostgreSQL ${pg1}/${pg2}, HAProxy ${haproxy}`);

  const etcdDir = join(workDir, 'etcd');
  const clientUrl = `http://127.0.0.1:${etcdClient}`;
  const peerUrl = `http://127.0.0.1:${etcdPeer}`;
  etcdArgs = [
    '--name',
    'drill',
    '--data-dir',
    etcdDir,
    '--listen-client-urls',
    clientUrl,
    '--advertise-client-urls',
    clientUrl,
    '--listen-peer-urls',
    peerUrl,
    '--initial-advertise-peer-urls',
    peerUrl,
    '--initial-cluster',
    `drill=${peerUrl}`,
    '--initial-cluster-state',
    'new',
  ];
  etcdArgs.clientUrl = clientUrl;
  await startEtcd();

  const template = readFileSync(join(HA, 'patroni.yml'), 'utf8');
  for (const [index, [rest, port]] of [
    [rest1, pg1],
    [rest2, pg2],
  ].entries()) {
    const name = `node${index + 1}`;
    const nodeDir = join(workDir, name);
    mkdirSync(nodeDir, { mode: 0o700 });
    chownSync(nodeDir, owner.uid, owner.gid);
    const dataDir = join(nodeDir, 'data');
    const config = fill(template, {
      SCOPE: 'drill',
      NAME: name,
      REST_PORT: rest,
      ETCD_PORT: etcdClient,
      FAILSAFE_MODE: process.env.DRILL_FAILSAFE_MODE === 'true' ? 'true' : 'false',
      REPLICATION_USER: 'replicator',
      REPLICATION_PASSWORD: secrets.replication,
      SUPERUSER_PASSWORD: secrets.superuser,
      PG_PORT: port,
      DATA_DIR: dataDir,
      BIN_DIR: binDir,
      NODE_DIR: nodeDir,
    });
    const configFile = join(nodeDir, 'patroni.yml');
    writeFileSync(configFile, config, { mode: 0o600 });
    chownSync(configFile, owner.uid, owner.gid);
    nodes.push({ name, rest, port, dataDir, configFile, nodeDir, owner });
  }
  for (const node of nodes) startPatroni(node);
  // The first node bootstraps; the second clones it and becomes the synchronous standby.
  await waitFor('a primary', async () => await primaryNode(), 120_000, 500);
  await waitForHealthyCluster(180_000);

  const servers = nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} maxconn 300 check port ${node.rest}`).join('\n');
  const haproxyFile = join(workDir, 'haproxy.cfg');
  writeFileSync(haproxyFile, fill(readFileSync(join(HA, 'haproxy.cfg'), 'utf8'), { HAPROXY_PORT: haproxy, SERVERS: servers }));
  start('haproxy', which('haproxy'), ['-f', haproxyFile, '-db']);

  // The application's own role and database, through HAProxy like everything else.
  const superuserUrl = `postgres://postgres:${secrets.superuser}@127.0.0.1:${haproxy}/postgres`;
  await waitFor(
    'HAProxy routing to the primary',
    async () => {
      const client = new pg.Client({ connectionString: superuserUrl, connectionTimeoutMillis: 2_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query('SELECT pg_is_in_recovery() AS standby');
        return rows[0].standby === false;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    30_000,
  );
  // Retried: for a moment after its bootstrap the new primary may still refuse writes.
  await waitFor(
    "the application's role and database",
    async () => {
      const setup = new pg.Client({ connectionString: superuserUrl, connectionTimeoutMillis: 2_000 });
      setup.on('error', () => undefined);
      try {
        await setup.connect();
        const { rows } = await setup.query("SELECT 1 FROM pg_roles WHERE rolname = 'authz'");
        if (rows.length === 0) await setup.query(`CREATE ROLE authz LOGIN PASSWORD '${secrets.app}'`);
        await setup.query('CREATE TABLE IF NOT EXISTS drill_probe (at timestamptz NOT NULL)');
        const databases = await setup.query("SELECT 1 FROM pg_database WHERE datname = 'authz'");
        if (databases.rows.length === 0) await setup.query('CREATE DATABASE authz OWNER authz');
        return true;
      } finally {
        await setup.end().catch(() => undefined);
      }
    },
    60_000,
    500,
  );

  const databaseUrl = `postgres://authz:${secrets.app}@127.0.0.1:${haproxy}/authz`;
  const issuer = `http://127.0.0.1:${public1}`;
  for (const [index, [port, adminPort]] of [
    [public1, admin1],
    [public2, admin2],
  ].entries()) {
    const entry = start(`server${index + 1}`, process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...(process.env.DRILL_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.DRILL_SERVER_NODE_OPTIONS } : {}),
        DATABASE_URL: databaseUrl,
        ADMIN_TOKEN: secrets.admin,
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        HOST: '127.0.0.1',
        ADMIN_HOST: '127.0.0.1',
        ISSUER: issuer,
        LOG_LEVEL: process.env.DRILL_SERVER_LOG_LEVEL ?? 'warn',
        DATA_DIR: join(workDir, `server${index + 1}-data`),
      },
    });
    instances.push({ name: `server${index + 1}`, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}`, entry });
  }
  for (const instance of instances) {
    await waitFor(
      `${instance.name} ready`,
      async () => {
        if (instance.entry.exited) throw new Error(`${instance.name} exited: ${instance.entry.output().slice(-2000)}`);
        return (await httpStatus(`${instance.url}/health/ready`)) === 200;
      },
      90_000,
    );
  }
  return { databaseUrl, issuer, superuserUrl };
}

function startPatroni(node) {
  node.patroni = start(`patroni-${node.name}`, which('patroni'), [node.configFile], {
    uid: node.owner.uid,
    gid: node.owner.gid,
    cwd: node.nodeDir,
    env: { PATH: process.env.PATH, HOME: node.nodeDir, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
  });
}

async function primaryNode() {
  for (const node of nodes) if ((await httpStatus(`http://127.0.0.1:${node.rest}/primary`)) === 200) return node;
  return undefined;
}

async function clusterState() {
  for (const node of nodes) {
    try {
      const response = await fetch(`http://127.0.0.1:${node.rest}/cluster`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return await response.json();
    } catch {
      /* try the next node */
    }
  }
  return undefined;
}

// Two members running (or streaming), one of them the leader and the other the synchronous standby.
async function waitForHealthyCluster(timeoutMs) {
  return waitFor(
    'both nodes running, one the synchronous standby',
    async () => {
      const state = await clusterState();
      const members = state?.members ?? [];
      const running = members.filter((member) => member.state === 'running' || member.state === 'streaming');
      return running.length === 2 && members.some((member) => member.role === 'leader') && members.some((member) => member.role === 'sync_standby');
    },
    timeoutMs,
    500,
  );
}

// ---------------------------------------------------------------------------------------------
// The world the load needs, made through the admin interface of instance 1.
async function admin(instance, method, path, body) {
  const response = await fetch(`${instance.adminUrl}${path}`, {
    method,
    headers: { Authorization: secrets.admin, 'Content-Type': 'application/vnd.api+json; ext=jsonpatch', Accept: 'application/vnd.api+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const add = (type, value) => ({ op: 'add', path: `/${type}`, value: { type, ...value } });
const ref = (type, id) => ({ data: { type, id: String(id) } });
let nextId = 1_000 + Math.floor(Math.random() * 1_000) * 100;
const ids = (count) => Array.from({ length: count }, () => (nextId += 1));

async function makeWorld() {
  const key = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'drill-key', alg: 'ES256', use: 'sig' };
  const [client, definition, read, purpose, ticket, resource, binding, combination, probe] = ids(9);
  const definitionName = 'drill-glucose';
  const response = await admin(instances[0], 'PATCH', '/admin', [
    add('uma-client', {
      id: client,
      attributes: { clientId: 'drill-resource-client', clientName: 'drill', allowedScopes: `${definitionName}:read`, grantTypes: 'client_credentials' },
    }),
    add('uma-client', {
      id: probe,
      attributes: { clientId: 'drill-probe-client', clientName: 'drill probe', allowedScopes: 'read', grantTypes: 'client_credentials' },
    }),
    add('resource-definition', { id: definition, attributes: { name: definitionName } }),
    add('scope', { id: read, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
    add('purpose', { id: purpose, attributes: { name: 'Failover drill' } }),
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId: 'drill-ticket', ticketName: 'Drill' },
      relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource', {
      id: resource,
      attributes: { maxPermissionDuration: 7200, requestedResourceId: 'drill-patient' },
      relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource-scopes', {
      id: binding,
      relationships: { scope: ref('scope', read), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', resource) },
    }),
    add('requested-resources-capability-tickets', {
      id: combination,
      relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) },
    }),
  ]);
  if (response.status !== 200) throw new Error(`the drill's clients were not created: ${JSON.stringify(response.body)}`);
  const basicOf = (clientId, secret) => `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const world = {
    resourceClient: { clientId: 'drill-resource-client', secret: response.body[0].meta.clientSecret, scope: `${definitionName}:read` },
    keyClient: undefined,
    key: { privateKey: key.privateKey, jwk, scopes: `${definitionName}:read read` },
    probeClient: { id: probe, basic: basicOf('drill-probe-client', response.body[1].meta.clientSecret) },
  };
  // Each instance verifies the probe client's secret once now, so that later probes time the change, not the slow hash.
  for (const instance of instances) {
    const answer = await tokenRequest(instance, { grant_type: 'client_credentials', scope: 'read' }, { Authorization: world.probeClient.basic });
    if (answer.status !== 200) throw new Error(`the probe client got ${answer.status} from ${instance.name}`);
  }
  return world;
}

// Each failover has its own private_key_jwt client. Its replay check (below) sends every accepted
// assertion again, and the server counts each replay as a failed client authentication
// (docs/reference/token-endpoint.md#brute-force-protection): past 20 in a minute the client is
// over its limit, and a client shared by the next failover's load would start that failover locked.
async function addKeyClient(world, round) {
  const [id] = ids(1);
  const clientId = `drill-key-client-${round}`;
  const response = await admin(instances[0], 'PATCH', '/admin', [
    add('uma-client', {
      id,
      attributes: {
        clientId,
        clientName: `drill key client ${round}`,
        allowedScopes: world.key.scopes,
        grantTypes: 'client_credentials',
        clientAuthenticationType: 'private_key_jwt',
        jwksRaw: JSON.stringify({ keys: [world.key.jwk] }),
      },
    }),
  ]);
  if (response.status !== 200) throw new Error(`the drill's key client was not created: ${JSON.stringify(response.body)}`);
  world.keyClient = { clientId, privateKey: world.key.privateKey };
}

// ---------------------------------------------------------------------------------------------
// Load: resource-scope tokens (each with its disclosure row) and private_key_jwt tokens (each with
// its jti), alternately, each kind on both instances in turn, at RATE requests per second.
const REQUEST_TIMEOUT_MS = 15_000;

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

async function tokenRequest(instance, body, headers = {}) {
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

function startLoad(world, issuer) {
  const results = [];
  let stopped = false;
  let sequence = 0;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(world.resourceClient.clientId)}:${encodeURIComponent(world.resourceClient.secret)}`).toString('base64')}`;
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
      const result = await tokenRequest(instance, {
        grant_type: 'client_credentials',
        scope: 'read',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: jwt,
      });
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
function startWriteProbe(superuserUrl) {
  const samples = [];
  let stopped = false;
  const loop = (async () => {
    for (let round = 0; !stopped && round < 3_000; round += 1) {
      const at = Date.now();
      const client = new pg.Client({ connectionString: superuserUrl, connectionTimeoutMillis: 1_000, query_timeout: 1_000 });
      client.on('error', () => undefined);
      let ok = false;
      try {
        await client.connect();
        await client.query('INSERT INTO drill_probe (at) VALUES (now())');
        ok = true;
      } catch {
        // not writable now
      } finally {
        await client.end().catch(() => undefined);
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
function writableAgainAt(samples, faultAt) {
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
function flowingAgainAt(results, faultAt) {
  const after = results.filter((result) => result.sent >= faultAt - 2_000).sort((a, b) => a.answered - b.answered);
  let lastFailure;
  for (const result of after) if (result.status !== 200) lastFailure = result;
  if (!lastFailure) return { seconds: 0, failures: false };
  const firstAfter = after.find((result) => result.status === 200 && result.answered > lastFailure.answered);
  return { seconds: firstAfter ? (firstAfter.answered - faultAt) / 1000 : undefined, failures: true };
}

// ---------------------------------------------------------------------------------------------
// The checks after each failover.
async function directClient(node, database = 'authz') {
  const client = new pg.Client({ host: '127.0.0.1', port: node.port, user: 'postgres', password: secrets.superuser, database, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

function replayKey(clientId, jti) {
  return createHash('sha256').update(`client-assertion\u0000${clientId}\u0000${jti}`).digest('base64url');
}

async function checkRows(primary, results) {
  const tokens = results.filter((result) => result.status === 200 && result.kind === 'resource').map((result) => result.jti);
  const assertions = results.filter((result) => result.status === 200 && result.kind === 'assertion');
  const client = await directClient(primary);
  try {
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
  } finally {
    await client.end().catch(() => undefined);
  }
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
async function replayAssertions(results) {
  replayRound += 1;
  const localAddress = `127.0.0.${1 + replayRound}`;
  const accepted = results.filter((result) => result.status === 200 && result.kind === 'assertion');
  let replayedAccepted = 0;
  let refused = 0;
  let other = 0;
  const replayStatuses = {};
  for (let index = 0; index < accepted.length; index += 8) {
    const answers = await Promise.all(
      accepted.slice(index, index + 8).map((result, offset) =>
        tokenRequestFrom(
          instances[(index + offset) % instances.length],
          {
            grant_type: 'client_credentials',
            scope: 'read',
            client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
            client_assertion: result.assertion,
          },
          localAddress,
        ),
      ),
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
async function crossInstanceChange(world) {
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

function summarize(statuses) {
  const counts = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return Object.entries(counts)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
}

// ---------------------------------------------------------------------------------------------
// The failovers.
async function killPrimary() {
  const primary = await primaryNode();
  const pid = postmasterPid(primary.dataDir);
  log(`kill -9 of ${primary.name}'s postmaster (pid ${pid})`);
  process.kill(pid, 'SIGKILL');
  return { from: primary.name };
}

async function switchover() {
  const primary = await primaryNode();
  const candidate = nodes.find((node) => node !== primary);
  log(`patronictl switchover ${primary.name} -> ${candidate.name}`);
  // Asynchronous: the load must go on while patronictl waits for the switchover.
  const entry = start(
    'patronictl',
    which('patronictl'),
    ['-c', primary.configFile, 'switchover', '--leader', primary.name, '--candidate', candidate.name, '--force'],
    {
      uid: primary.owner.uid,
      gid: primary.owner.gid,
      cwd: primary.nodeDir,
      env: { PATH: process.env.PATH, HOME: primary.nodeDir, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      detached: false,
    },
  );
  await waitFor('patronictl switchover', () => entry.exited, 60_000, 100);
  if (entry.code !== 0) throw new Error(`patronictl switchover failed: ${entry.output()}`);
  return { from: primary.name };
}

async function stopEtcd() {
  const primary = await primaryNode();
  log(`etcd stopped for ${ETCD_DOWN_SECONDS} s`);
  await stopEntry(etcd);
  await sleep(ETCD_DOWN_SECONDS * 1000);
  log('etcd started again');
  const restartedAt = Date.now();
  await startEtcd();
  return { from: primary?.name, etcdBackAt: restartedAt };
}

const FAULTS = { 'kill-primary': killPrimary, switchover, 'etcd-stop': stopEtcd };

let failoverRound = 0;
async function drill(kind, world, issuer, superuserUrl) {
  await waitForHealthyCluster(120_000);
  for (const instance of instances) await waitFor(`${instance.name} ready`, async () => (await httpStatus(`${instance.url}/health/ready`)) === 200, 30_000);
  failoverRound += 1;
  await addKeyClient(world, failoverRound);
  const load = startLoad(world, issuer);
  const probe = startWriteProbe(superuserUrl);
  await sleep(3_000);
  const faultAt = Date.now();
  const fault = await FAULTS[kind]();
  // Until tokens flow again (at most 90 s), then 3 s more of load.
  const deadline = Date.now() + 90_000;
  let recoveredAt;
  while (Date.now() < deadline) {
    await sleep(250);
    const recent = load.results.filter((result) => result.answered > Date.now() - 1_500 && result.sent > faultAt);
    const sinceFault = Date.now() - faultAt;
    if (sinceFault > 2_000 && recent.length >= 10 && recent.every((result) => result.status === 200)) {
      recoveredAt = Date.now();
      break;
    }
  }
  await sleep(3_000);
  await Promise.all([load.stop(), probe.stop()]);
  const results = load.results;
  const writableAt = writableAgainAt(probe.samples, faultAt);
  const newPrimary = await waitFor('a primary after the failover', primaryNode, 60_000, 500);
  const rows = await checkRows(newPrimary, results);
  const replays = await replayAssertions(results);
  const cross = await crossInstanceChange(world);
  const flowing = flowingAgainAt(results, faultAt);
  const statuses = {};
  for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1;
  // Second by second from the fault, by the time each answer came: "200s/503s" per second.
  const timeline = [];
  for (const result of results) {
    const second = Math.floor((result.answered - faultAt) / 1000);
    if (second < -1) continue;
    const slot = (timeline[second + 1] ??= { second, ok: 0, unavailable: 0, other: 0 });
    if (result.status === 200) slot.ok += 1;
    else if (result.status === 503) slot.unavailable += 1;
    else slot.other += 1;
  }
  const figures = {
    kind,
    from: fault.from,
    newPrimary: newPrimary.name,
    requests: results.length,
    ...rows,
    ...replays,
    status503: results.filter((result) => result.status === 503).length,
    reasons503: summarize(results.filter((result) => result.status === 503).map((result) => `"${String(result.json?.error_description).slice(0, 50)}"`)),
    status503WithoutRetryAfter: results.filter((result) => result.status === 503 && !result.retryAfter).length,
    other5xx: results.filter((result) => result.status >= 500 && result.status !== 503).length,
    other4xx: results.filter((result) => result.status >= 400 && result.status < 500).length,
    reasons4xx: summarize(
      results.filter((result) => result.status >= 400 && result.status < 500).map((result) => `${result.status} ${String(result.json?.error ?? '')}`),
    ),
    noAnswer: results.filter((result) => result.status === 0).length,
    slowestMs: Math.max(0, ...results.map((result) => result.answered - result.sent)),
    slowestResourceMs: Math.max(0, ...results.filter((result) => result.kind === 'resource').map((result) => result.answered - result.sent)),
    slowestAssertionMs: Math.max(0, ...results.filter((result) => result.kind === 'assertion').map((result) => result.answered - result.sent)),
    answeredAfter10s: results.filter((result) => result.answered - result.sent > 10_000).length,
    secondsUntilTokensFlow: flowing.seconds,
    secondsUntilDatabaseWritable: writableAt === undefined ? undefined : (writableAt - faultAt) / 1000,
    // The server's own part: from the database taking writes through HAProxy to tokens flowing.
    secondsFromWritableToTokens:
      writableAt === undefined || flowing.seconds === undefined ? undefined : Math.round(faultAt + flowing.seconds * 1000 - writableAt) / 1000,
    secondsUntilTokensFlowAfterEtcdBack:
      fault.etcdBackAt && flowing.seconds !== undefined ? Math.max(0, (faultAt + flowing.seconds * 1000 - fault.etcdBackAt) / 1000) : undefined,
    recoveredWithinDrill: recoveredAt !== undefined || !flowing.failures,
    ...cross,
    instancesAlive: instances.every((instance) => !instance.entry.exited),
    statuses,
    timeline: timeline.filter(Boolean),
  };
  // DRILL_RESULTS=FOLDER: every answer of the failover (time from the fault, instance, kind,
  // status, 503 reason) and the write probe's samples, for a look at what slowed recovery.
  if (process.env.DRILL_RESULTS) {
    mkdirSync(process.env.DRILL_RESULTS, { recursive: true });
    const answers = results.map((result) => ({
      sent: result.sent - faultAt,
      answered: result.answered - faultAt,
      instance: result.instance,
      kind: result.kind,
      status: result.status,
      why: result.status === 200 ? undefined : (result.json?.error_description ?? result.error),
    }));
    const samples = probe.samples.map((sample) => ({ at: sample.at - faultAt, ok: sample.ok }));
    writeFileSync(join(process.env.DRILL_RESULTS, `${kind}.json`), JSON.stringify({ writableAt: writableAt - faultAt, answers, samples }));
  }
  return figures;
}

function verdict(figures) {
  const problems = [];
  if (figures.rowsMissing !== 0) problems.push(`${figures.rowsMissing} rows missing`);
  if (figures.replayedAccepted !== 0) problems.push(`${figures.replayedAccepted} replayed jtis accepted`);
  if (figures.other5xx !== 0) problems.push(`${figures.other5xx} 5xx other than 503`);
  if (figures.other4xx !== 0) problems.push(`${figures.other4xx} 4xx to the load's valid requests (${figures.reasons4xx})`);
  if (figures.noAnswer !== 0) problems.push(`${figures.noAnswer} requests without an answer`);
  if (figures.status503WithoutRetryAfter !== 0) problems.push(`${figures.status503WithoutRetryAfter} 503s without Retry-After`);
  if (!figures.instancesAlive) problems.push('an instance exited');
  if (figures.secondsUntilTokensFlow === undefined) problems.push('tokens did not flow again');
  if (figures.secondsFromWritableToTokens !== undefined && figures.secondsFromWritableToTokens > 5)
    problems.push(`tokens flowed ${figures.secondsFromWritableToTokens} s after the database took writes again (at most 5)`);
  if (figures.crossInstanceMs === undefined || figures.crossInstanceMs > 1_000)
    problems.push(`cross-instance change not seen within 1 s (${figures.crossInstanceMs ?? figures.crossInstanceStatus})`);
  return problems;
}

function print(figures) {
  const line = (label, value) => process.stdout.write(`  ${label.padEnd(40)} ${value}\n`);
  process.stdout.write(`\n== ${figures.kind} (primary was ${figures.from}, now ${figures.newPrimary}) ==\n`);
  line('requests sent', figures.requests);
  line('resource-scope tokens answered', figures.tokensAnswered);
  line('  their disclosure rows on the new primary', figures.disclosureRowsFound);
  line('private_key_jwt tokens answered', figures.assertionsAnswered);
  line('  their jti rows on the new primary', figures.jtiRowsFound);
  line('rows missing (must be 0)', figures.rowsMissing);
  line(
    'replayed jtis accepted (must be 0)',
    `${figures.replayedAccepted} of ${figures.assertionsAnswered} replayed from ${figures.replayedFrom} (${Object.entries(figures.replayStatuses)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ')})`,
  );
  line('503 temporarily_unavailable', figures.status503);
  line('  why', figures.reasons503);
  line('other 5xx (must be 0)', figures.other5xx);
  line('4xx (must be 0)', `${figures.other4xx}${figures.other4xx ? ` (${figures.reasons4xx})` : ''}`);
  line('no answer (must be 0)', figures.noAnswer);
  line('slowest answer', `${figures.slowestMs} ms (resource-scope ${figures.slowestResourceMs}, private_key_jwt ${figures.slowestAssertionMs})`);
  line('seconds until the database took writes', figures.secondsUntilDatabaseWritable);
  line('seconds until tokens flow again', figures.secondsUntilTokensFlow);
  line('  of which after the database took writes', figures.secondsFromWritableToTokens);
  if (figures.secondsUntilTokensFlowAfterEtcdBack !== undefined) line('  of which after etcd was back', figures.secondsUntilTokensFlowAfterEtcdBack);
  line('cross-instance admin change seen after', figures.crossInstanceMs === undefined ? String(figures.crossInstanceStatus) : `${figures.crossInstanceMs} ms`);
  line('  (its attempts on instance 2)', figures.crossInstanceAttempts ?? '');
  line('both instances still running', figures.instancesAlive);
  line(
    'answers per second from the fault (200/503/other)',
    figures.timeline.map((slot) => `${slot.second}s:${slot.ok}/${slot.unavailable}${slot.other ? `/${slot.other}` : ''}`).join(' '),
  );
  const problems = verdict(figures);
  line('verdict', problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`);
}

async function main() {
  const started = Date.now();
  if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('dist/src/main.js is missing: run `npm run build` (npm run drill:failover does)');
  if (process.getuid?.() !== 0) throw new Error('the drill runs as root: it starts PostgreSQL as the postgres user and kills its postmaster');
  const { issuer, superuserUrl } = await setUp();
  const world = await makeWorld();
  log(`set up in ${((Date.now() - started) / 1000).toFixed(1)} s; load ${RATE} token requests/s on two instances`);
  const all = [];
  for (const kind of KINDS) {
    if (!FAULTS[kind]) throw new Error(`unknown failover kind ${kind} (DRILL_KINDS: ${Object.keys(FAULTS).join(',')})`);
    const figures = await drill(kind, world, issuer, superuserUrl);
    print(figures);
    all.push(figures);
  }
  const failed = all.filter((figures) => verdict(figures).length > 0);
  process.stdout.write(`\n${failed.length === 0 ? 'PASS' : 'FAIL'}: ${all.length} failovers in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ passed: failed.length === 0, failovers: all }, null, 2));
  return failed.length === 0 ? 0 : 1;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  process.stderr.write(`drill failed: ${error.stack ?? error}\n`);
  for (const entry of children) {
    if (entry.exited && entry.code !== 0) process.stderr.write(`--- ${entry.name} exited (${entry.code ?? entry.signal}):\n${entry.output().slice(-3000)}\n`);
  }
  if (process.env.DRILL_VERBOSE) for (const entry of children) process.stderr.write(`--- ${entry.name}:\n${entry.output().slice(-3000)}\n`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
