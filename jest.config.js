// Jest 30 in ESM mode (run with --experimental-vm-modules, see package.json).
const tsJest = [
  'ts-jest',
  { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false },
];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};

export default {
  projects: [
    { ...common, displayName: 'unit', rootDir: 'src', testMatch: ['**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.mjs',
      globalTeardown: '<rootDir>/test/global-teardown.mjs',
    },
  ],
  // A global option (ignored inside a project): e2e tests start servers, processes and a CLI.
  testTimeout: 60000,
};
