// `proxy` (opt-in): our server behind a trusted proxy (TRUST_PROXY=loopback) without mutual TLS,
// the reference for `mtls`: believing X-Forwarded-For costs something per request of its own.
import { runOurs } from '../lib/servers.mjs';

export default {
  name: 'proxy',
  key: 'oursProxy',
  label: 'ours, TRUST_PROXY',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) => runOurs(alg, { name: 'ours, TRUST_PROXY=loopback', logName: 'ours-proxy', env: { TRUST_PROXY: 'loopback' } }),
};
