#!/usr/bin/env node
// The failover drill (docs/operations/high-availability.md): on this machine, etcd, two Patroni
// nodes of PostgreSQL (synchronous_mode_strict), HAProxy with Patroni's REST checks, and two
// instances of the server behind it, under token load; then, in turn, the primary's postmaster
// killed with SIGKILL, a switchover with patronictl, and an etcd stop. For each it prints what was
// answered, what is on the new primary, and how long tokens stopped. It exits 0 only when nothing
// was lost, no replayed jti was accepted and no 5xx other than 503 was answered.
//
//   npm run drill:failover            (builds the server first)
//   node ops/drill/failover.mjs --json FILE   also writes the figures as JSON
//   DRILL_BASE_PORT=25000 npm run drill:failover   fixed ports 25000-25010 instead of random ones
//
// Runs as root (PostgreSQL itself runs as the `postgres` user); installs patroni, etcd-server,
// etcd-client, haproxy and postgresql-15 with apt-get when they are missing. Everything listens on
// 127.0.0.1, below port 32768; everything it starts is stopped and its temp folder removed.
//
// This file runs the scenarios of ops/drill/scenarios/ (one file per fault) in the order
// DRILL_KINDS names them; ops/drill/lib/ holds the set (cluster.mjs), the load, the checks and
// the report they share.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUp, ROOT, setUp } from './lib/cluster.mjs';
import { RATE } from './lib/load.mjs';
import { children, log } from './lib/processes.mjs';
import { print, verdict } from './lib/report.mjs';
import { runFailover } from './lib/round.mjs';
import { makeWorld } from './lib/world.mjs';
import killPrimary from './scenarios/kill-primary.mjs';
import switchover from './scenarios/switchover.mjs';
import etcdStop from './scenarios/etcd-stop.mjs';

const SCENARIOS = Object.fromEntries([killPrimary, switchover, etcdStop].map((scenario) => [scenario.kind, scenario]));
const argv = process.argv.slice(2);
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : undefined;
const KINDS = (process.env.DRILL_KINDS ?? 'kill-primary,switchover,etcd-stop').split(',').filter(Boolean);

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function main() {
  const started = Date.now();
  if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('dist/src/main.js is missing: run `npm run build` (npm run drill:failover does)');
  if (process.getuid?.() !== 0) throw new Error('the drill runs as root: it starts PostgreSQL as the postgres user and kills its postmaster');
  const { issuer, superuserUrl } = await setUp();
  const world = await makeWorld();
  log(`set up in ${((Date.now() - started) / 1000).toFixed(1)} s; load ${RATE} token requests/s on two instances`);
  const all = [];
  for (const kind of KINDS) {
    if (!SCENARIOS[kind]) throw new Error(`unknown failover kind ${kind} (DRILL_KINDS: ${Object.keys(SCENARIOS).join(',')})`);
    const figures = await runFailover(SCENARIOS[kind], world, issuer, superuserUrl);
    print(figures);
    all.push(figures);
  }
  const failed = all.filter((figures) => verdict(figures).length > 0);
  process.stdout.write(`\n${failed.length === 0 ? 'PASS' : 'FAIL'}: ${all.length} failovers in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ passed: failed.length === 0, failovers: all }, null, 2));
  return failed.length === 0 ? 0 : 1;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  process.stderr.write(`drill failed: ${error.stack ?? error}\n`);
  for (const entry of children) {
    if (entry.exited && entry.code !== 0) process.stderr.write(`--- ${entry.name} exited (${entry.code ?? entry.signal}):\n${entry.output().slice(-3000)}\n`);
  }
  if (process.env.DRILL_VERBOSE) for (const entry of children) process.stderr.write(`--- ${entry.name}:\n${entry.output().slice(-3000)}\n`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
