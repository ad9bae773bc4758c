import postgres from 'postgres';
import type { Database, Param, Queryable, Row } from './database';

/** PostgreSQL 15+ through postgres.js: a pool, prepared statements, no type parsing of engine output. */
export function connectPostgres(url: string, opts: { poolSize: number; statementTimeoutMs: number }): Database {
  const sql = postgres(url, {
    max: opts.poolSize,
    prepare: true,
    onnotice: () => undefined,
    connection: { statement_timeout: opts.statementTimeoutMs, application_name: 'graphql-engine' },
  });
  const wrap = (q: postgres.Sql | postgres.TransactionSql): Queryable => ({
    async query(text: string, params: readonly Param[] = []): Promise<Row[]> {
      const rows = await q.unsafe(text, params as Param[], { prepare: true });
      return rows as unknown as Row[];
    },
    async exec(script: string): Promise<void> {
      await q.unsafe(script).simple();
    },
  });
  const base = wrap(sql);
  return {
    kind: 'postgres',
    query: base.query,
    exec: base.exec,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => sql.begin((tx) => fn(wrap(tx))) as Promise<T>,
    close: () => sql.end({ timeout: 5 }),
  };
}
