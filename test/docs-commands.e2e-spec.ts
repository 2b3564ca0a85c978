import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { commandBlocks, runOrder, type CommandBlock } from './support/markdown.js';
import { cleanEnvironment, eventually, finished, startServerProcess } from './support/processes.js';
import { createServer, type Server } from 'node:net';
import type { ChildProcess } from 'node:child_process';

const ROOT = join(import.meta.dirname, '..');
const DONE = '@@docs-block-done@@';

/**
 * The README's and the guides' `sh` and `js` blocks, as a newcomer would paste them into one
 * terminal, in reading order: only the server's ports and data folder are those of this test's
 * server instead of 3000, 3001 and ./.data.
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
/** Two ports free right now below Linux's ephemeral range (32768+), where no outgoing connection can take them first. */
async function lowFreePorts(): Promise<[number, number]> {
  const held: Server[] = [];
  try {
    while (held.length < 2) {
      const candidate = 20_000 + Math.floor(Math.random() * 12_000);
      const probe = createServer();
      const bound = await new Promise<boolean>((done) => {
        probe.once('error', () => done(false));
        probe.listen(candidate, '127.0.0.1', () => done(true));
      });
      if (bound) held.push(probe);
    }
    return held.map((probe) => (probe.address() as { port: number }).port) as [number, number];
  } finally {
    await Promise.all(held.map((probe) => new Promise((done) => probe.close(done))));
  }
}

function untrackedFiles(): string[] {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' }).stdout;
  return status
    .split('\n')
    .filter((line) => line.startsWith('?? '))
    .map((line) => line.slice(3));
}

describe('the command blocks of the README and the guides', () => {
  let dataDir: string;
  let server: ChildProcess;
  let port: number;
  let adminPort: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-docs-'));
    await chmod(dataDir, 0o755);
    [port, adminPort] = await lowFreePorts();
    server = startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) });
    await eventually(async () => ((await request(`http://127.0.0.1:${port}`).get('/health/ready')).status === 200 ? true : undefined), 90_000, 250);
  }, 120_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      const exit = finished(server);
      server.kill('SIGTERM');
      await exit;
    }
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs every block in reading order on a fresh server, each exiting 0 without an error answer, leaving no untracked file', async () => {
    const blocks = runOrder(ROOT).flatMap((page) => commandBlocks(ROOT, page));
    expect(blocks.length).toBeGreaterThan(10);
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
    expect({ code: run.code, failedBlock: where, stderr: run.code === 0 ? '' : run.stderr.slice(-2000) }).toEqual({ code: 0, failedBlock: 'none', stderr: '' });
    blocks.forEach((block, index) => {
      // curl -s prints error answers and exits 0: an error document in a block's output is a failure too.
      const output = outputs[index] ?? '';
      const errorAnswer = /"errors"\s*:|"error"\s*:\s*"/.test(output) ? output.slice(0, 500) : '';
      expect({ block: `${block.page}:${block.line}`, errorAnswer }).toEqual({ block: `${block.page}:${block.line}`, errorAnswer: '' });
    });
    expect(untrackedFiles().filter((path) => !before.includes(path))).toEqual([]);
  }, 600_000);
});
