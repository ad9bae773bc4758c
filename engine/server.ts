import { Revocations } from './auth/revocation';
import { createSessionResolver } from './auth/sessions';
import type { EngineConfig } from './config/config';
import { connectDatabase } from './db/connect';
import type { Database } from './db/database';
import { migrate } from './db/migrate';
import { Engine } from './execute/engine';
import { createApp } from './http/app';
import { loadMetadata } from './metadata/load';
import { buildModel } from './metadata/model';
import { readLicense, type License } from './saml/license';
import { samlAvailable } from './saml/health';
import { seedDemoData, seedDemoScale } from '../sql/demo/seed';

export type Logger = (entry: Record<string, unknown>) => void;
export const jsonLogger: Logger = (entry) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);

export interface Started {
  engine: Engine;
  db: Database;
  app: ReturnType<typeof createApp>;
  /** This instance's memory of deleted tokens and suspended users (fed by LISTEN platform_auth). */
  revocations: Revocations;
  close(): Promise<void>;
}

/**
 * Start-up, in order: database, migrations, demo data (when asked and the tables are empty),
 * metadata checked against the catalog, engine, the listener for token deletions, HTTP app. Any error
 * stops start-up with its reason.
 */
export async function startEngine(config: EngineConfig, log: Logger = jsonLogger, existingDb?: Database): Promise<Started> {
  const db = existingDb ?? (await connectDatabase(config));
  try {
    await migrate(db, config.migrationsDir, (msg) => log({ level: 'info', msg }));
    if (config.seedDemo && (await seedDemoData(db))) {
      log({ level: 'info', msg: 'seeded the demo data set' });
      if (config.seedDemoScale > 0) {
        const r = await seedDemoScale(db, { scale: config.seedDemoScale });
        log({ level: 'info', msg: `generated demo data: ${r.message}`, seconds: Math.round(r.seconds * 10) / 10 });
      }
    }
    const model = await buildModel(db, loadMetadata(config.metadataDir));
    const engine = new Engine(model, db, config, log);
    if (config.auth.sessionSecretGenerated) {
      log({ level: 'warn', msg: 'NEXTAUTH_SECRET is not set: using a random one, so sign-in sessions and JWTs will not survive a restart or work across instances' });
    }
    const revocations = new Revocations(db, config.auth, log);
    await revocations.start();
    // SAML: the license (on-premise) and configuration problems, told once at start-up.
    let license: License | undefined;
    if (config.edition !== 'community' && config.deploymentMode === 'onprem' && config.saml.enabled) license = await readLicense(config.saml);
    if (samlAvailable(config)) {
      if (config.saml.missing.length > 0) log({ level: 'error', msg: `SAML not configured: ${config.saml.missing.join(', ')} missing` });
      for (const problem of config.saml.problems) log({ level: 'warn', msg: problem });
      if (license && !license.ok) log({ level: 'warn', msg: `license: ${license.problem}` });
    } else if (config.saml.enabled) {
      log({ level: 'warn', msg: 'SAML_ENABLED is set, but SAML single sign-on is not available in the Community edition' });
    }
    const resolveSession = createSessionResolver({ auth: config.auth, revocations, adminSecret: config.adminSecret });
    const app = createApp({ engine, db, bodyBytes: config.limits.bodyBytes, adminSecret: config.adminSecret, resolveSession, auth: config.auth, saml: { config, license: () => license, log } });
    const close = async () => {
      await revocations.stop();
      if (!existingDb) await db.close();
    };
    return { engine, db, app, revocations, close };
  } catch (err) {
    if (!existingDb) await db.close().catch(() => undefined);
    throw err;
  }
}
