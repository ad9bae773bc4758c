import * as path from 'node:path';
import { startTestServer, type TestServer } from './server';

/**
 * The engine over the test fixture (tests/fixture): its own migrations and metadata, no demo data.
 * Authors, books (owned by users 1 and 2), editions, countries, the `genres` lookup table and a
 * 66-column `wide_rows` table.
 */
export function startFixtureServer(): Promise<TestServer> {
  return startTestServer({
    seed: false,
    env: {
      METADATA_DIR: path.resolve(__dirname, '../fixture/metadata'),
      MIGRATIONS_DIR: path.resolve(__dirname, '../fixture/sql'),
    },
  });
}

/** Session headers of role `user` (rows whose owner_id is the user id). */
export const asUser = (userId: number): Record<string, string> => ({
  'x-hasura-role': 'user',
  'x-hasura-user-id': String(userId),
});

/** Session headers of role `reader` (countries and genres only, no mutations). */
export const asReader: Record<string, string> = { 'x-hasura-role': 'reader' };

export const BOOK = {
  firstLight: '11111111-1111-1111-1111-111111111111',
  secondThoughts: '22222222-2222-2222-2222-222222222222',
  thirdTime: '33333333-3333-3333-3333-333333333333',
  brightNights: '44444444-4444-4444-4444-444444444444',
  quietVerses: '55555555-5555-5555-5555-555555555555',
  autumnPoems: '66666666-6666-6666-6666-666666666666',
} as const;
