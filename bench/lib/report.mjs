// The report: a table per alg (one row per case of bench/cases/ that has one), the ratios the
// cases exist for, the notes, and bench/results/latest.json (bench/README.md, "Reading the output").
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config, RESULTS_DIR, ROOT } from './settings.mjs';
import { notes } from './processes.mjs';

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));
const fmtRatio = (a, b) => (a && b ? `${(a.perSecond / b.perSecond).toFixed(2)}x` : 'n/a');
// Below 1: we spend less CPU (server and database) per token than the other.
const fmtCpuRatio = (a, b) =>
  a?.cpu?.microsPerResponse && b?.cpu?.microsPerResponse ? `${(a.cpu.microsPerResponse / b.cpu.microsPerResponse).toFixed(2)}x` : 'n/a';

function describe(label, unit, r) {
  if (!r) return `${label} (not run)`;
  return `${label} ${fmtInt(r.perSecond)} ${unit} p50 ${fmtMs(r.latencyMs.p50)} ms p99 ${fmtMs(r.latencyMs.p99)} ms`;
}

// Other work on this 2-core box skews every number: show how busy it was.
export const loadAvg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

const fmtMicros = (x) => (x.cpu?.microsPerResponse ? fmtInt(x.cpu.microsPerResponse) : 'n/a');
const fmtOther = (x) => (x.cpu ? `${Math.round(x.cpu.otherCores * 100)} %` : 'n/a');

/** `cases`: the table's rows, in order (`key` names the result, `label` the row). */
export function printReport(results, cases) {
  console.log(`\nload average at the end ${loadAvg()} (1, 5, 15 min; the bench itself adds ~2)\n`);
  for (const [alg, r] of Object.entries(results)) {
    console.log(`${alg}  server            per second   p50 ms   p99 ms   non-2xx  body bytes  µs CPU/resp  procs  other load`);
    for (const { key, label } of cases) {
      const x = r[key];
      if (!x) continue;
      const cols = [
        fmtInt(x.perSecond).padStart(10),
        fmtMs(x.latencyMs.p50).padStart(8),
        fmtMs(x.latencyMs.p99).padStart(8),
        String(x.non2xx).padStart(9),
        String(x.bodyBytes).padStart(11),
        fmtMicros(x).padStart(12),
        String(x.cpu?.serverProcesses ?? '').padStart(6),
        fmtOther(x).padStart(11),
      ];
      console.log(`${alg}  ${label.padEnd(16)}${cols.join(' ')}`);
    }
    console.log('');
  }
  for (const [alg, r] of Object.entries(results)) {
    console.log(
      `${alg}  ${describe('ours', 'tok/s', r.ours)} | ${describe('oidc-provider', 'tok/s', r.oidcProvider)} | ${describe('bare node:http', 'req/s', r.bare)}`,
    );
    console.log(
      `${alg}  ours/oidc-provider ${fmtRatio(r.ours, r.oidcProvider)}   ours/bare ${fmtRatio(r.ours, r.bare)}   CPU per token ours/oidc-provider ${fmtCpuRatio(r.ours, r.oidcProvider)}`,
    );
    if (r.oursWorkers2) console.log(`${alg}  WORKERS=2 / WORKERS=1 ${fmtRatio(r.oursWorkers2, r.ours)} (the load generator takes much of the second core)`);
    if (r.oursFlood) console.log(`${alg}  known client during a wrong-secret flood / plain ${fmtRatio(r.oursFlood, r.ours)}`);
    if (r.oursKeyFlood)
      console.log(
        `${alg}  known client's median latency during an oversized-key DPoP flood ${fmtMs(r.oursKeyFlood.latencyMs.p50)} ms / calm ${fmtMs(r.oursKeyFlood.calm.latencyMs.p50)} ms = ${(r.oursKeyFlood.latencyMs.p50 / r.oursKeyFlood.calm.latencyMs.p50).toFixed(2)}x (wanted: at most 10x; flood ${r.oursKeyFlood.flood?.perSecond ?? 'n/a'} requests/s, about ${r.oursKeyFlood.flood?.microsPerFloodRequest ? fmtInt(r.oursKeyFlood.flood.microsPerFloodRequest) : 'n/a'} µs of server CPU each)`,
      );
    if (r.oursRegisterFlood)
      console.log(
        `${alg}  known client's median latency during a registration flood ${fmtMs(r.oursRegisterFlood.latencyMs.p50)} ms / calm ${fmtMs(r.oursRegisterFlood.calm.latencyMs.p50)} ms = ${(r.oursRegisterFlood.latencyMs.p50 / r.oursRegisterFlood.calm.latencyMs.p50).toFixed(2)}x, tokens/s flood / calm ${fmtRatio(r.oursRegisterFlood, r.oursRegisterFlood.calm)} (flood ${r.oursRegisterFlood.flood?.perSecond ?? 'n/a'} requests/s, about ${r.oursRegisterFlood.flood?.microsPerFloodRequest ? fmtInt(r.oursRegisterFlood.flood.microsPerFloodRequest) : 'n/a'} µs of server CPU each)`,
      );
    if (r.oursRegister)
      console.log(
        `${alg}  registrations one at a time: ${Object.entries(r.oursRegister.kinds)
          .map(
            ([method, k]) => `${method} p50 ${fmtMs(k.latencyMs.p50)} ms, p95 ${fmtMs(k.latencyMs.p95)} ms (${k.registered} registered, ${k.refused} refused)`,
          )
          .join('; ')} (wanted: p95 at most 300 ms)`,
      );
    if (r.oursTickets)
      console.log(
        `${alg}  resource scope with 10k clients, 100k ticket records and 1k data sources / plain scope ${fmtRatio(r.oursTickets, r.ours)} (issue 13 wants at least 0.95x: a cost at most 1.05x)`,
      );
    if (r.oursDisclosures)
      console.log(
        `${alg}  resource scope with its durable disclosure row / plain scope ${fmtRatio(r.oursDisclosures, r.ours)} (wanted: at least 0.8x)   µs CPU per token ${fmtMicros(r.oursDisclosures)} vs ${r.ours ? fmtMicros(r.ours) : 'n/a'}`,
      );
    if (r.oursExchange) {
      const cost =
        r.oursDisclosures?.cpu?.microsPerResponse && r.oursExchange.cpu?.microsPerResponse
          ? r.oursExchange.cpu.microsPerResponse / r.oursDisclosures.cpu.microsPerResponse
          : null;
      console.log(
        `${alg}  token exchange / resource-scope token: µs CPU ${fmtMicros(r.oursExchange)} vs ${r.oursDisclosures ? fmtMicros(r.oursDisclosures) : 'n/a'}, a cost of ${cost === null ? 'n/a' : `${cost.toFixed(2)}x`} (wanted: at most 1.5x)`,
      );
    }
    if (r.oursNoStatus)
      console.log(
        `${alg}  STATUS_LIST=true / false ${fmtRatio(r.ours, r.oursNoStatus)} (wanted: at least 0.95x)   µs CPU per token ${fmtMicros(r.ours)} vs ${fmtMicros(r.oursNoStatus)}`,
      );
    if (r.oursStatusList)
      console.log(`${alg}  status list GET from the cache: ${describe('ours', 'req/s', r.oursStatusList)} (wanted: at least 5,000 per worker)`);
    if (r.oursIntrospection || r.oidcProviderIntrospection)
      console.log(
        `${alg}  introspection: ${describe('ours', 'req/s', r.oursIntrospection)} (µs CPU ${r.oursIntrospection ? fmtMicros(r.oursIntrospection) : 'n/a'}) | ${describe('oidc-provider', 'req/s', r.oidcProviderIntrospection)} (µs CPU ${r.oidcProviderIntrospection ? fmtMicros(r.oidcProviderIntrospection) : 'n/a'}) | ours/oidc-provider ${fmtRatio(r.oursIntrospection, r.oidcProviderIntrospection)} (aim: 2x), CPU per answer ${fmtCpuRatio(r.oursIntrospection, r.oidcProviderIntrospection)} (aim: at most 0.5x)`,
      );
    if (r.oursIntrospectionWorkers2)
      console.log(
        `${alg}  introspection, WORKERS=2: ${describe('ours', 'req/s', r.oursIntrospectionWorkers2)} (µs CPU ${fmtMicros(r.oursIntrospectionWorkers2)}) | WORKERS=2 / one process ${r.oursIntrospection ? fmtRatio(r.oursIntrospectionWorkers2, r.oursIntrospection) : 'n/a'}`,
      );
    if (r.oursPop)
      console.log(
        `${alg}  private_key_jwt + DPoP: ours/oidc-provider ${fmtRatio(r.oursPop, r.oidcProviderPop)}   ours pop/ours plain ${fmtRatio(r.oursPop, r.ours)}`,
      );
  }
  if (notes.length > 0) console.log(`\nNotes:\n${notes.map((n) => `  - ${n}`).join('\n')}`);
}

export function writeJson(results) {
  const out = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAverageAtEnd: os.loadavg() },
    config: { duration: config.duration, warmup: config.warmup, connections: config.connections, algs: config.algs },
    results,
    ratios: Object.fromEntries(
      Object.entries(results).map(([alg, r]) => [
        alg,
        {
          oursOverOidcProvider: r.ours && r.oidcProvider ? r.ours.perSecond / r.oidcProvider.perSecond : null,
          oursOverBare: r.ours && r.bare ? r.ours.perSecond / r.bare.perSecond : null,
          cpuPerTokenOursOverOidcProvider:
            r.ours?.cpu?.microsPerResponse && r.oidcProvider?.cpu?.microsPerResponse
              ? r.ours.cpu.microsPerResponse / r.oidcProvider.cpu.microsPerResponse
              : null,
          workers2OverWorkers1: r.oursWorkers2 && r.ours ? r.oursWorkers2.perSecond / r.ours.perSecond : null,
          floodOverPlain: r.oursFlood && r.ours ? r.oursFlood.perSecond / r.ours.perSecond : null,
          keyFloodMedianOverCalm: r.oursKeyFlood ? r.oursKeyFlood.latencyMs.p50 / r.oursKeyFlood.calm.latencyMs.p50 : null,
          registerFloodMedianOverCalm: r.oursRegisterFlood ? r.oursRegisterFlood.latencyMs.p50 / r.oursRegisterFlood.calm.latencyMs.p50 : null,
          registerFloodTokensOverCalm: r.oursRegisterFlood ? r.oursRegisterFlood.perSecond / r.oursRegisterFlood.calm.perSecond : null,
          registerSecretP95Ms: r.oursRegister ? r.oursRegister.kinds.client_secret_basic.latencyMs.p95 : null,
          registerKeyP95Ms: r.oursRegister ? r.oursRegister.kinds.private_key_jwt.latencyMs.p95 : null,
          ticketsOverPlain: r.oursTickets && r.ours ? r.oursTickets.perSecond / r.ours.perSecond : null,
          disclosuresOverPlain: r.oursDisclosures && r.ours ? r.oursDisclosures.perSecond / r.ours.perSecond : null,
          statusListOverNoStatus: r.ours && r.oursNoStatus ? r.ours.perSecond / r.oursNoStatus.perSecond : null,
          statusListClaimMicrosCpuPerToken:
            r.ours?.cpu?.microsPerResponse && r.oursNoStatus?.cpu?.microsPerResponse
              ? r.ours.cpu.microsPerResponse - r.oursNoStatus.cpu.microsPerResponse
              : null,
          introspectionOursOverOidcProvider:
            r.oursIntrospection && r.oidcProviderIntrospection ? r.oursIntrospection.perSecond / r.oidcProviderIntrospection.perSecond : null,
          introspectionCpuOursOverOidcProvider:
            r.oursIntrospection?.cpu?.microsPerResponse && r.oidcProviderIntrospection?.cpu?.microsPerResponse
              ? r.oursIntrospection.cpu.microsPerResponse / r.oidcProviderIntrospection.cpu.microsPerResponse
              : null,
          introspectionWorkers2OverOne:
            r.oursIntrospectionWorkers2 && r.oursIntrospection ? r.oursIntrospectionWorkers2.perSecond / r.oursIntrospection.perSecond : null,
          proofOfPossessionOursOverOidcProvider: r.oursPop && r.oidcProviderPop ? r.oursPop.perSecond / r.oidcProviderPop.perSecond : null,
        },
      ]),
    ),
    notes,
  };
  const file = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`\nResults written to ${path.relative(ROOT, file)}`);
}
