import * as path from 'node:path';
import { startTestServer, type TestServer } from './server';

/**
 * The engine over the Hasura-compatibility fixture (tests/fixture-hasura): `measures` (a column of each
 * numeric type, a unique label, a CHECK), `notes` (a foreign key to measures; role `user` inserts with
 * a permission check) and `categories` (an ltree column). No demo data.
 */
export function startHasuraFixtureServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({
    seed: false,
    env: {
      METADATA_DIR: path.resolve(__dirname, '../fixture-hasura/metadata'),
      MIGRATIONS_DIR: path.resolve(__dirname, '../fixture-hasura/sql'),
      ...env,
    },
  });
}

/** Session headers of role `user`. */
export const asHasuraUser = (userId: number): Record<string, string> => ({
  'x-hasura-role': 'user',
  'x-hasura-user-id': String(userId),
});
