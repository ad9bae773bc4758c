/*
 * engine/cli: `npm run schema`, the GraphQL schema a role is served, as SDL, for code generators
 * (graphql-codegen, gql.tada ...) without a running engine. Imports engine/compile and engine/core.
 */
import { parseArgs } from 'node:util';
import { printSchema } from 'graphql';
import { loadConfig, type EngineConfig } from '../core/config';
import { connectDatabase } from '../core/db/connect';
import type { Env } from '../core/env';
import { ADMIN_ROLE } from '../core/session';
import { migrate } from '../core/db/migrate';
import { loadMetadata } from '../compile/model/load';
import { buildModel } from '../compile/model/model';
import { buildActionTypes } from '../compile/schema/action-types';
import { buildRoleSchema } from '../compile/schema/role-schema';

export class SchemaError extends Error {}

/**
 * Where the catalogue (tables, columns, keys, enum values) is read from. With DATABASE_URL, that
 * database as it is: nothing is written to it. Without, a throw-away PGlite in memory with the
 * migrations of MIGRATIONS_DIR applied: the catalogue the embedded engine has, read in about a second,
 * with no files written, and usable while an engine holds the embedded database's folder (DATA_DIR is
 * one process's at a time).
 */
function catalogueConfig(env: Env): EngineConfig {
  const config = loadConfig(env);
  return config.databaseUrl ? config : { ...config, dataDir: 'memory://schema' };
}

/** The SDL of `role`'s schema: the metadata of METADATA_DIR over the catalogue (catalogueConfig). */
export async function roleSchemaSdl(env: Env, role: string, warn: (msg: string) => void = () => {}): Promise<string> {
  const config = catalogueConfig(env);
  // Before the database: a metadata directory that does not load fails at once.
  const metadata = loadMetadata(config.metadataDir);
  for (const w of metadata.warnings) warn(`${w.file}: ${w.message}`);
  const db = await connectDatabase(config, { holder: 'schema' });
  try {
    if (db.kind === 'pglite') await migrate(db, config.migrationsDir, () => undefined);
    const model = await buildModel(db, metadata, config.tenancy);
    if (!model.roles.includes(role))
      throw new SchemaError(`no role "${role}" in the metadata; its roles: ${model.roles.join(', ')}`);
    const actions = buildActionTypes(metadata.actionsSdl, metadata.actions);
    // Nothing runs here: the actions' fields need a resolver to exist, never to be called.
    const { schema } = buildRoleSchema(model, role, actions, () => null);
    return printSchema(schema);
  } finally {
    await db.close();
  }
}

const USAGE = `usage: npm run schema [-- --role <role>]   (default: ${ADMIN_ROLE})
Prints the GraphQL schema (SDL) the role is served. The catalogue is read from DATABASE_URL when it
is set, otherwise from an in-memory PGlite with the migrations of MIGRATIONS_DIR applied.`;

async function main(): Promise<number> {
  let role: string;
  try {
    const { values, positionals } = parseArgs({
      options: { role: { type: 'string', short: 'r' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (positionals.length > 1 || (values.role !== undefined && positionals.length)) throw new Error('one role only');
    role = values.role ?? positionals[0] ?? ADMIN_ROLE;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    process.stdout.write(await roleSchemaSdl(process.env, role, (msg) => process.stderr.write(`warning: ${msg}\n`)));
    return 0;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return err instanceof SchemaError ? 2 : 1;
  }
}

if (require.main === module) {
  // `npm run schema | head`: a reader that stops early is no failure.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  void main().then((code) => (process.exitCode = code));
}
