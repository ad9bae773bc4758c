// Tests are transpiled by ts-jest without type checking (isolatedModules): `npm run typecheck`
// type-checks with tsc. ts-jest is plain JavaScript, so installs need no native binaries.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.tsx?$': [
      'ts-jest',
      {
        tsconfig: { isolatedModules: true, module: 'commonjs', target: 'es2022', esModuleInterop: true },
        diagnostics: false,
      },
    ],
  },
  // The migrated, seeded database each test file's starts as a copy of (tests/support/template.ts).
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
