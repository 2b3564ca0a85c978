// `key-flood`: the bench client's median latency (one request at a time) while
// bench/oversized-key-flood.mjs floods DPoP proofs whose keys would be costly to verify with
// (docs/operations/security.md#bounded-key-cost), against its calm median: the contract wants at
// most 10x. BENCH_KEY_FLOOD_CONNECTIONS (1) flooding connections.
import { CLIENT_ID, TOKEN_PATH } from '../lib/settings.mjs';
import { measureBesideFlood } from '../lib/beside-flood.mjs';
import { runOurs } from '../lib/servers.mjs';

const KEY_FLOOD_CONNECTIONS = Number(process.env.BENCH_KEY_FLOOD_CONNECTIONS ?? 1);

function measureKeyFlood(name, alg, baseUrl, auth, server) {
  return measureBesideFlood(name, alg, baseUrl, auth, server, {
    what: 'oversized-key DPoP flood',
    script: 'bench/oversized-key-flood.mjs',
    connections: KEY_FLOOD_CONNECTIONS,
    env: { FLOOD_URL: baseUrl + TOKEN_PATH, FLOOD_CLIENT_ID: CLIENT_ID },
  });
}

export default {
  name: 'key-flood',
  key: 'oursKeyFlood',
  label: 'ours, key flood',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) => runOurs(alg, { name: 'ours, known client during an oversized-key DPoP flood', logName: 'ours-key-flood', measureWith: measureKeyFlood }),
};
