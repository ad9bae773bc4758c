/*
 * engine/cli: `npm run metadata -- check [DIR]`, the metadata folder checked as start-up would check
 * it, without starting an engine: for CI, and before a reload (POST /v1/metadata reload_metadata, SIGHUP).
 */
import * as path from 'node:path';
import { loadConfig, type EngineConfig } from '../core/config';
import { connectDatabase } from '../core/db/connect';
import type { Database } from '../core/db/database';
import { silentLogger } from '../core/logger';
import { ADMIN_ROLE } from '../core/session';
import { loadMetadata, type LoadedMetadata } from '../compile/model/load';
import type { Model } from '../compile/model/model-types';
import { buildModel } from '../compile/model/model';
import { Engine } from '../compile/execute/engine';
import { ACTION_MODULES } from '../../actions/registry';
import { migrationsModel } from './catalogue-cache';

const USAGE = `usage: npm run metadata -- check [DIR]

Checks a metadata folder (DIR, or METADATA_DIR, or ./metadata) as the engine checks it at start-up:
the files and their schema, the tables and columns they name against the database, the action
handlers, and every role's GraphQL schema. Nothing is written and no engine is started.
The database: DATABASE_URL when set (read only: its migrations must be applied), otherwise the
catalogue of the migrations of sql/ (applied to an in-memory PGlite, then kept in node_modules/.cache
for the next run).
Exit code 0 when the folder is good, 1 when it is not (the reason is printed), 2 on a usage error.`;

export interface MetadataIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * The engine's database in a check against the migrations' catalogue: none. The engine is made only
 * to build each role's schema, which runs no statement; one that did would fail the check, not pass.
 */
const refuse = () => Promise.reject(new Error('a metadata check runs no statement'));
const NO_DATABASE: Database = {
  kind: 'pglite',
  query: refuse,
  exec: refuse,
  transaction: refuse,
  listen: refuse,
  close: async () => undefined,
};

/**
 * The model to check and the database it was read from: the configured PostgreSQL (read only), or
 * the catalogue of the migrations, kept from an earlier run or read from an in-memory PGlite
 * (catalogue-cache.ts migrationsModel).
 */
async function modelToCheck(
  config: EngineConfig,
  metadata: LoadedMetadata,
): Promise<{ model: Model; db: Database; what: string }> {
  if (!config.databaseUrl) {
    const { model, kept } = await migrationsModel(config, metadata, 'metadata check');
    const what = kept ? 'the catalogue of the migrations, kept from an earlier check' : 'an in-memory PGlite';
    return { model, db: NO_DATABASE, what: `${what} with the migrations applied` };
  }
  const db = await connectDatabase(config, { holder: 'metadata check' });
  try {
    return { model: await buildModel(db, metadata, config.tenancy), db, what: 'PostgreSQL' };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

/** Checks a metadata folder; the exit code. */
export async function checkMetadata(dir: string, io: MetadataIo): Promise<number> {
  let db: Database | undefined;
  try {
    const config = loadConfig(io.env);
    const metadata = loadMetadata(dir);
    for (const w of metadata.warnings) io.err(`warning: ${w.message}`);
    const opened = await modelToCheck(config, metadata);
    db = opened.db;
    const model = opened.model;
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
