// Tests are transpiled by TypeScript's transpileModule without type checking (`npm run typecheck`
// type-checks with tsc), the outputs kept across runs and checkouts (tests/support/transpile.js).
/**
 * Test files whose subject is not the database: the pages in Chromium (the database paths under them
 * are tested on both databases by the HTTP tests), files that start no database at all, and files about
 * the embedded database's folder, which run on a PGlite folder of their own whatever DATABASE_URL says
 * (the same test twice otherwise). `.ci/run` runs them once, in its PostgreSQL pass (ONCE_PER_CI=skip in
 * its PGlite pass); `npm test` runs all.
 */
const DATABASE_INDEPENDENT = [
  'browser-pages',
  'browser-settings',
  'saml-browser',
  'oidc-browser',
  'bench-compare',
  'build-step',
  'config',
  'error-codes',
  'metadata-cache',
  'sign-in-providers-config',
  'request-context',
  'lru',
  'kept-metrics',
  'admin-lock',
  'session-secret',
  'logger',
  'request-budget',
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.ONCE_PER_CI === 'skip' ? DATABASE_INDEPENDENT.map((name) => `/tests/${name}\\.test\\.ts$`) : []),
  ],
  transform: { '^.+\\.tsx?$': '<rootDir>/tests/support/jest-transform.js' },
  // The transpiled sources, and the migrated, seeded database each test file's starts as a copy of
  // (tests/support/transpile.js, tests/support/template.ts).
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  // TEST_LEAK_PROBE=1: which test file leaves a timer, socket or process holding its worker open.
  setupFilesAfterEnv: process.env.TEST_LEAK_PROBE === '1' ? ['<rootDir>/tests/support/leak-probe.ts'] : [],
  testTimeout: 60000,
  // Three workers on two cores: a test file spends much of its time waiting (on child processes, timers,
  // the database, Chromium), and a third worker fills those waits. Measured on a 2-core machine: the
  // PGlite pass 344 s with two, 277 s with three; the PostgreSQL pass 255 s and 214 s.
  maxWorkers: 3,
};
