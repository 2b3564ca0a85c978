// One failover of the drill, whatever its fault (ops/drill/scenarios/): a healthy cluster, a new
// private_key_jwt client, the load and the write probe for 3 s, the fault, the load until tokens
// flow again (at most 90 s) and 3 s more, then the checks; answers the failover's figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instances, primaryNode, waitForHealthyCluster } from './cluster.mjs';
import { checkRows, crossInstanceChange, replayAssertions, summarize } from './checks.mjs';
import { flowingAgainAt, startLoad, startWriteProbe, writableAgainAt } from './load.mjs';
import { httpStatus, sleep, waitFor } from './processes.mjs';
import { addKeyClient } from './world.mjs';

let failoverRound = 0;
export async function runFailover(scenario, world, issuer, superuserUrl) {
  await waitForHealthyCluster(120_000);
  for (const instance of instances) await waitFor(`${instance.name} ready`, async () => (await httpStatus(`${instance.url}/health/ready`)) === 200, 30_000);
  failoverRound += 1;
  await addKeyClient(world, failoverRound);
  const load = startLoad(world, issuer);
  const probe = startWriteProbe(superuserUrl);
  await sleep(3_000);
  const faultAt = Date.now();
  const fault = await scenario.fault();
  const recoveredAt = await untilTokensFlow(load.results, faultAt);
  await sleep(3_000);
  await Promise.all([load.stop(), probe.stop()]);
  const results = load.results;
  const writableAt = writableAgainAt(probe.samples, faultAt);
  const newPrimary = await waitFor('a primary after the failover', primaryNode, 60_000, 500);
  const rows = await checkRows(newPrimary, results);
  const replays = await replayAssertions(results);
  const cross = await crossInstanceChange(world);
  // DRILL_RESULTS=FOLDER: every answer of the failover and the write probe's samples.
  if (process.env.DRILL_RESULTS) writeAnswers(process.env.DRILL_RESULTS, scenario.kind, results, probe.samples, faultAt, writableAt);
  return figuresOf({ kind: scenario.kind, fault, newPrimary, results, faultAt, writableAt, recoveredAt, rows, replays, cross });
}

// Until the last 1.5 s held at least 10 answers, all 200, at least 2 s after the fault (at most
// 90 s): when that happened, or undefined.
async function untilTokensFlow(results, faultAt) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    await sleep(250);
    const recent = results.filter((result) => result.answered > Date.now() - 1_500 && result.sent > faultAt);
    const sinceFault = Date.now() - faultAt;
    if (sinceFault > 2_000 && recent.length >= 10 && recent.every((result) => result.status === 200)) return Date.now();
  }
  return undefined;
}

function figuresOf({ kind, fault, newPrimary, results, faultAt, writableAt, recoveredAt, rows, replays, cross }) {
  const flowing = flowingAgainAt(results, faultAt);
  const statuses = {};
  for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1;
  const unavailable = results.filter((result) => result.status === 503);
  const clientErrors = results.filter((result) => result.status >= 400 && result.status < 500);
  const slowest = (kindOf) => Math.max(0, ...results.filter((result) => !kindOf || result.kind === kindOf).map((result) => result.answered - result.sent));
  return {
    kind,
    from: fault.from,
    newPrimary: newPrimary.name,
    requests: results.length,
    ...rows,
    ...replays,
    status503: unavailable.length,
    reasons503: summarize(unavailable.map((result) => `"${String(result.json?.error_description).slice(0, 50)}"`)),
    status503WithoutRetryAfter: unavailable.filter((result) => !result.retryAfter).length,
    other5xx: results.filter((result) => result.status >= 500 && result.status !== 503).length,
    other4xx: clientErrors.length,
    reasons4xx: summarize(clientErrors.map((result) => `${result.status} ${String(result.json?.error ?? '')}`)),
    noAnswer: results.filter((result) => result.status === 0).length,
    slowestMs: slowest(),
    slowestResourceMs: slowest('resource'),
    slowestAssertionMs: slowest('assertion'),
    answeredAfter10s: results.filter((result) => result.answered - result.sent > 10_000).length,
    secondsUntilTokensFlow: flowing.seconds,
    secondsUntilDatabaseWritable: writableAt === undefined ? undefined : (writableAt - faultAt) / 1000,
    // The server's own part: from the database taking writes through HAProxy to tokens flowing.
    secondsFromWritableToTokens:
      writableAt === undefined || flowing.seconds === undefined ? undefined : Math.round(faultAt + flowing.seconds * 1000 - writableAt) / 1000,
    secondsUntilTokensFlowAfterEtcdBack:
      fault.etcdBackAt && flowing.seconds !== undefined ? Math.max(0, (faultAt + flowing.seconds * 1000 - fault.etcdBackAt) / 1000) : undefined,
    recoveredWithinDrill: recoveredAt !== undefined || !flowing.failures,
    ...cross,
    instancesAlive: instances.every((instance) => !instance.entry.exited),
    statuses,
    timeline: timeline(results, faultAt),
  };
}

// Second by second from the fault, by the time each answer came: 200s, 503s and others per second.
function timeline(results, faultAt) {
  const slots = [];
  for (const result of results) {
    const second = Math.floor((result.answered - faultAt) / 1000);
    if (second < -1) continue;
    const slot = (slots[second + 1] ??= { second, ok: 0, unavailable: 0, other: 0 });
    if (result.status === 200) slot.ok += 1;
    else if (result.status === 503) slot.unavailable += 1;
    else slot.other += 1;
  }
  return slots.filter(Boolean);
}

// Every answer (time from the fault, instance, kind, status, 503 reason) and the write probe's
// samples, in FOLDER/KIND.json, for a look at what slowed recovery.
function writeAnswers(folder, kind, results, probeSamples, faultAt, writableAt) {
  mkdirSync(folder, { recursive: true });
  const answers = results.map((result) => ({
    sent: result.sent - faultAt,
    answered: result.answered - faultAt,
    instance: result.instance,
    kind: result.kind,
    status: result.status,
    why: result.status === 200 ? undefined : (result.json?.error_description ?? result.error),
  }));
  const samples = probeSamples.map((sample) => ({ at: sample.at - faultAt, ok: sample.ok }));
  writeFileSync(join(folder, `${kind}.json`), JSON.stringify({ writableAt: writableAt - faultAt, answers, samples }));
}
