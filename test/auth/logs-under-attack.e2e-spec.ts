import { Writable } from 'node:stream';
import { FAILURES_PER_ADDRESS } from '../../src/auth/auth-throttle.js';
import { basic, createClient } from '../support/factories.js';
import { addressCount, Flood, loopbackAddress, sleep } from '../support/flood.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Logs under attack: refusals that protect the server (429, the slow-hash bound's 503) are
 * written at warn at most once a second per client and reason, with a count, and never as one
 * error line per request.
 */

type Line = { level: number; msg?: string; clientId?: string; reason?: string; refused?: number; res?: { statusCode: number }; time: string };

const lines: Line[] = [];
let server: TestApp;

beforeAll(async () => {
  const logs = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  server = await startTestApp({ LOG_LEVEL: 'info' }, { logs });
});

afterAll(() => server.close());

describe('a flood of wrong secrets for one client', () => {
  it('writes at most about one warn line a second per client and reason, with counts that add up, and no error line', async () => {
    const client = await createClient(server.app);
    const address = loopbackAddress();
    const from = lines.length;
    const started = Date.now();
    const flood = new Flood({
      urls: [server.url],
      address,
      form: () => ({ grant_type: 'client_credentials', scope: 'read' }),
      headers: (index) => ({ Authorization: basic(client.clientId, `wrong-secret-${index}`) }),
      connections: 8,
      pauseMs: 0,
    });
    try {
      // Until the address is over its own limit, then three more seconds of 429s.
      await eventually(async () => ((await addressCount(server.dataSource, address)) >= FAILURES_PER_ADDRESS ? true : undefined), 60_000, 100);
      await sleep(3_000);
    } finally {
      await flood.stop();
    }
    const seconds = (Date.now() - started) / 1000;
    // The last second's count is written when its window closes.
    await sleep(1_500);
    const ours = lines.slice(from);
    expect(ours.filter((line) => line.level >= 50)).toEqual([]);
    const warnings = ours.filter((line) => line.level === 40 && line.clientId === client.clientId);
    const reasons = new Set(warnings.map((line) => line.reason));
    expect(reasons.size).toBeGreaterThan(0);
    for (const reason of reasons) {
      const forReason = warnings.filter((line) => line.reason === reason);
      // One line at the first refusal, then at most one a second.
      expect(forReason.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    }
    // Every refusal is counted in some line; none is written as a request line at info or above.
    const refusals = flood.count(429) + flood.count(503);
    expect(refusals).toBeGreaterThan(warnings.length);
    expect(warnings.reduce((sum, line) => sum + (line.refused ?? 0), 0)).toBe(refusals);
    expect(ours.filter((line) => line.res !== undefined && [429, 503].includes(line.res.statusCode))).toEqual([]);
  }, 120_000);
});
