// `nostatus`: the `ours` case with token status lists off (STATUS_LIST=false): the status claim's
// cost is the difference between the two (docs/reference/status-lists.md).
import { runOurs } from '../lib/servers.mjs';

export default {
  name: 'nostatus',
  key: 'oursNoStatus',
  label: 'ours, no status',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) => runOurs(alg, { name: 'ours, STATUS_LIST=false', logName: 'ours-nostatus', env: { STATUS_LIST: 'false' } }),
};
