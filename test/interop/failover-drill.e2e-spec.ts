import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One failover as the drill reports it (ops/drill/failover.mjs). */
type Failover = {
  kind: string;
  tokensAnswered: number;
  disclosureRowsFound: number;
  assertionsAnswered: number;
  jtiRowsFound: number;
  rowsMissing: number;
  replayedAccepted: number;
  status503: number;
  status503WithoutRetryAfter: number;
  other5xx: number;
  other4xx: number;
  noAnswer: number;
  answeredAfter10s: number;
  secondsUntilTokensFlow?: number;
  secondsFromWritableToTokens?: number;
  crossInstanceMs?: number;
  instancesAlive: boolean;
};

/**
 * The failover drill (docs/operations/high-availability.md) run whole: etcd, two Patroni nodes
 * with a synchronous standby, HAProxy and two server instances under token load, through a kill -9
 * of the primary, a switchover and an etcd stop. Needs root and Debian's patroni, etcd and haproxy
 * (the drill installs them when missing).
 */
describe('the failover drill', () => {
  const folder = mkdtempSync(join(tmpdir(), 'failover-drill-report-'));
  const report = join(folder, 'figures.json');
  let failovers: Failover[] = [];
  let output = '';

  beforeAll(async () => {
    const child = spawn(process.execPath, ['ops/drill/failover.mjs', '--json', report], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await new Promise((resolve) => child.on('exit', resolve));
    console.log(
      output
        .split('\n')
        .filter((line) => !line.startsWith('[drill'))
        .join('\n'),
    );
    failovers = (JSON.parse(readFileSync(report, 'utf8')) as { failovers: Failover[] }).failovers;
  }, 900_000);

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('runs a kill -9 of the primary, a switchover and an etcd stop', () => {
    expect(failovers.map((failover) => failover.kind)).toEqual(['kill-primary', 'switchover', 'etcd-stop']);
  });

  it('answers tokens of both kinds around every failover', () => {
    for (const failover of failovers) {
      expect(failover.tokensAnswered).toBeGreaterThan(0);
      expect(failover.assertionsAnswered).toBeGreaterThan(0);
    }
  });

  it('finds every answered token’s disclosure row and every accepted jti on the new primary', () => {
    for (const failover of failovers) {
      expect(failover.rowsMissing).toBe(0);
      expect(failover.disclosureRowsFound).toBe(failover.tokensAnswered);
      expect(failover.jtiRowsFound).toBe(failover.assertionsAnswered);
    }
  });

  it('accepts no replayed assertion after a failover', () => {
    for (const failover of failovers) expect(failover.replayedAccepted).toBe(0);
  });

  it('answers 503 with Retry-After meanwhile, never another 5xx, and leaves no request unanswered', () => {
    for (const failover of failovers) {
      expect(failover.other5xx).toBe(0);
      expect(failover.status503WithoutRetryAfter).toBe(0);
      expect(failover.noAnswer).toBe(0);
      expect(failover.answeredAfter10s).toBe(0);
    }
  });

  it('refuses none of the valid requests of the load with a 4xx', () => {
    for (const failover of failovers) expect(failover.other4xx).toBe(0);
  });

  it('serves tokens again after every failover, with both instances still running', () => {
    for (const failover of failovers) {
      expect(failover.secondsUntilTokensFlow).toBeDefined();
      expect(failover.instancesAlive).toBe(true);
    }
  });

  it('serves tokens within 5 s of the database taking durable writes again through HAProxy, without a restart', () => {
    for (const failover of failovers) expect(failover.secondsFromWritableToTokens ?? 0).toBeLessThanOrEqual(5);
  });

  it('shows an administrative change made on one instance on the other within 1 s', () => {
    for (const failover of failovers) {
      expect(failover.crossInstanceMs).toBeDefined();
      expect(failover.crossInstanceMs).toBeLessThanOrEqual(1_000);
    }
  });
});
