import type { Database } from './database';

/** Names of the statements prepared to be described, one per call: a name left behind takes no other's. */
let described = 0;

/**
 * The types PostgreSQL gives a statement's placeholders ($1 first), as SQL type names (`uuid`,
 * `timestamp without time zone`, `text[]`): the statement is PREPAREd on one connection, its
 * `pg_prepared_statements.parameter_types` read and the statement deallocated. The same on
 * PostgreSQL and on PGlite, which both answer it in SQL. Rejects when the statement does not prepare.
 */
export async function placeholderTypes(db: Database, text: string): Promise<string[]> {
  const name = `_engine_described_${++described}`;
  // Not kept as prepared statements of the connection's own: each text is described once.
  const once = { prepare: false };
  return db.transaction(async (tx) => {
    await tx.query(`PREPARE ${name} AS ${text}`, [], once);
    try {
      const [row] = await tx.query(
        `SELECT array_to_json(parameter_types::text[])::text AS "types" FROM pg_prepared_statements WHERE name = '${name}'`,
        [],
        once,
      );
      return JSON.parse(String(row.types)) as string[];
    } finally {
      await tx.query(`DEALLOCATE ${name}`, [], once);
    }
  });
}
