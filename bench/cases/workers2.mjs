// `workers2`: our server with WORKERS=2 (docs/reference/configuration.md: the primary forks two
// workers sharing the port); its CPU per token counts every worker. The load generator shares the
// same 2 cores, so it shows what a second worker costs and gives on this box.
import { runOurs } from '../lib/servers.mjs';

export default {
  name: 'workers2',
  key: 'oursWorkers2',
  label: 'ours, WORKERS=2',
  unit: 'tok/s',
  needsBuild: true,
  run: (alg) => runOurs(alg, { name: 'ours, WORKERS=2', logName: 'ours-workers2', env: { WORKERS: '2' } }),
};
