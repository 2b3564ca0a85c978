// `register`: POST /oauth2/register one at a time (bench/registration-latency.mjs), a
// client_secret_basic client then a private_key_jwt one, BENCH_DURATION seconds each, against the
// contract's p95 of 300 ms (docs/reference/registration-endpoint.md). The table's row shows the
// secret registrations.
import { startCpuMeasurement } from '../proc-cpu.mjs';
import { measureRegistrationLatency } from '../registration-latency.mjs';
import { config } from '../lib/settings.mjs';
import { createFloodInitialAccessToken, runOurs } from '../lib/servers.mjs';

async function measureRegistrations(name, alg, baseUrl, _auth, server, _secrets, initialAccessToken) {
  console.log(`${alg}  measuring ${name}: client_secret_basic, then private_key_jwt ...`);
  const cpu = startCpuMeasurement(server.child.pid);
  const kinds = await measureRegistrationLatency(baseUrl, initialAccessToken, config.duration);
  const used = cpu.stop();
  const secret = kinds.client_secret_basic;
  return {
    bodyBytes: 0,
    requests: secret.registered + secret.refused,
    non2xx: secret.refused,
    perSecond: secret.registered / config.duration,
    latencyMs: secret.latencyMs,
    kinds,
    cpu: { ...used, microsPerResponse: null },
  };
}

export default {
  name: 'register',
  key: 'oursRegister',
  label: 'ours, register',
  unit: 'reg/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, {
      name: 'ours, registrations one at a time',
      logName: 'ours-register',
      setup: createFloodInitialAccessToken,
      measureWith: measureRegistrations,
    }),
};
