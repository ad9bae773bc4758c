import { makeTemplate } from './template';

// Plain JavaScript, as jest's transform and the child processes' register-ts.js load it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fillCache } = require('./transpile') as { fillCache(): void };

/**
 * Before the workers start: every source transpiled (missing outputs made once here, not in each
 * worker and child process at once), then the run's migrated, seeded database that each test file's
 * starts as a copy of.
 */
export default async function globalSetup(): Promise<void> {
  fillCache();
  await makeTemplate();
}
