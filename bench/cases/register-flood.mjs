// `register-flood`: the bench client's median latency (one request at a time) while
// bench/registration-flood.mjs floods POST /oauth2/register (docs/guides/dynamic-registration.md)
// from 40 addresses: a share BENCH_REGISTER_FLOOD_VALID_SHARE (0.5) with a valid initial access
// token (one transaction and one bounded slow hash each), the rest with unknown ones (failures
// counted per address), over BENCH_REGISTER_FLOOD_CONNECTIONS (24) connections; against its calm median.
import { FLOOD_ADDRESSES, measureBesideFlood } from '../lib/beside-flood.mjs';
import { createFloodInitialAccessToken, runOurs } from '../lib/servers.mjs';

const REGISTER_FLOOD_CONNECTIONS = Number(process.env.BENCH_REGISTER_FLOOD_CONNECTIONS ?? 24);
const REGISTER_FLOOD_VALID_SHARE = Number(process.env.BENCH_REGISTER_FLOOD_VALID_SHARE ?? 0.5);

function measureRegistrationFlood(name, alg, baseUrl, auth, server, _secrets, initialAccessToken) {
  return measureBesideFlood(name, alg, baseUrl, auth, server, {
    what: `registration flood (${Math.round(REGISTER_FLOOD_VALID_SHARE * 100)} % with a valid initial access token, ${FLOOD_ADDRESSES} addresses)`,
    script: 'bench/registration-flood.mjs',
    connections: REGISTER_FLOOD_CONNECTIONS,
    env: {
      FLOOD_URL: `${baseUrl}/oauth2/register`,
      FLOOD_IAT: initialAccessToken,
      FLOOD_VALID_SHARE: String(REGISTER_FLOOD_VALID_SHARE),
      FLOOD_ADDRESSES: String(FLOOD_ADDRESSES),
    },
  });
}

export default {
  name: 'register-flood',
  key: 'oursRegisterFlood',
  label: 'ours, reg. flood',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, {
      name: 'ours, known client during a registration flood',
      logName: 'ours-register-flood',
      env: { TRUST_PROXY: 'loopback' },
      setup: createFloodInitialAccessToken,
      measureWith: measureRegistrationFlood,
    }),
};
