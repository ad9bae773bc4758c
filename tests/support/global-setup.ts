import { makeTemplate } from './template';

/** Before the workers start: the run's migrated, seeded database that each test file's starts from. */
export default async function globalSetup(): Promise<void> {
  await makeTemplate();
}
