import type { Database } from '../../engine/db/database';
import { demoDataSql } from './demo-data';

/**
 * Loads the small demo data set, once: only when the platform's `tenant` table exists and is empty,
 * so a restart or a database with real data is left alone. Returns whether it seeded.
 */
export async function seedDemoData(db: Database): Promise<boolean> {
  const [row] = await db.query(`SELECT to_regclass('public.tenant') IS NOT NULL AS present`);
  if (!row.present) return false;
  const [count] = await db.query('SELECT count(*)::int AS n FROM public.tenant');
  if (Number(count.n) > 0) return false;
  await db.transaction((tx) => tx.exec(demoDataSql()));
  return true;
}
