// `flood`: the bench client's tokens while bench/wrong-secret-flood.mjs (a process of its own)
// sends wrong secrets for ever-new client ids over 24 connections from 40 addresses, each under
// its limit (docs/operations/security.md): the slow hashes are bounded, so the flood must not
// starve the known client, whose secret is verified once and then cached. CPU per token includes
// the flood's cost; the notes give the flood's answers.
import { TOKEN_PATH } from '../lib/settings.mjs';
import { logPath, notes, startChild, stopAttacker } from '../lib/processes.mjs';
import { FLOOD_ADDRESSES } from '../lib/beside-flood.mjs';
import { runOurs } from '../lib/servers.mjs';

const FLOOD_CONNECTIONS = 24;

/** Starts bench/wrong-secret-flood.mjs against our server; the returned function stops it and notes its answers. */
function floodWrongSecrets(baseUrl) {
  const env = { FLOOD_URL: baseUrl + TOKEN_PATH, FLOOD_CONNECTIONS: String(FLOOD_CONNECTIONS), FLOOD_ADDRESSES: String(FLOOD_ADDRESSES) };
  const flood = startChild('wrong-secret flood', ['bench/wrong-secret-flood.mjs'], env, logPath('wrong-secret-flood', 'any'));
  return async () => {
    const line = await stopAttacker(flood);
    notes.push(`wrong-secret flood (${FLOOD_CONNECTIONS} connections, ${FLOOD_ADDRESSES} addresses): ${line || 'no summary'}`);
  };
}

export default {
  name: 'flood',
  key: 'oursFlood',
  label: 'ours, flood',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, {
      name: 'ours, known client during a wrong-secret flood',
      logName: 'ours-flood',
      env: { TRUST_PROXY: 'loopback' },
      alongside: floodWrongSecrets,
    }),
};
