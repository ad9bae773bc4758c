/**
 * A query statement (query.ts) made to serve many subscribers at once, as Hasura multiplexes live
 * queries: every placeholder but the last (the answer's byte limit) becomes an array holding one value
 * per cohort (a set of variable and session values), the arrays are unnested side by side WITH
 * ORDINALITY, and the statement runs once per cohort in a LATERAL join. Each row of the answer is one
 * cohort's: its number (1-based, in the order of the arrays), then the statement's own columns (its
 * fields' JSON, their row counts, its size). An array is of its placeholder's type when the caller
 * knows it (`cohortTypes`), else of text: the original placeholders carry their casts (`$3::uuid`), so
 * a cohort's text value read in their place keeps every type as it was.
 *
 * Each array is read through a sub-select, `unnest((SELECT $1::uuid[]), ...)`, so that PostgreSQL does
 * not see how many cohorts it holds when it plans. It sees nothing else of the values either (they are
 * the unnested columns), so its custom plan of a call is its generic plan plus the cost of planning,
 * and after five calls a prepared statement keeps the generic one. With the arrays as bare
 * placeholders a custom plan counted the cohorts (unnest's row estimate of a constant array) and looked
 * cheaper than the generic plan's default count: every batch was planned anew. Measured on the bench's
 * data (the `nested` workload's statement, PostgreSQL 15, one connection, its backend's CPU a call):
 * 850 µs for a batch of one planned anew against 430 µs for the generic plan, the cost of a lone
 * statement; 1,900 against 1,350 µs for a batch of four.
 */

/** A placeholder `$n` outside an identifier or a quoted name. */
const PLACEHOLDER = /(?<![\w$"])\$(\d+)(?!\d)/g;

export interface Multiplexed {
  text: string;
  /** Placeholders $1..$cohortParams are the cohort arrays (of `cohortTypes`, or text); $cohortParams+1, if any, is the byte limit. */
  cohortParams: number;
}

/** How requests coalesced by the engine (engine/compile/execute/coalesce.ts) want it. */
export interface MultiplexOptions {
  /** The byte limit is a cohort's value too (each request has its own): every placeholder is a cohort array. */
  bytesPerCohort?: boolean;
  /**
   * Each row carries `__at`, the database's clock (seconds since the epoch, a float) when the row was
   * made: cohorts run one after the other, so the first and last rows' times tell what a cohort costs
   * the database, apart from the round trip and the engine's own waits.
   */
  timed?: boolean;
  /**
   * The SQL type of each cohort placeholder ($1 first; writer.ts cohortType, or as PostgreSQL describes
   * it): its array is unnested as that type, so that a value is parsed once per cohort. Undefined or
   * absent: text, cast where used by the statement's own cast. An array type (`text[]`) cannot be an
   * array's element: its values are unnested as text and cast to it where used.
   */
  cohortTypes?: readonly (string | undefined)[];
}

export function multiplexedStatement(text: string, bytesParam: number, options: MultiplexOptions = {}): Multiplexed {
  const cohortParams = options.bytesPerCohort ? bytesParam : bytesParam - 1;
  const types = options.cohortTypes ?? [];
  const body = cohortPlaceholders(text, cohortParams, types);
  const at = options.timed ? `, extract(epoch FROM clock_timestamp())::float8 AS "__at"` : '';
  return {
    text: `SELECT _c."__cohort" AS "__cohort"${at}, _r.* FROM ${cohortsSql(cohortParams, types)} CROSS JOIN LATERAL (${body}) AS _r`,
    cohortParams,
  };
}

const isArrayType = (type: string | undefined) => type?.endsWith('[]') === true;

/** `text` with placeholders $1..$cohortParams read from the cohort's columns (`_c."p1"`, ...), cast as `types` say. */
export function cohortPlaceholders(text: string, cohortParams: number, types: readonly (string | undefined)[]): string {
  return text.replace(PLACEHOLDER, (whole, digits: string) => {
    const n = Number(digits);
    if (n > cohortParams) return whole;
    const type = types[n - 1];
    return isArrayType(type) ? `_c."p${n}"::${type}` : `_c."p${n}"`;
  });
}

/**
 * The cohorts as a FROM item named `_c`: placeholders $1..$cohortParams unnested side by side, with
 * their number (`__cohort`, from 1); one cohort of its number alone when there is no placeholder.
 */
export function cohortsSql(cohortParams: number, types: readonly (string | undefined)[]): string {
  if (cohortParams === 0) return `(SELECT 1::bigint AS "__cohort") AS _c`;
  const arrays = range(cohortParams).map(
    (i) => `(SELECT $${i}::${isArrayType(types[i - 1]) ? 'text' : (types[i - 1] ?? 'text')}[])`,
  );
  const columns = range(cohortParams).map((i) => `"p${i}"`);
  return `unnest(${arrays.join(', ')}) WITH ORDINALITY AS _c(${columns.join(', ')}, "__cohort")`;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
