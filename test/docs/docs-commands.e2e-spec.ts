import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { commandBlocks, runnablePages, type CommandBlock } from '../support/markdown.js';
import { cleanEnvironment, eventually, finished, lowFreePorts, startServerProcess } from '../support/processes.js';
import type { ChildProcess } from 'node:child_process';

const ROOT = join(import.meta.dirname, '../..');
const DONE = '@@docs-block-done@@';

/**
 * One page's `sh` and `js` blocks, as a newcomer would paste them into one terminal, in order:
 * only the server's ports and data folder are those of this test's server instead of 3000, 3001
 * and ./.data.
 */
function script(blocks: CommandBlock[], port: number, adminPort: number, dataDir: string): string {
  const adapt = (text: string) =>
    text
      .replaceAll('http://localhost:3000', `http://localhost:${port}`)
      .replaceAll('http://localhost:3001', `http://localhost:${adminPort}`)
      .replaceAll('.data/', `${dataDir}/`);
  const parts = blocks.map((block) => {
    const body = block.language === 'js' ? `node --input-type=module <<'DOCS_JS_EOF'\n${adapt(block.text)}\nDOCS_JS_EOF` : adapt(block.text);
    return `${body}\nprintf '\\n${DONE}\\n'`;
  });
  return ['set -euo pipefail', `cd ${JSON.stringify(ROOT)}`, ...parts].join('\n');
}

/** Files git would offer to add: what the blocks create must be ignored (.gitignore) or removed. */
function untrackedFiles(): string[] {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' }).stdout;
  return status
    .split('\n')
    .filter((line) => line.startsWith('?? '))
    .map((line) => line.slice(3));
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

const PAGES = runnablePages(ROOT);

describe('the command blocks of the README and of each guide, each page alone on a fresh server', () => {
  let server: FreshServer | undefined;

  afterEach(async () => {
    if (server) await stopServer(server);
    server = undefined;
  }, 60_000);

  it('finds the README, getting started and the guides', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/guides/consent-withdrawal.md', 'docs/guides/uma.md']));
  });

  it.each(PAGES)(
    'runs every block of %s in order, each exiting 0 without an error answer, leaving no untracked file',
    async (page) => {
      const blocks = commandBlocks(ROOT, page);
      server = await startFreshServer();
      const { port, adminPort, dataDir, environment } = server;
      const before = untrackedFiles();
      const run = await finished(
        spawn('bash', ['-c', script(blocks, port, adminPort, dataDir)], {
          env: cleanEnvironment(environment),
        }),
      );
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
      expect(untrackedFiles().filter((path) => !before.includes(path))).toEqual([]);
    },
    300_000,
  );
});
