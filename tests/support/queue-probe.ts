/**
 * Run by tests/connection-queue.test.ts in a process of its own (Node's module loading, which the
 * queue's replacement needs; jest has a registry of its own): opens the engine's PostgreSQL pool with
 * two connections, runs CALLERS callers of ROUNDS statements each at once, so that postgres.js
 * pipelines statements behind running ones, and prints what its queues held, as JSON.
 */
import { connectPostgres } from '../../engine/core/db/postgres';
import { connectionQueueStats } from '../../engine/core/db/connection-queue';

const CALLERS = 24;
const ROUNDS = 250;

async function main(): Promise<void> {
  const db = connectPostgres(process.env.DATABASE_URL!, {
    poolSize: 2,
    statementTimeoutMs: 10_000,
    connectTimeoutMs: 5_000,
  });
  let right = 0;
  const caller = async (n: number) => {
    for (let i = 0; i < ROUNDS; i++) {
      const [row] = await db.query('select $1::int + 1 as v', [String(n * ROUNDS + i)]);
      if (Number(row!.v) === n * ROUNDS + i + 1) right++;
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, (_, n) => caller(n)));
  await db.close();
  process.stdout.write(JSON.stringify({ statements: CALLERS * ROUNDS, right, ...connectionQueueStats() }));
}

main().catch((e: unknown) => {
  process.stderr.write(String(e));
  process.exit(1);
});
