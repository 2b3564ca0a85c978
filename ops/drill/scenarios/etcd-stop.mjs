// `etcd-stop`: etcd, the cluster's store of who leads, stopped for DRILL_ETCD_DOWN_SECONDS (12)
// and started again. Proves what the server does while Patroni cannot renew its leader key
// (without failsafe mode the primary demotes itself): 503s with Retry-After, no lost row, and
// tokens again once etcd is back and a primary is elected.
import { primaryNode, startEtcd, stopEtcd } from '../lib/cluster.mjs';
import { log, sleep } from '../lib/processes.mjs';

const ETCD_DOWN_SECONDS = Number(process.env.DRILL_ETCD_DOWN_SECONDS ?? 12);

export default {
  kind: 'etcd-stop',
  async fault() {
    const primary = await primaryNode();
    log(`etcd stopped for ${ETCD_DOWN_SECONDS} s`);
    await stopEtcd();
    await sleep(ETCD_DOWN_SECONDS * 1000);
    log('etcd started again');
    const restartedAt = Date.now();
    await startEtcd();
    return { from: primary?.name, etcdBackAt: restartedAt };
  },
};
