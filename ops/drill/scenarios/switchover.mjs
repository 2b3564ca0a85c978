// `switchover`: a planned change of primary with `patronictl switchover`, run while the load goes
// on. Proves that a demoted node's read-only answers (SQLSTATE 25006) become 503s, never 500s,
// that nothing answered is lost, and that tokens flow again within 5 s of the database taking
// writes on the new primary.
import { asPostgres, nodes, primaryNode } from '../lib/cluster.mjs';
import { which } from '../lib/machine.mjs';
import { log, start, waitFor } from '../lib/processes.mjs';

export default {
  kind: 'switchover',
  async fault() {
    const primary = await primaryNode();
    const candidate = nodes.find((node) => node !== primary);
    log(`patronictl switchover ${primary.name} -> ${candidate.name}`);
    // Asynchronous: the load must go on while patronictl waits for the switchover.
    const entry = start(
      'patronictl',
      which('patronictl'),
      ['-c', primary.configFile, 'switchover', '--leader', primary.name, '--candidate', candidate.name, '--force'],
      { ...asPostgres(primary), detached: false },
    );
    await waitFor('patronictl switchover', () => entry.exited, 60_000, 100);
    if (entry.code !== 0) throw new Error(`patronictl switchover failed: ${entry.output()}`);
    return { from: primary.name };
  },
};
