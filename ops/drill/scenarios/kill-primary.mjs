// `kill-primary`: the primary's postmaster killed with SIGKILL, as a crash of its machine would
// leave it. Proves that Patroni promotes the synchronous standby, that no token answered before
// the crash lost its row (synchronous_mode_strict), and that the server answers 503 with
// Retry-After meanwhile and serves tokens again on the new primary without a restart.
import { primaryNode } from '../lib/cluster.mjs';
import { log, postmasterPid } from '../lib/processes.mjs';

export default {
  kind: 'kill-primary',
  async fault() {
    const primary = await primaryNode();
    const pid = postmasterPid(primary.dataDir);
    log(`kill -9 of ${primary.name}'s postmaster (pid ${pid})`);
    process.kill(pid, 'SIGKILL');
    return { from: primary.name };
  },
};
