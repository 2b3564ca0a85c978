// Jest 30 in ESM mode (run with --experimental-vm-modules, see package.json).
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};

// The system tier (npm run test:system): whole server processes, embedded clusters and CLI
// processes started, stopped, signalled and restarted, sustained floods, every guide run on a
// fresh server, and the console in Chromium. Node.js alone runs them too (the browser comes from
// npm); they take minutes, so `npm test` leaves them out to stay within its 8 minutes, and CI
// (.ci/run) runs them after it.
const SYSTEM_SUITES = [
  '<rootDir>/test/server/',
  '<rootDir>/test/console/',
  '<rootDir>/test/mtls/console.e2e-spec.ts',
  '<rootDir>/test/cli/',
  '<rootDir>/test/docs/docs-commands.e2e-spec.ts',
  '<rootDir>/test/docs/example-script.e2e-spec.ts',
  '<rootDir>/test/database/embedded-database.e2e-spec.ts',
  '<rootDir>/test/database/durable-writes.e2e-spec.ts',
  '<rootDir>/test/auth/brute-force.e2e-spec.ts',
  '<rootDir>/test/auth/lockout-flood.e2e-spec.ts',
];

export default {
  projects: [
    // The console's pure functions (ticket sentences, paging) are unit-tested beside their code too.
    { ...common, displayName: 'unit', rootDir: '.', roots: ['<rootDir>/src', '<rootDir>/console'], testMatch: ['**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // The interop tier (npm run test:interop) runs other software beside the server: not part of every run.
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/interop/', ...SYSTEM_SUITES],
      globalSetup: '<rootDir>/test/global-setup.mjs',
      globalTeardown: '<rootDir>/test/global-teardown.mjs',
    },
    {
      ...common,
      displayName: 'system',
      rootDir: '.',
      testMatch: SYSTEM_SUITES.map((path) => (path.endsWith('/') ? `${path}**/*.e2e-spec.ts` : path)),
      globalSetup: '<rootDir>/test/global-setup.mjs',
      globalTeardown: '<rootDir>/test/global-teardown.mjs',
    },
    // Tests that need another stack (Debian packages, git and the npm cache): `npm run test:interop`
    // only, which installs what they need first; `npm test` needs nothing but Node.js.
    {
      ...common,
      displayName: 'interop',
      rootDir: '.',
      testMatch: ['<rootDir>/test/interop/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.mjs',
      globalTeardown: '<rootDir>/test/global-teardown.mjs',
    },
  ],
  // A global option (ignored inside a project): e2e tests start servers, processes and a CLI.
  testTimeout: 60000,
  // A failed e2e test can leave a server, a pool or a child process behind; without this, Jest then
  // waits for them forever once every suite has run (a CI run ended at its time limit that way).
  // Each suite still closes what it opened: this only ends the run, it hides no failure.
  forceExit: true,
};
