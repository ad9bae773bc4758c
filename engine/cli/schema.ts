/*
 * engine/cli: `npm run schema`, the GraphQL schema a role is served, as SDL, for code generators
 * (graphql-codegen, gql.tada ...) without a running engine. Imports engine/compile and engine/core.
 */
import { parseArgs } from 'node:util';
import { printSchema } from 'graphql';
import { loadConfig } from '../core/config';
import { connectDatabase } from '../core/db/connect';
import type { Env } from '../core/env';
import { ADMIN_ROLE } from '../core/session';
import { loadMetadata, type LoadedMetadata } from '../compile/model/load';
import type { Model } from '../compile/model/model-types';
import { buildModel } from '../compile/model/model';
import { buildActionTypes } from '../compile/schema/action-types';
import { buildRoleSchema } from '../compile/schema/role-schema';
import { migrationsModel } from './catalogue-cache';

export class SchemaError extends Error {}

/**
 * The model: the metadata of METADATA_DIR over a database's catalogue (tables, columns, keys, enum
 * values). With DATABASE_URL, that database as it is: nothing is written to it. Without, the
 * catalogue of the migrations of MIGRATIONS_DIR, kept from an earlier run when it can be
 * (catalogue-cache.ts migrationsModel).
 */
async function modelOf(env: Env, metadata: LoadedMetadata): Promise<Model> {
  const config = loadConfig(env);
  if (!config.databaseUrl) return (await migrationsModel(config, metadata, 'schema')).model;
  const db = await connectDatabase(config, { holder: 'schema' });
  try {
    return await buildModel(db, metadata, config.tenancy);
  } finally {
    await db.close();
  }
}

/** The SDL of `role`'s schema (modelOf says where the catalogue comes from). */
export async function roleSchemaSdl(env: Env, role: string, warn: (msg: string) => void = () => {}): Promise<string> {
  // Before any database: a metadata directory that does not load fails at once.
  const metadata = loadMetadata(loadConfig(env).metadataDir);
  for (const w of metadata.warnings) warn(`${w.file}: ${w.message}`);
  const model = await modelOf(env, metadata);
  if (!model.roles.includes(role))
    throw new SchemaError(`no role "${role}" in the metadata; its roles: ${model.roles.join(', ')}`);
  const actions = buildActionTypes(metadata.actionsSdl, metadata.actions);
  // Nothing runs here: the actions' fields need a resolver to exist, never to be called.
  const { schema } = buildRoleSchema(model, role, actions, () => null);
  return printSchema(schema);
}

const USAGE = `usage: npm run schema [-- --role <role>]   (default: ${ADMIN_ROLE})
Prints the GraphQL schema (SDL) the role is served. The catalogue is read from DATABASE_URL when it
is set, otherwise from the migrations of MIGRATIONS_DIR (applied to an in-memory PGlite, then kept in
node_modules/.cache for the next run).`;

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
