import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { commandBlocks, runnablePages, type CommandBlock } from '../support/markdown.js';
import { cleanEnvironment, eventually, finished, lowFreePorts, startServerProcess } from '../support/processes.js';
import type { ChildProcess } from 'node:child_process';

const ROOT = join(import.meta.dirname, '../..');
const DONE = '@@docs-block-done@@';

/**
 * One page's `sh` and `js` blocks, as a newcomer would paste them into one terminal, in order:
 * only the server's ports and data folder are those of this test's server instead of 3000, 3001
 * and ./.data, and the ports 3443 and 3444 of a second server a page starts itself (mutual TLS
 * needs a listener of its own) are free ones of this run.
 */
function script(blocks: CommandBlock[], ports: Ports, dataDir: string, cwd: string): string {
  const adapt = (text: string) =>
    text
      .replaceAll('http://localhost:3000', `http://localhost:${ports.port}`)
      .replaceAll('http://localhost:3001', `http://localhost:${ports.adminPort}`)
      .replace(/\b3443\b/g, String(ports.secondPort))
      .replace(/\b3444\b/g, String(ports.secondAdminPort))
      .replaceAll('.data/', `${dataDir}/`);
  const parts = blocks.map((block) => {
    const body = block.language === 'js' ? `node --input-type=module <<'DOCS_JS_EOF'\n${adapt(block.text)}\nDOCS_JS_EOF` : adapt(block.text);
    return `${body}\nprintf '\\n${DONE}\\n'`;
  });
  return ['set -euo pipefail', `cd ${JSON.stringify(cwd)}`, ...parts].join('\n');
}

type Ports = { port: number; adminPort: number; secondPort: number; secondAdminPort: number };

const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout;

/**
 * A fresh clone of the checkout as it is now: its tracked files only (with their working-tree
 * contents, so uncommitted work is what runs), the installed node_modules linked and the built
 * dist copied, and a git repository of its own in which nothing is tracked yet. A file another
 * guide left, or an untracked file of the checkout, is not there to make a page pass.
 */
async function freshClone(): Promise<string> {
  const clone = await mkdtemp(join(tmpdir(), 'authorization-server-clone-'));
  for (const path of git(ROOT, 'ls-files', '-z').split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, path))) continue; // deleted in the working tree, not yet committed
    await mkdir(dirname(join(clone, path)), { recursive: true });
    await cp(join(ROOT, path), join(clone, path), { verbatimSymlinks: true });
  }
  await symlink(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  await cp(join(ROOT, 'dist'), join(clone, 'dist'), { recursive: true });
  git(clone, 'init', '-q');
  return clone;
}

/** Files git would offer to add in `cwd`: what the blocks create must be ignored (.gitignore) or removed. */
function untrackedFiles(cwd: string): string[] {
  return git(cwd, 'ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean);
}

/**
 * A server of its own, as fresh as after a clone: a new server process on a new, empty database
 * (created in the test run's PostgreSQL, so no cluster is initialised per page) with its own
 * ports, and a data folder holding only the admin token, where the pages read it (.data/admin-token).
 */
type FreshServer = { process: ChildProcess; port: number; adminPort: number; dataDir: string; database: string; environment: Record<string, string> };

async function withAdminConnection<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function startFreshServer(): Promise<FreshServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-docs-'));
  const database = `docs_${randomBytes(6).toString('hex')}`;
  await withAdminConnection((client) => client.query(`CREATE DATABASE ${database}`));
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${database}`;
  const adminTokenFile = join(dataDir, 'admin-token');
  await writeFile(adminTokenFile, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  const [port, adminPort] = await lowFreePorts();
  // The CLI the pages run reads the same database and token as the server.
  const environment = { DATA_DIR: dataDir, DATABASE_URL: url.toString(), ADMIN_TOKEN_FILE: adminTokenFile };
  const child = startServerProcess({ ...environment, PORT: String(port), ADMIN_PORT: String(adminPort) });
  const started: FreshServer = { process: child, port, adminPort, dataDir, database, environment };
  try {
    await eventually(async () => ((await request(`http://127.0.0.1:${port}`).get('/health/ready')).status === 200 ? true : undefined), 90_000, 250);
  } catch (error) {
    await stopServer(started);
    throw error;
  }
  return started;
}

async function stopServer(server: FreshServer): Promise<void> {
  if (server.process.exitCode === null && server.process.signalCode === null) {
    const exit = finished(server.process);
    server.process.kill('SIGTERM');
    await exit;
  }
  await withAdminConnection((client) => client.query(`DROP DATABASE IF EXISTS ${server.database} WITH (FORCE)`));
  await rm(server.dataDir, { recursive: true, force: true });
}

// DOCS_PAGE=docs/guides/mtls.md runs that page alone (while writing a guide); several: comma-separated.
const PAGES = runnablePages(ROOT).filter((page) => process.env.DOCS_PAGE === undefined || process.env.DOCS_PAGE.split(',').includes(page));

describe('the command blocks of the README and of each guide, each page alone on a fresh server', () => {
  let server: FreshServer | undefined;
  let clone: string | undefined;

  afterEach(async () => {
    if (server) await stopServer(server);
    server = undefined;
    if (clone) await rm(clone, { recursive: true, force: true });
    clone = undefined;
  }, 60_000);

  it('finds the README, getting started and the guides', () => {
    expect(runnablePages(ROOT)).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/guides/consent-withdrawal.md', 'docs/guides/uma.md']));
  });

  it.each(PAGES)(
    'runs every block of %s in order in a fresh clone, each exiting 0 without an error answer, leaving no untracked file',
    async (page) => {
      const blocks = commandBlocks(ROOT, page);
      server = await startFreshServer();
      clone = await freshClone();
      const { port, adminPort, dataDir, environment } = server;
      const [secondPort, secondAdminPort] = await lowFreePorts();
      const before = untrackedFiles(clone);
      const checkoutBefore = untrackedFiles(ROOT);
      // A group of its own: whatever a page starts in the background and leaves running is stopped with it.
      const shell = spawn('bash', ['-c', script(blocks, { port, adminPort, secondPort, secondAdminPort }, dataDir, clone)], { env: cleanEnvironment(environment), detached: true });
      const run = await finished(shell);
      try {
        process.kill(-shell.pid!, 'SIGTERM');
      } catch {
        // nothing of the page's is left running
      }
      const outputs = run.stdout.split(`\n${DONE}\n`);
      const completed = outputs.length - 1;
      const failed = blocks[completed];
      const where = failed ? `${failed.page}:${failed.line}` : 'none';
      expect({ code: run.code, failedBlock: where, stderr: run.code === 0 ? '' : run.stderr.slice(-2000) + run.stdout.slice(-1000) }).toEqual({
        code: 0,
        failedBlock: 'none',
        stderr: '',
      });
      blocks.forEach((block, index) => {
        // An error document in a block's output is a failure too, even when the block exits 0
        // (unless the block checks each status itself and shows an error answer on purpose).
        const output = outputs[index] ?? '';
        const errorAnswer = !block.checksStatus && /"errors"\s*:|"error"\s*:\s*"/.test(output) ? output.slice(0, 500) : '';
        expect({ block: `${block.page}:${block.line}`, errorAnswer }).toEqual({ block: `${block.page}:${block.line}`, errorAnswer: '' });
      });
      expect(untrackedFiles(clone).filter((path) => !before.includes(path))).toEqual([]);
      // Nor does anything land in the checkout the clone was made from.
      expect(untrackedFiles(ROOT).filter((path) => !checkoutBefore.includes(path))).toEqual([]);
    },
    300_000,
  );
});
