// `ours`: our server's token endpoint, client credentials grant for a plain scope, on a fresh
// embedded PostgreSQL: the figure every other case of ours is read against.
import { runOurs } from '../lib/servers.mjs';

export default { name: 'ours', key: 'ours', label: 'ours', unit: 'tok/s', needsBuild: true, run: (alg) => runOurs(alg) };
