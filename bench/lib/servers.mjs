// Starting and stopping the servers a case measures: ours (`node dist/src/main.js` on a fresh
// embedded PostgreSQL in a temp DATA_DIR, its clients made first with `dist/src/cli.js`) and the
// peers (bench/oidc-provider-peer.mjs, bench/bare-http-peer.mjs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connectEmbedded, fillBenchTicket } from '../fill-database.mjs';
import { CLIENT_ID, DISCOVERY_PATH, REQUEST_BODY, RESOURCE_SCOPE, RESULTS_DIR } from './settings.mjs';
import { failStart, freePort, logPath, makeDataDir, notes, reapGroup, removeDataDir, startChild, stopChild, waitReady, within } from './processes.mjs';
import { basicAuth, benchServer, verifyToken } from './load.mjs';

/**
 * Our server on a fresh embedded database, with the bench client: `env` is added to its
 * environment, `prepare(dataDir, secrets)` runs once it is up (to seed data), then `body` is
 * measured (or the case measures with `measureWith`).
 */
export async function runOurs(
  alg,
  { name = 'ours', logName = 'ours', env: extraEnv = {}, setup, prepare, body = REQUEST_BODY, alongside, measureWith, extraClients = [] } = {},
) {
  return withOurDatabase(alg, extraEnv, async ({ env, baseUrl, dataDir }) => {
    const secret = await createClient(alg, env, logName);
    // `extraClients`: more clients made the same way before the start; their secrets go to `prepare` and `measureWith`.
    const secrets = {};
    for (const extra of extraClients) secrets[extra.clientId] = await createClient(alg, env, `${logName}-${extra.clientId}`, extra);
    // `setup(env, logName)`: more CLI work before the server starts; what it answers goes to `measureWith`.
    const prepared = setup ? await setup(alg, env, logName) : undefined;
    return withOurServer({ label: name, logName, alg, env, baseUrl, profile: true }, async (server) => {
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
    });
  });
}

/** Free ports, a temp DATA_DIR and our server's environment for `use`; the folder is removed afterwards. */
export async function withOurDatabase(alg, extraEnv, use) {
  let [port, adminPort] = [await freePort(), await freePort()];
  // Two probes in a row may get the same port back; the server refuses PORT = ADMIN_PORT.
  while (adminPort === port) adminPort = await freePort();
  const dataDir = makeDataDir();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), ADMIN_PORT: String(adminPort), DATA_DIR: dataDir, TOKEN_SIGNING_ALG: alg, ISSUER: baseUrl, ...extraEnv };
  try {
    return await use({ env, baseUrl, dataDir });
  } finally {
    removeDataDir(dataDir);
  }
}

/** Our server started, ready, handed to `use`, then stopped and its output scanned for trouble. */
export async function withOurServer({ label, logName, alg, env, baseUrl, profile = false }, use) {
  // BENCH_CPU_PROFILE=1: a V8 CPU profile of our server (start-up and warm-up included) per case.
  const profileArgs =
    profile && process.env.BENCH_CPU_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${path.join(RESULTS_DIR, 'profiles')}`, `--cpu-prof-name=${logName}-${alg}.cpuprofile`]
      : [];
  const server = startChild(`our server (${label})`, [...profileArgs, 'dist/src/main.js'], env, logPath(logName, alg));
  try {
    await waitReady(server, baseUrl + DISCOVERY_PATH, 120_000);
    return await use(server);
  } finally {
    await stopChild(server);
    scanServerLog(server, alg);
  }
}

async function createClient(alg, env, logName, { clientId = CLIENT_ID, scopes = `uma_protection read ${RESOURCE_SCOPE}` } = {}) {
  const args = ['client', 'create', '--client-id', clientId, '--name', 'Bench', '--scopes', scopes, '--json'];
  return (await cliJson(args, 'client_secret', alg, env, `${logName}-cli`)).client_secret;
}

/** An initial access token for the registration cases, made with the CLI before the server starts: 100,000 uses of scope `read`. */
export async function createFloodInitialAccessToken(alg, env, logName) {
  const args = ['initial-access-token', 'create', '--name', 'Bench flood', '--scopes', 'read', '--max-uses', '100000', '--expires-in', '86400', '--json'];
  return (await cliJson(args, 'token', alg, env, `${logName}-iat`)).token;
}

/** Runs our CLI (`args` after dist/src/cli.js) on the case's database: its process and exit (null: not within 120 s). */
export async function runCli(what, args, alg, env, logName) {
  const cli = startChild(`our CLI (${what})`, ['dist/src/cli.js', ...args], env, logPath(logName, alg));
  const exit = await within(cli.exited, 120_000);
  // The CLI may leave its database running; anything left in its group goes.
  await reapGroup(cli.name, cli.child.pid);
  return { cli, exit };
}

/** Runs our CLI on the case's database; answers the JSON line it printed holding `member`. */
async function cliJson(args, member, alg, env, logName) {
  const what = args.slice(0, 2).join(' ');
  const { cli, exit } = await runCli(what, args, alg, env, logName);
  if (!exit) throw failStart(cli, `${what} did not finish within 120 s`);
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

// Only the bench client's ticket for RESOURCE_SCOPE and its data source (the token's aud), so a
// case's figure is what a resource-scope token costs (its decision and its durable disclosure
// row), not the seeding.
export async function seedBenchTicket(dataDir) {
  const db = await connectEmbedded(dataDir);
  try {
    await fillBenchTicket(db, { benchClientId: CLIENT_ID });
  } finally {
    await db.end();
  }
}

/**
 * A peer (`script`, a file of bench/) on a free port, ready when `readyPath` answers `ok(status)`,
 * handed to `use(baseUrl, server)`, then stopped.
 */
export async function withPeer({ label, script, logName, alg, env, readyPath = DISCOVERY_PATH, ok }, use) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = startChild(label, [script], { PORT: String(port), ...env }, logPath(logName, alg));
  try {
    await waitReady(server, baseUrl + readyPath, 30_000, ok);
    return await use(baseUrl, server);
  } finally {
    await stopChild(server);
  }
}

/** panva's oidc-provider (bench/oidc-provider-peer.mjs) signing with `alg`, the bench client among its clients. */
export function withOidcProvider(label, logName, alg, env, use) {
  return withPeer({ label, script: 'bench/oidc-provider-peer.mjs', logName, alg, env: { TOKEN_SIGNING_ALG: alg, CLIENT_ID, ...env } }, use);
}
