import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { commandBlocks, runnablePages, type CommandBlock } from './support/markdown.js';
import { cleanEnvironment, eventually, finished, lowFreePorts, startServerProcess } from './support/processes.js';
import type { ChildProcess } from 'node:child_process';

const ROOT = join(import.meta.dirname, '..');
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

/** A server of its own: a fresh data folder (so a fresh embedded PostgreSQL) and its own ports. */
type FreshServer = { process: ChildProcess; port: number; adminPort: number; dataDir: string };

async function startFreshServer(): Promise<FreshServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-docs-'));
  await chmod(dataDir, 0o755);
  const [port, adminPort] = await lowFreePorts();
  const child = startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) });
  const started: FreshServer = { process: child, port, adminPort, dataDir };
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
      const { port, adminPort, dataDir } = server;
      const before = untrackedFiles();
      const run = await finished(
        spawn('bash', ['-c', script(blocks, port, adminPort, dataDir)], {
          env: cleanEnvironment({ DATA_DIR: dataDir }),
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
        // An error document in a block's output is a failure too, even when the block exits 0.
        const output = outputs[index] ?? '';
        const errorAnswer = /"errors"\s*:|"error"\s*:\s*"/.test(output) ? output.slice(0, 500) : '';
        expect({ block: `${block.page}:${block.line}`, errorAnswer }).toEqual({ block: `${block.page}:${block.line}`, errorAnswer: '' });
      });
      expect(untrackedFiles().filter((path) => !before.includes(path))).toEqual([]);
    },
    300_000,
  );
});
