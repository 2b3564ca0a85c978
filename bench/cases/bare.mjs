// `bare`: bench/bare-http-peer.mjs, a bare node:http server answering every POST with a fixed
// body as long as our real token response for this alg (so bytes on the wire match): the ceiling
// of Node's HTTP stack on this machine, with no parsing, authentication or signing.
import { CLIENT_ID, REQUEST_BODY, TOKEN_PATH } from '../lib/settings.mjs';
import { basicAuth, measure } from '../lib/load.mjs';
import { withPeer } from '../lib/servers.mjs';

// Used when our server was not run in the same alg round.
const DEFAULT_BODY_BYTES = 900;

function runBare(alg, bodyBytes) {
  const peer = {
    label: 'bare node:http',
    script: 'bench/bare-http-peer.mjs',
    logName: 'bare-http',
    alg,
    env: { BODY_BYTES: String(bodyBytes) },
    // The bare peer only answers POST; any HTTP answer means it is up.
    readyPath: TOKEN_PATH,
    ok: () => true,
  };
  return withPeer(peer, async (baseUrl, server) => {
    const auth = basicAuth(CLIENT_ID, 'unused');
    console.log(`${alg}  measuring bare node:http (${bodyBytes} byte body) ...`);
    return { bodyBytes, ...(await measure('bare node:http', alg, baseUrl + TOKEN_PATH, auth, REQUEST_BODY, server.child.pid)) };
  });
}

export default {
  name: 'bare',
  key: 'bare',
  label: 'bare node:http',
  unit: 'req/s',
  needsBuild: false,
  run: (alg, results) => runBare(alg, results.ours?.bodyBytes ?? DEFAULT_BODY_BYTES),
};
