// The console at scale (npm run bench:console): a fresh embedded database filled with 10,000
// clients, 2,000 resource definitions and 100,000 ticket records (bench/fill-database.mjs), our
// server, and Chromium driven by playwright-core. Prints, per screen, the time from navigation to
// its content being shown, and the time searches take to show their result. A benchmark, not a
// test: see bench/README.md ("The console at scale").
import { spawn } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { connectEmbedded, fillDatabase } from './fill-database.mjs';
import { freePort, within } from './lib/processes.mjs';
import { launchChromium } from '../test/support/chromium-binary.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 5);
const ADMIN_TOKEN = `bench-admin-${process.pid}-console-token`;

/** Our server on a fresh embedded database in its own process group (the database goes with it). */
async function startServer() {
  let [port, adminPort] = [await freePort(), await freePort()];
  while (adminPort === port) adminPort = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'oauth-bench-console-'));
  chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as user postgres
  mkdirSync(RESULTS_DIR, { recursive: true });
  const env = { ...process.env, PORT: String(port), ADMIN_PORT: String(adminPort), DATA_DIR: dataDir, ADMIN_TOKEN, ISSUER: `http://127.0.0.1:${port}` };
  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(path.join(RESULTS_DIR, 'console-server.log'));
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  // True once the server has exited (its exit code may be null: a signal).
  const exited = new Promise((resolve) => child.once('exit', () => resolve(true)));
  const stop = async () => {
    child.kill('SIGTERM');
    if (!(await within(exited, 20_000))) process.kill(-child.pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
    if (child.exitCode !== null) throw new Error(`the server exited during start (see bench/results/console-server.log)`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error('the server did not answer within 120 s');
    }
    const answer = await fetch(`${adminUrl}/console`).catch(() => undefined);
    if (answer?.ok) break;
  }
  return { adminUrl, dataDir, stop };
}

/** Milliseconds from `act` until `shown` resolves. */
async function timed(act, shown) {
  const start = performance.now();
  await act();
  await shown();
  return performance.now() - start;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** What each screen shows once its content is there. */
const SCREENS = [
  { name: 'Authorization server', shown: (page) => page.getByRole('table', { name: /Keys published/ }).waitFor() },
  {
    name: 'Resource definitions',
    shown: (page) => page.getByRole('table', { name: 'Resource definitions and their scopes' }).getByRole('rowheader').first().waitFor(),
  },
  { name: 'Data sources', shown: (page) => page.getByRole('table', { name: 'Data sources' }).getByRole('rowheader').first().waitFor() },
  {
    name: 'Clients',
    shown: (page) =>
      page
        .getByRole('table', { name: /^Clients \(10000\)$/ })
        .getByRole('rowheader')
        .first()
        .waitFor(),
  },
  { name: 'Consent tickets', shown: (page) => page.getByRole('list', { name: 'Tickets of all clients' }).getByRole('listitem').first().waitFor() },
  { name: 'Explain', shown: (page) => page.getByRole('combobox', { name: 'Client', exact: true }).waitFor() },
  { name: 'Audit trail', shown: (page) => page.getByRole('heading', { name: /^Audit trail, newest first/ }).waitFor() },
];

async function openScreen(page, name) {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name }).click();
}

/** One round: every screen once, then the searches. */
async function round(page, adminUrl, figures) {
  const add = (name, ms) => (figures[name] ??= []).push(ms);
  await page.goto(`${adminUrl}/console#/server`);
  add(
    'sign in → Authorization server',
    await timed(
      async () => {
        await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
        await page.getByRole('button', { name: 'Sign in' }).click();
      },
      () => SCREENS[0].shown(page),
    ),
  );
  for (const screen of SCREENS.slice(1))
    add(
      screen.name,
      await timed(
        () => openScreen(page, screen.name),
        () => screen.shown(page),
      ),
    );

  await openScreen(page, 'Clients');
  await SCREENS[3].shown(page);
  const wanted = `load-client-${1001 + Math.floor(Math.random() * 8998)}`; // 1000 would match 10000 too
  add(
    'Clients: search shows the client',
    await timed(
      () => page.getByRole('searchbox', { name: 'Search clients' }).fill(wanted),
      () =>
        page
          .getByRole('table', { name: /^Clients \(1 of 10000\)$/ })
          .getByRole('rowheader', { name: wanted })
          .waitFor(),
    ),
  );

  await openScreen(page, 'Consent tickets');
  await SCREENS[4].shown(page);
  const box = page.getByRole('combobox', { name: 'Client', exact: true });
  add(
    'Ticket form: Client picker offers matches',
    await timed(
      () => box.fill(wanted),
      () => page.getByRole('option', { name: wanted, exact: true }).waitFor(),
    ),
  );
  add(
    'Ticket form: Resource definition picker offers matches',
    await timed(
      () => page.getByRole('combobox', { name: 'Resource definition' }).fill('load-definition-19'),
      () => page.getByRole('option', { name: 'load-definition-19', exact: true }).waitFor(),
    ),
  );
  add(
    "Consent tickets: one client's tickets shown",
    await timed(
      async () => {
        const filters = page.getByRole('search', { name: 'Ticket filters' });
        await filters.getByRole('textbox', { name: 'Client' }).fill(wanted);
        await filters.getByRole('button', { name: 'Show' }).click();
      },
      () =>
        page
          .getByRole('list', { name: `Tickets of ${wanted}` })
          .getByText(`${wanted} may read blood-glucose-level`)
          .first()
          .waitFor(),
    ),
  );
  await page.getByRole('button', { name: 'Sign out' }).click();
}

async function main() {
  for (const file of ['dist/src/main.js', 'dist/console/app.js']) {
    if (!existsSync(path.join(ROOT, file))) throw new Error(`not built: ${file} is missing (npm run build)`);
  }
  console.log(
    `bench:console: ${os.cpus().length} CPUs, Node ${process.version}, load average ${os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  const server = await startServer();
  let browser;
  try {
    const db = await connectEmbedded(server.dataDir);
    const filling = performance.now();
    try {
      await fillDatabase(db, { scope: 'blood-glucose-level:read', extraDefinitions: 999 });
      const [
        {
          rows: [counts],
        },
      ] = [
        await db.query(`SELECT (SELECT count(*) FROM client) AS clients, (SELECT count(*) FROM resource_definition) AS definitions,
        (SELECT (SELECT count(*) FROM purpose) + (SELECT count(*) FROM capability_ticket) + (SELECT count(*) FROM requested_resource)
          + (SELECT count(*) FROM requested_resource_scopes) + (SELECT count(*) FROM requested_resources_capability_tickets)) AS ticket_records`),
      ];
      console.log(
        `filled in ${((performance.now() - filling) / 1000).toFixed(1)} s: ${counts.clients} clients, ${counts.definitions} resource definitions, ${counts.ticket_records} ticket records`,
      );
    } finally {
      await db.end();
    }
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const figures = {};
    await round(page, server.adminUrl, {}); // warm-up: the server's and the browser's first-time costs
    for (let index = 0; index < ROUNDS; index++) await round(page, server.adminUrl, figures);
    report(figures);
  } finally {
    await browser?.close();
    await server.stop();
  }
}

function report(figures) {
  const rows = Object.entries(figures).map(([name, values]) => [name, median(values), Math.max(...values)]);
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`\nmedian and slowest of ${ROUNDS} rounds (after one warm-up round), milliseconds:\n`);
  console.log(`| ${'what'.padEnd(width)} | median | slowest |`);
  console.log(`|${'-'.repeat(width + 2)}|-------:|--------:|`);
  for (const [name, middle, slowest] of rows) console.log(`| ${name.padEnd(width)} | ${middle.toFixed(0).padStart(6)} | ${slowest.toFixed(0).padStart(7)} |`);
  const over = rows.filter(([, middle]) => middle >= 1000).map(([name]) => name);
  console.log(over.length === 0 ? '\nevery median is under 1 s.' : `\nover 1 s: ${over.join(', ')}`);
}

try {
  await main();
} catch (error) {
  console.error(`bench:console: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
