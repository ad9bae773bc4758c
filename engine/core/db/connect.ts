import type { EngineConfig } from '../config';
import type { Database } from './database';
import { openPglite } from './pglite';
import { connectPostgres } from './postgres';

/**
 * PostgreSQL when DATABASE_URL is set, the embedded PGlite otherwise; `holder` names the opener in the
 * PGlite folder's lock (`engine`, `admin`, ...).
 */
export async function connectDatabase(config: EngineConfig, holder = 'engine'): Promise<Database> {
  const timeout = { statementTimeoutMs: config.limits.statementTimeoutMs };
  if (config.databaseUrl) {
    const db = connectPostgres(config.databaseUrl, { poolSize: config.poolSize, ...timeout });
    await db.query('SELECT 1');
    return db;
  }
  return openPglite(config.dataDir, { ...timeout, holder });
}
