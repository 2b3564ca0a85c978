// Token endpoint benchmark: our server vs panva's oidc-provider vs a bare
// node:http server, one at a time, client credentials grant, JWT access tokens.
// Usage: npm run bench   (see bench/README.md for the knobs)
// This file runs the cases of bench/cases/ (one file each) for every alg and prints the report;
// what they share lives in bench/lib/.
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config, RESULTS_DIR, ROOT } from './lib/settings.mjs';
import { cleanup, cleanUpOnExit, StartError } from './lib/processes.mjs';
import { loadAvg, printReport, writeJson } from './lib/report.mjs';
import ours from './cases/ours.mjs';
import nostatus from './cases/nostatus.mjs';
import statuslist from './cases/statuslist.mjs';
import tickets from './cases/tickets.mjs';
import disclosures from './cases/disclosures.mjs';
import exchange from './cases/exchange.mjs';
import proxy from './cases/proxy.mjs';
import mtls from './cases/mtls.mjs';
import workers2 from './cases/workers2.mjs';
import flood from './cases/flood.mjs';
import keyFlood from './cases/key-flood.mjs';
import registerFlood from './cases/register-flood.mjs';
import register from './cases/register.mjs';
import oidcProvider from './cases/oidc-provider.mjs';
import bare from './cases/bare.mjs';
import pop from './cases/pop.mjs';
import introspection from './cases/introspection.mjs';
import introspectionWorkers2 from './cases/introspection-workers2.mjs';

/**
 * The cases, in the order they run for each alg (one at a time, never together). `name` is what
 * BENCH_SERVERS selects, `key` names the result in latest.json, `label` the report row, `unit`
 * what the row counts. `run(alg, results)` sees the results of the cases before it. A case without
 * a `key` (pop, introspection) answers several results and has no row. Add a file to
 * bench/cases/ and a line here to measure another configuration.
 */
const CASES = [
  ours,
  nostatus,
  statuslist,
  tickets,
  disclosures,
  exchange,
  proxy,
  mtls,
  workers2,
  flood,
  keyFlood,
  registerFlood,
  register,
  oidcProvider,
  bare,
  pop,
  introspection,
  introspectionWorkers2,
];

const selected = (benchCase) => config.servers.includes(benchCase.name);

async function runAlg(alg) {
  const r = {};
  // BENCH_ORDER=peer-first (bench/lib/settings.mjs): the peer's token case before ours.
  const ordered = config.peerFirst ? [oidcProvider, ...CASES.filter((c) => c !== oidcProvider)] : CASES;
  for (const benchCase of ordered.filter(selected)) {
    if (benchCase.key) r[benchCase.key] = await benchCase.run(alg, r);
    else Object.assign(r, await benchCase.run(alg, r));
  }
  return r;
}

function checkBuilt() {
  for (const file of ['dist/src/main.js', 'dist/src/cli.js']) {
    if (!existsSync(path.join(ROOT, file))) throw new StartError(`our server is not built: ${file} is missing (run npm run build)`);
  }
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const unknown = config.servers.filter((name) => !CASES.some((c) => c.name === name));
  if (unknown.length > 0) throw new StartError(`BENCH_SERVERS names unknown cases: ${unknown.join(', ')} (known: ${CASES.map((c) => c.name).join(', ')})`);
  if (CASES.some((c) => c.needsBuild && selected(c))) checkBuilt();
  console.log(
    `bench: ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s measured, algs ${config.algs.join(', ')}, ${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAvg()}`,
  );
  const results = {};
  for (const alg of config.algs) results[alg] = await runAlg(alg);
  printReport(
    results,
    CASES.filter((c) => c.key),
  );
  writeJson(results);
}

cleanUpOnExit();
try {
  await main();
  await cleanup();
} catch (err) {
  await cleanup();
  // Context first, then the one line that says what went wrong, last.
  if (err.detail) console.error(err.detail);
  else if (!(err instanceof StartError)) console.error(err.stack);
  console.error(`bench: FAILED: ${err.message}`);
  process.exit(1);
}
