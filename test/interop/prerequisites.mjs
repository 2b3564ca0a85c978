// What `npm run test:interop` needs besides Node.js, checked before Jest starts: each entry says how
// to see that it is there and which Debian package brings it. Missing ones are installed with
// apt-get when this runs as root on Debian (as in CI); otherwise one line says what is missing.
import { spawnSync } from 'node:child_process';

const works = (command, args = []) => {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  return !result.error && result.status === 0;
};

/** One entry per stack the interop tests drive (add yours here). */
const NEEDS = [
  // git clones the repository for the fresh-clone test (test/interop/fresh-clone.e2e-spec.ts).
  { name: 'git', packages: ['git'], present: () => works('git', ['--version']) },
  // Validates docker-compose.yml without a Docker engine (test/interop/deployment-files.e2e-spec.ts).
  { name: 'docker-compose', packages: ['docker-compose'], present: () => works('docker-compose', ['version']) },
  // A second SMART client stack; Debian's modules import under /usr/bin/python3 only.
  { name: 'python3-authlib', packages: ['python3-authlib'], present: () => works('/usr/bin/python3', ['-c', 'import authlib']) },
  // Apache's mod_oauth2 checking certificate-bound tokens (test/interop/mod-oauth2-mtls.e2e-spec.ts), and
  // as a data source by introspection, by JWT and with DPoP (test/interop/mod-oauth2-resource-server.e2e-spec.ts).
  {
    name: 'apache2 with mod_oauth2',
    packages: ['apache2', 'libapache2-mod-oauth2'],
    present: () => works('/usr/sbin/apache2', ['-v']) && works('test', ['-e', '/usr/lib/apache2/modules/mod_oauth2.so']),
  },
  // The PostgreSQL failover drill (test/interop/failover-drill.e2e-spec.ts, npm run drill:failover).
  {
    name: 'patroni, etcd and haproxy',
    packages: ['patroni', 'etcd-server', 'etcd-client', 'haproxy'],
    present: () => works('patroni', ['--version']) && works('etcdctl', ['version']) && works('haproxy', ['-v']) && works('etcd', ['--version']),
  },
];

const missing = () => NEEDS.filter((need) => !need.present());

function aptInstall(packages) {
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit' }).status === 0;
  if (install()) return true;
  // A fresh machine has no package lists yet.
  return spawnSync('apt-get', ['update'], { stdio: 'inherit' }).status === 0 && install();
}

let absent = missing();
if (absent.length > 0 && process.getuid?.() === 0 && works('apt-get', ['--version'])) {
  const packages = [...new Set(absent.flatMap((need) => need.packages))];
  console.log(`test:interop: installing ${packages.join(' ')} (apt-get)`);
  aptInstall(packages);
  absent = missing();
}
if (absent.length > 0) {
  const packages = [...new Set(absent.flatMap((need) => need.packages))];
  console.error(
    `test:interop needs ${absent.map((need) => need.name).join(', ')}: install them (Debian: apt-get install -y --no-install-recommends ${packages.join(' ')}) or run this as root on Debian, which installs them`,
  );
  process.exit(1);
}
