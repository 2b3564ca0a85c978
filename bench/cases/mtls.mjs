// `mtls` (opt-in): mutual TLS on, the certificate from a proxy's header (docs/guides/mtls.md),
// measured with the secret client: a client without a certificate must not pay for mutual TLS,
// so this row should agree with `proxy` within the noise.
import { runOurs } from '../lib/servers.mjs';

export default {
  name: 'mtls',
  key: 'oursMtls',
  label: 'ours, MTLS=true',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, {
      name: 'ours, MTLS=true (secret client)',
      logName: 'ours-mtls',
      env: { MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'ssl-client-cert', TRUST_PROXY: 'loopback' },
    }),
};
