/**
 * A heavier spends table than the demo's 59 days: one more spend line per resource and day for the
 * `days` days before 2026-01-01, for every tenant. Amounts are derived from the row's key, so two
 * runs hold the same data.
 */
export function extraSpendsSql(days: number): string {
  if (!Number.isInteger(days) || days < 0) throw new Error(`extra spend days must be a non-negative integer, got ${days}`);
  return `INSERT INTO spends (tenant, cloud_account, cloud_resource_id, date, amount, unit, exclude_aggregate)
SELECT r.tenant, r.account, r.id, d, round((abs(hashtext(r.id::text || d::text)) % 100000) / 100.0, 2)::float8, 'USD', false
FROM cloud_resourses r
CROSS JOIN generate_series(timestamp '2026-01-01' - interval '1 day' * ${days}, timestamp '2025-12-31', interval '1 day') AS d`;
}
