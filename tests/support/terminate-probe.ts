/**
 * Run by tests/terminated-backend.test.ts in a process of its own (a crash would end it, not the test
 * runner): the engine's PostgreSQL pool, transactions whose backend is ended under them (by their own
 * statement, as an administrator's pg_terminate_backend or a server restart would), then statements on
 * the reconnected pool. Prints what each transaction was told and what the statements answered, as JSON.
 */
import { connectPostgres } from '../../engine/core/db/postgres';

async function main(): Promise<void> {
  const db = connectPostgres(process.env.DATABASE_URL!, {
    poolSize: 2,
    statementTimeoutMs: 10_000,
    connectTimeoutMs: 5_000,
  });
  const told: string[] = [];
  for (let i = 0; i < 6; i++) {
    try {
      await db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await tx.query('SELECT pg_terminate_backend(pg_backend_pid())');
        // A body that carries on after the failure: its statements never reach the closed connection.
        await tx.query('SELECT 2').catch(() => undefined);
      });
      told.push('committed');
    } catch (err) {
      told.push(String((err as { code?: unknown }).code ?? (err as Error).message));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const answers: unknown[] = [];
  // The first may still meet the ended backend's parting error (a connection failure, which the
  // engine answers as database-unavailable): told as `failed <code>`.
  for (let i = 0; i < 6; i++) {
    const failed = (err: { code?: unknown }) => `failed ${String(err.code)}`;
    answers.push(await db.query('SELECT $1::int AS x', [String(i)]).catch(failed));
  }
  await db.close();
  process.stdout.write(JSON.stringify({ told, answers }));
}

main().catch((e: unknown) => {
  process.stderr.write(String(e));
  process.exit(1);
});
