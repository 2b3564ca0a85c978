// `statuslist`: GET of the status list a token names (docs/reference/status-lists.md), as a
// resource server asks for it (Accept: application/statuslist+jwt, gzip), answered from the
// in-memory cache. Requests per second, not tokens.
import autocannon from 'autocannon';
import { config, REQUEST_BODY, TOKEN_PATH } from '../lib/settings.mjs';
import { timedLoad, tokenRequestHeaders, warnNon2xx, withCpu } from '../lib/load.mjs';
import { runOurs } from '../lib/servers.mjs';

const NAME = 'ours, GET /oauth2/status/{id}';

async function benchStatusList(name, alg, baseUrl, auth, server) {
  const res = await fetch(baseUrl + TOKEN_PATH, { method: 'POST', headers: tokenRequestHeaders(auth), body: REQUEST_BODY });
  const claims = JSON.parse(Buffer.from(String((await res.json()).access_token).split('.')[1], 'base64url').toString());
  const uri = claims.status?.status_list?.uri;
  if (typeof uri !== 'string') throw new Error(`${name}: the token has no status claim`);
  const headers = { accept: 'application/statuslist+jwt', 'accept-encoding': 'gzip' };
  const check = await fetch(uri, { headers });
  if (check.status !== 200) throw new Error(`${name}: GET ${uri} returned HTTP ${check.status}`);
  const bodyBytes = Buffer.byteLength(await check.text());
  console.log(`${alg}  measuring ${name} (list token ${bodyBytes} bytes) ...`);
  const fireList = (duration) => autocannon({ url: uri, method: 'GET', connections: config.connections, duration, headers });
  const { r, used } = await timedLoad(server.child.pid, fireList);
  warnNon2xx(alg, name, r);
  return { bodyBytes, ...withCpu(r, used) };
}

export default {
  name: 'statuslist',
  key: 'oursStatusList',
  label: 'status list GET',
  unit: 'req/s',
  needsBuild: true,
  run: (alg) =>
    runOurs(alg, {
      name: NAME,
      logName: 'ours-statuslist',
      measureWith: (_name, _alg, baseUrl, auth, server) => benchStatusList(NAME, alg, baseUrl, auth, server),
    }),
};
