/**
 * A query statement (query.ts) made to serve many subscribers at once, as Hasura multiplexes live
 * queries: every placeholder but the last (the answer's byte limit) becomes a text array holding one
 * value per cohort (a set of variable and session values), the arrays are unnested side by side WITH
 * ORDINALITY, and the statement runs once per cohort in a LATERAL join. Each row of the answer is one
 * cohort's: its number (1-based, in the order of the arrays), then the statement's own columns (its
 * fields' JSON, their row counts, its size). The original
 * placeholders carry their casts (`$3::uuid`), so reading the cohort's text value in their place keeps
 * every type as it was.
 */

/** A placeholder `$n` outside an identifier or a quoted name. */
const PLACEHOLDER = /(?<![\w$"])\$(\d+)(?!\d)/g;

export interface Multiplexed {
  text: string;
  /** Placeholders $1..$cohortParams are the cohort arrays (text[]); $cohortParams+1, if any, is the byte limit. */
  cohortParams: number;
}

/**
 * `bytesPerCohort`: the byte limit is a cohort's value too (requests coalesced by the engine each
 * have their own, engine/compile/execute/coalesce.ts); then every placeholder is a cohort array.
 */
export function multiplexedStatement(text: string, bytesParam: number, bytesPerCohort = false): Multiplexed {
  const cohortParams = bytesPerCohort ? bytesParam : bytesParam - 1;
  const body = text.replace(PLACEHOLDER, (whole, digits: string) => {
    const n = Number(digits);
    if (n > cohortParams) return whole;
    return `_c."p${n}"`;
  });
  const cohorts =
    cohortParams === 0
      ? `(SELECT 1::bigint AS "__cohort") AS _c`
      : `unnest(${range(cohortParams)
          .map((i) => `$${i}::text[]`)
          .join(', ')}) WITH ORDINALITY AS _c(${range(cohortParams)
          .map((i) => `"p${i}"`)
          .join(', ')}, "__cohort")`;
  return {
    text: `SELECT _c."__cohort" AS "__cohort", _r.* FROM ${cohorts} CROSS JOIN LATERAL (${body}) AS _r`,
    cohortParams,
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
