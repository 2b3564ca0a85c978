// The set the drill runs against, on 127.0.0.1 in a temporary folder: etcd, two Patroni nodes of
// PostgreSQL (their configuration from ops/ha/patroni.yml), HAProxy (ops/ha/haproxy.cfg) with
// Patroni's REST checks, and two instances of the server behind it; and its clean-up.
import { randomBytes } from 'node:crypto';
import { mkdirSync, chmodSync, chownSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensurePackages, fill, freePorts, postgresBinDir, postgresUser, which } from './machine.mjs';
import { alive, children, httpStatus, log, postmasterPid, removeWorkDir, setWorkDir, sleep, start, stopEntry, waitFor } from './processes.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HA = join(ROOT, 'ops', 'ha');

export const nodes = [];
export const instances = [];
export const secrets = {
  superuser: randomBytes(12).toString('hex'),
  replication: randomBytes(12).toString('hex'),
  app: randomBytes(12).toString('hex'),
  admin: `drill-admin-${randomBytes(16).toString('hex')}`,
};
let etcd;
let etcdArgs;

/** Starts everything; answers the database's URL for the server, the issuer and the superuser's URL through HAProxy. */
export async function setUp() {
  ensurePackages();
  const owner = postgresUser();
  const binDir = postgresBinDir();
  const workDir = mkdtempSync(join(tmpdir(), 'failover-drill-'));
  chmodSync(workDir, 0o755);
  setWorkDir(workDir);
  const [etcdClient, etcdPeer, rest1, rest2, pg1, pg2, haproxy, public1, admin1, public2, admin2] = await freePorts(11);
  log(`work folder ${workDir}; etcd ${etcdClient}, Patroni REST ${rest1}/${rest2}, PostgreSQL ${pg1}/${pg2}, HAProxy ${haproxy}`);
  await startFirstEtcd(workDir, etcdClient, etcdPeer);
  await startNodes(workDir, etcdClient, owner, binDir, [
    [rest1, pg1],
    [rest2, pg2],
  ]);
  const superuserUrl = await startHaproxy(workDir, haproxy);
  await createApplicationDatabase(superuserUrl);
  const databaseUrl = `postgres://authz:${secrets.app}@127.0.0.1:${haproxy}/authz`;
  const issuer = `http://127.0.0.1:${public1}`;
  await startInstances(workDir, databaseUrl, issuer, [
    [public1, admin1],
    [public2, admin2],
  ]);
  return { databaseUrl, issuer, superuserUrl };
}

async function startFirstEtcd(workDir, clientPort, peerPort) {
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  etcdArgs = [
    '--name',
    'drill',
    '--data-dir',
    join(workDir, 'etcd'),
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
}

/** etcd, with the arguments of its first start, once it answers its health check. */
export async function startEtcd() {
  etcd = start('etcd', which('etcd'), etcdArgs);
  await waitFor('etcd', async () => (await httpStatus(`${etcdArgs.clientUrl}/health`)) === 200, 30_000);
}

export async function stopEtcd() {
  await stopEntry(etcd);
}

async function startNodes(workDir, etcdPort, owner, binDir, ports) {
  const template = readFileSync(join(HA, 'patroni.yml'), 'utf8');
  for (const [index, [rest, port]] of ports.entries()) {
    const name = `node${index + 1}`;
    const nodeDir = join(workDir, name);
    mkdirSync(nodeDir, { mode: 0o700 });
    chownSync(nodeDir, owner.uid, owner.gid);
    const dataDir = join(nodeDir, 'data');
    const config = fill(template, {
      SCOPE: 'drill',
      NAME: name,
      REST_PORT: rest,
      ETCD_PORT: etcdPort,
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
}

/** How a command runs as the node's owner (the postgres user), in the node's folder. */
export function asPostgres(node) {
  return {
    uid: node.owner.uid,
    gid: node.owner.gid,
    cwd: node.nodeDir,
    env: { PATH: process.env.PATH, HOME: node.nodeDir, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
  };
}

function startPatroni(node) {
  node.patroni = start(`patroni-${node.name}`, which('patroni'), [node.configFile], asPostgres(node));
}

async function startHaproxy(workDir, port) {
  const servers = nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} maxconn 300 check port ${node.rest}`).join('\n');
  const haproxyFile = join(workDir, 'haproxy.cfg');
  writeFileSync(haproxyFile, fill(readFileSync(join(HA, 'haproxy.cfg'), 'utf8'), { HAPROXY_PORT: port, SERVERS: servers }));
  start('haproxy', which('haproxy'), ['-f', haproxyFile, '-db']);
  const superuserUrl = `postgres://postgres:${secrets.superuser}@127.0.0.1:${port}/postgres`;
  await waitFor(
    'HAProxy routing to the primary',
    () =>
      withPostgres({ connectionString: superuserUrl, connectionTimeoutMillis: 2_000 }, async (client) => {
        const { rows } = await client.query('SELECT pg_is_in_recovery() AS standby');
        return rows[0].standby === false;
      }),
    30_000,
  );
  return superuserUrl;
}

// The application's own role and database, through HAProxy like everything else. Retried: for a
// moment after its bootstrap the new primary may still refuse writes.
async function createApplicationDatabase(superuserUrl) {
  await waitFor(
    "the application's role and database",
    () =>
      withPostgres({ connectionString: superuserUrl, connectionTimeoutMillis: 2_000 }, async (setup) => {
        const { rows } = await setup.query("SELECT 1 FROM pg_roles WHERE rolname = 'authz'");
        if (rows.length === 0) await setup.query(`CREATE ROLE authz LOGIN PASSWORD '${secrets.app}'`);
        await setup.query('CREATE TABLE IF NOT EXISTS drill_probe (at timestamptz NOT NULL)');
        const databases = await setup.query("SELECT 1 FROM pg_database WHERE datname = 'authz'");
        if (databases.rows.length === 0) await setup.query('CREATE DATABASE authz OWNER authz');
        return true;
      }),
    60_000,
    500,
  );
}

async function startInstances(workDir, databaseUrl, issuer, ports) {
  for (const [index, [port, adminPort]] of ports.entries()) {
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
}

/** A PostgreSQL connection for `use`, ended afterwards whatever happens; its errors are `use`'s or connect's to throw. */
export async function withPostgres(connection, use) {
  const client = new pg.Client(connection);
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function primaryNode() {
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
export async function waitForHealthyCluster(timeoutMs) {
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

let cleaned = false;
export async function cleanUp() {
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
  removeWorkDir();
}
