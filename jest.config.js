// Tests are transpiled by SWC (no type checking: `npm run typecheck` does that with tsc).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
