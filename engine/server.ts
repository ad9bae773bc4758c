import type { EngineConfig } from './config/config';
import { connectDatabase } from './db/connect';
import type { Database } from './db/database';
import { migrate } from './db/migrate';
import { Engine } from './execute/engine';
import { createApp } from './http/app';
import { loadMetadata } from './metadata/load';
import { buildModel } from './metadata/model';
import { seedDemoData } from '../sql/demo/seed';

export type Logger = (entry: Record<string, unknown>) => void;
export const jsonLogger: Logger = (entry) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);

export interface Started {
  engine: Engine;
  db: Database;
  app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

/**
 * Start-up, in order: database, migrations, demo data (when asked and the tables are empty),
 * metadata checked against the catalog, engine, HTTP app. Any error stops start-up with its reason.
 */
export async function startEngine(config: EngineConfig, log: Logger = jsonLogger, existingDb?: Database): Promise<Started> {
  const db = existingDb ?? (await connectDatabase(config));
  try {
    await migrate(db, config.migrationsDir, (msg) => log({ level: 'info', msg }));
    if (config.seedDemo && (await seedDemoData(db))) log({ level: 'info', msg: 'seeded the demo data set' });
    const model = await buildModel(db, loadMetadata(config.metadataDir));
    const engine = new Engine(model, db, config, log);
    const app = createApp({ engine, db, bodyBytes: config.limits.bodyBytes, adminSecret: config.adminSecret });
    return { engine, db, app, close: () => (existingDb ? Promise.resolve() : db.close()) };
  } catch (err) {
    if (!existingDb) await db.close().catch(() => undefined);
    throw err;
  }
}
