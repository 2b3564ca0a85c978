// `introspection-workers2`: the `introspection` case on our server with WORKERS=2 (the primary
// forks two workers sharing the port; docs/reference/configuration.md). Its CPU per answer counts
// every worker. The load generator shares the same 2 cores, so the report's ratio to one process
// (the `introspection` case of the same run) shows what a second worker gives on this box, not
// what two cores give without a client beside them.
import { runOursIntrospection } from './introspection.mjs';

export default {
  name: 'introspection-workers2',
  needsBuild: true,
  run: async (alg) => ({
    oursIntrospectionWorkers2: await runOursIntrospection(alg, {
      name: 'ours, WORKERS=2, introspection of resource-scope tokens',
      logName: 'ours-introspection-workers2',
      env: { WORKERS: '2' },
    }),
  }),
};
