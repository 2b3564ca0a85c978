// What every part of the benchmark reads: its folders, the knobs from the environment
// (bench/README.md, "Knobs") and the bench client's request.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.dirname(BENCH_DIR);
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');

export const config = {
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  // BENCH_ORDER=peer-first: oidc-provider is measured before ours in each comparison (the whole
  // `oidc-provider` case first, and the peer first inside `pop` and `introspection`), so that runs
  // alternating both orders cancel what measuring second costs or gains on a shared machine.
  peerFirst: process.env.BENCH_ORDER === 'peer-first',
  algs: (process.env.BENCH_ALGS ?? 'RS256,ES256')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  // Which cases run: the names of the files in bench/cases/ (`pop` and `introspection` each measure
  // ours and oidc-provider).
  servers: (
    process.env.BENCH_SERVERS ??
    'ours,nostatus,statuslist,flood,key-flood,register-flood,register,tickets,disclosures,exchange,workers2,oidc-provider,bare,pop,introspection,introspection-workers2'
  )
    .split(',')
    .map((s) => s.trim()),
};

export const CLIENT_ID = 'bench-client';
export const TOKEN_PATH = '/oauth2/token';
export const DISCOVERY_PATH = '/.well-known/oauth-authorization-server';
export const REQUEST_BODY = 'grant_type=client_credentials&scope=read';
// The consent-ticket cases (issue 4): a resource scope covered by the bench client's ticket.
export const RESOURCE_SCOPE = 'blood-glucose-level:read';
export const TICKET_REQUEST_BODY = `grant_type=client_credentials&scope=${encodeURIComponent(RESOURCE_SCOPE)}`;

/** Measures ours and the peer one after the other, in the order BENCH_ORDER asks for; answers both. */
export async function inComparisonOrder(measureOurs, measurePeer) {
  if (!config.peerFirst) {
    const ours = await measureOurs();
    return { ours, peer: await measurePeer() };
  }
  const peer = await measurePeer();
  return { ours: await measureOurs(), peer };
}
