// What the cases that measure a known client beside a flood share (key-flood, register-flood):
// the client's token requests one at a time, calm, then while a flooding process runs.
import { Agent, request as httpRequest } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCpuMeasurement } from '../proc-cpu.mjs';
import { config, REQUEST_BODY, TOKEN_PATH } from './settings.mjs';
import { logPath, notes, startChild, stopAttacker } from './processes.mjs';
import { tokenRequestHeaders, verifyToken } from './load.mjs';

// The addresses a flood sends from in turn (X-Forwarded-For), each under its limit.
export const FLOOD_ADDRESSES = 40;

/**
 * The known client's token requests one at a time, calm for BENCH_DURATION seconds, then as long
 * again while `flood.script` (a process of its own, `flood.connections` connections) floods the
 * server: both medians, the flood's summary line and roughly the server's CPU per flooding request.
 */
export async function measureBesideFlood(name, alg, baseUrl, auth, server, flood) {
  const { bodyBytes } = await verifyToken(name, baseUrl, auth, alg);
  const url = baseUrl + TOKEN_PATH;
  console.log(`${alg}  measuring ${name}: calm, then beside ${flood.connections} flooding connection(s) ...`);
  if (config.warmup > 0) await sequentialLatencies(url, auth, config.warmup);
  const calmCpu = startCpuMeasurement(server.child.pid);
  const calm = await sequentialLatencies(url, auth, config.duration);
  const calmUsed = calmCpu.stop();
  const env = { ...flood.env, FLOOD_CONNECTIONS: String(flood.connections) };
  const attacker = startChild(flood.what, [flood.script], env, logPath(path.basename(flood.script, '.mjs'), alg));
  let duringFlood;
  let used;
  let line;
  try {
    // The flood's first second (its start-up) is not measured.
    await sleep(1_000);
    const cpu = startCpuMeasurement(server.child.pid);
    duringFlood = await sequentialLatencies(url, auth, config.duration);
    used = cpu.stop();
  } finally {
    line = await stopAttacker(attacker);
  }
  notes.push(`${flood.what} (${alg}, ${flood.connections} connection(s)): ${line || 'no summary'}`);
  for (const [phase, r] of [
    ['calm', calm],
    ['during the flood', duringFlood],
  ]) {
    if (r.non2xx > 0) console.warn(`WARNING ${alg} ${name}: ${r.non2xx} non-2xx answers to the known client ${phase}`);
  }
  let floodSummary = null;
  try {
    floodSummary = JSON.parse(line);
  } catch {
    // No summary: noted above.
  }
  // The server's CPU for one flooding request, roughly: its CPU during the flood, less what the
  // known client's requests of that window cost at the calm rate, over the flood's requests.
  const perKnownRequest = calmUsed.serverCpuSeconds / Math.max(1, calm.requests);
  const floodRequests = (floodSummary?.perSecond ?? 0) * config.duration;
  const microsPerFloodRequest = floodRequests > 0 ? ((used.serverCpuSeconds - duringFlood.requests * perKnownRequest) * 1e6) / floodRequests : null;
  return {
    bodyBytes,
    ...duringFlood,
    calm: { ...calm, cpu: calmUsed },
    flood: floodSummary ? { ...floodSummary, microsPerFloodRequest } : null,
    cpu: { ...used, microsPerResponse: null },
  };
}

/**
 * The known client's token requests one at a time for `seconds`, over one kept-alive connection,
 * each timed from sending to the last byte of the answer: the median of single requests is what
 * a flood must not multiply (autocannon's whole-millisecond latencies are too coarse for it).
 */
async function sequentialLatencies(url, auth, seconds) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { ...tokenRequestHeaders(auth), 'content-length': Buffer.byteLength(REQUEST_BODY) };
  const latencies = [];
  let non2xx = 0;
  const deadline = Date.now() + seconds * 1000;
  try {
    while (Date.now() < deadline) {
      const started = process.hrtime.bigint();
      const status = await new Promise((resolve, reject) => {
        const outgoing = httpRequest(url, { method: 'POST', agent, headers }, (incoming) => {
          incoming.resume();
          incoming.on('end', () => resolve(incoming.statusCode));
          incoming.on('error', reject);
        });
        outgoing.on('error', reject);
        outgoing.end(REQUEST_BODY);
      });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (status < 200 || status > 299) non2xx += 1;
    }
  } finally {
    agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    requests: latencies.length,
    non2xx,
    perSecond: (latencies.length - non2xx) / seconds,
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies.at(-1), mean: latencies.reduce((a, b) => a + b, 0) / latencies.length },
  };
}
