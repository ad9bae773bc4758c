/*
 * engine/cli: `npm run metadata -- check [DIR]`, the metadata folder checked as start-up would check
 * it, without starting an engine: for CI, and before a reload (POST /v1/metadata reload_metadata, SIGHUP).
 */
import * as path from 'node:path';
import { loadConfig, type EngineConfig } from '../core/config';
import { connectDatabase } from '../core/db/connect';
import type { Database } from '../core/db/database';
import { migrate } from '../core/db/migrate';
import { silentLogger } from '../core/logger';
import { ADMIN_ROLE } from '../core/session';
import { loadMetadata } from '../compile/model/load';
import { buildModel } from '../compile/model/model';
import { Engine } from '../compile/execute/engine';
import { ACTION_MODULES } from '../../actions/registry';

const USAGE = `usage: npm run metadata -- check [DIR]

Checks a metadata folder (DIR, or METADATA_DIR, or ./metadata) as the engine checks it at start-up:
the files and their schema, the tables and columns they name against the database, the action
handlers, and every role's GraphQL schema. Nothing is written and no engine is started.
The database: DATABASE_URL when set (read only: its migrations must be applied), otherwise a
throw-away in-memory PGlite with the migrations of sql/ applied.
Exit code 0 when the folder is good, 1 when it is not (the reason is printed), 2 on a usage error.`;

export interface MetadataIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** The database a check reads the catalogue of: the configured PostgreSQL, or a migrated in-memory PGlite. */
async function checkDatabase(config: EngineConfig): Promise<{ db: Database; what: string }> {
  if (config.databaseUrl)
    return { db: await connectDatabase(config, { holder: 'metadata check' }), what: 'PostgreSQL' };
  const db = await connectDatabase({ ...config, dataDir: 'memory://' }, { holder: 'metadata check' });
  try {
    await migrate(db, config.migrationsDir);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return { db, what: 'an in-memory PGlite with the migrations applied' };
}

/** Checks a metadata folder; the exit code. */
export async function checkMetadata(dir: string, io: MetadataIo): Promise<number> {
  let db: Database | undefined;
  try {
    const config = loadConfig(io.env);
    const metadata = loadMetadata(dir);
    for (const w of metadata.warnings) io.err(`warning: ${w.message}`);
    const opened = await checkDatabase(config);
    db = opened.db;
    const model = await buildModel(db, metadata, config.tenancy);
    const engine = new Engine(model, db, config, silentLogger, { modules: ACTION_MODULES, config: undefined });
    // Each role's schema is built at its first request in a running engine: built here, its errors show now.
    for (const role of [ADMIN_ROLE, ...model.roles.filter((r) => r !== ADMIN_ROLE)]) engine.schemaFor(role);
    io.out(
      `metadata ${dir}: good (${model.tables.length} tables, ${model.roles.length} roles, ${metadata.actions.length} actions; checked against ${opened.what})`,
    );
    return 0;
  } catch (err) {
    io.err(`metadata ${dir}: ${(err as Error).message}`);
    return 1;
  } finally {
    await db?.close().catch(() => undefined);
  }
}

/** `check [DIR]`; the exit code. */
export async function runMetadataCli(argv: string[], io: MetadataIo): Promise<number> {
  const [command, dir, ...extra] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return 0;
  }
  if (command !== 'check' || extra.length > 0 || dir?.startsWith('-')) {
    io.err(command && command !== 'check' ? `unknown command "${command}"\n\n${USAGE}` : USAGE);
    return 2;
  }
  const target = path.resolve(dir ?? io.env.METADATA_DIR ?? 'metadata');
  return checkMetadata(target, io);
}

if (require.main === module) {
  runMetadataCli(process.argv.slice(2), {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).then((code) => process.exit(code));
}
