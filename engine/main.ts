import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { loadConfig } from './core/config';
import { Revocations } from './serve/auth/revocation';
import { createSessionResolver } from './serve/auth/resolve-session';
import type { EngineConfig } from './core/config';
import { connectDatabase } from './core/db/connect';
import type { Database } from './core/db/database';
import { migrate } from './core/db/migrate';
import { Engine } from './compile/execute/engine';
import { createApp } from './serve/http/app';
import { drainAndClose, trackRequests } from './serve/http/shutdown';
import { loadMetadata } from './compile/model/load';
import { buildModel } from './compile/model/model';
import { readLicense, type License } from './serve/saml/license';
import { samlAvailable } from './serve/saml/health';
import { seedDemoData, seedDemoScale } from '../demo/seed';
import { loadActionsConfig, type ActionsConfig } from '../actions/config';
import { ACTION_MODULES, ACTION_PAGES } from '../actions/registry';
import { jsonLogger, type Logger } from './core/logger';
import { DataDirLocked } from './core/db/data-lock';
import { runAdminOn } from './cli/admin';
/**
 * The composition root: configuration -> database -> migrations -> demo data -> model -> engine ->
 * HTTP app. The only module that wires the floors together, and so the only one of the engine that
 * may import `actions/` and `demo/`. Run directly, it serves on PORT.
 */
export interface Started {
  engine: Engine;
  db: Database;
  app: ReturnType<typeof createApp>;
  /** This instance's memory of deleted tokens and suspended users (fed by LISTEN platform_auth). */
  revocations: Revocations;
  /** The actions' settings (AI, Loki, Jira) this instance runs with. */
  actionsConfig: ActionsConfig;
  /** Tells the embedded database's folder lock where this engine listens, so that `npm run admin` finds it. */
  listening(host: string, port: number): void;
  /** Shutdown has begun: readiness answers 503 from now on. */
  drain(): void;
  close(): Promise<void>;
}

/**
 * Start-up, in order: database, migrations, demo data (when asked and the tables are empty),
 * metadata checked against the catalog, engine, the listener for token deletions, HTTP app. Any error
 * stops start-up with its reason.
 */
export async function startEngine(
  config: EngineConfig,
  log: Logger = jsonLogger,
  existingDb?: Database,
): Promise<Started> {
  // The actions' settings first: a malformed one stops start-up before anything is opened.
  const actions = { modules: ACTION_MODULES, config: loadActionsConfig(config.env, config.auth.baseUrl) };
  const db = existingDb ?? (await connectDatabase(config, { log }));
  try {
    await migrate(db, config.migrationsDir, (msg) => log({ level: 'info', msg }));
    await seedWhenAsked(db, config, log);
    const metadata = loadMetadata(config.metadataDir);
    for (const w of metadata.warnings) log({ level: 'warn', msg: w.message, file: w.file, feature: w.feature });
    const model = await buildModel(db, metadata, config.tenancy);
    const engine = new Engine(model, db, config, log, actions);
    if (config.auth.sessionSecretGenerated) {
      log({
        level: 'warn',
        msg: 'NEXTAUTH_SECRET is not set: using a random one, so sign-in sessions and JWTs will not survive a restart or work across instances',
      });
    }
    // Session checks are sign-in's business: on the reserve pool, with the health checks.
    const revocations = new Revocations(db.reserve ?? db, config.auth, log);
    await revocations.start();
    const license = await samlLicense(config, log);
    const resolveSession = createSessionResolver({ auth: config.auth, revocations, adminSecret: config.adminSecret });
    let draining = false;
    const app = createApp({
      draining: () => draining,
      engine,
      db,
      bodyBytes: config.limits.bodyBytes,
      adminSecret: config.adminSecret,
      resolveSession,
      auth: config.auth,
      saml: { config, license: () => license, log },
      oauth: { config, license: () => license, log },
      pages: ACTION_PAGES,
      corsOrigins: config.corsOrigins,
      adminCommand: (args, stdin) => runAdminOn(db, args, stdin),
    });
    const close = async () => {
      await revocations.stop();
      if (!existingDb) await db.close();
    };
    const listening = (host: string, port: number) => db.setAddress?.(host, port);
    const drain = () => void (draining = true);
    return { engine, db, app, revocations, actionsConfig: actions.config, listening, drain, close };
  } catch (err) {
    if (!existingDb) await db.close().catch(() => undefined);
    throw err;
  }
}

/** The demo data set (and its generated scale) when configured and the tables are empty. */
async function seedWhenAsked(db: Database, config: EngineConfig, log: Logger): Promise<void> {
  if (!config.seedDemo || !(await seedDemoData(db))) return;
  log({ level: 'info', msg: 'seeded the demo data set' });
  if (config.seedDemoScale > 0) {
    const r = await seedDemoScale(db, { scale: config.seedDemoScale });
    log({ level: 'info', msg: `generated demo data: ${r.message}`, seconds: Math.round(r.seconds * 10) / 10 });
  }
}

/** SAML and provider sign-in: the license (on-premise) and configuration problems, told once at start-up. */
async function samlLicense(config: EngineConfig, log: Logger): Promise<License | undefined> {
  let license: License | undefined;
  // Provider and e-mail link sign-in place new users in the license's tenant too (on-premise, every edition).
  const samlOn = config.edition !== 'community' && config.saml.enabled;
  const providersOn = config.providers.oauth.length > 0 || config.providers.email !== undefined;
  if (config.deploymentMode === 'onprem' && (samlOn || providersOn)) license = await readLicense(config.saml);
  for (const p of config.providers.problems) log({ level: 'error', msg: p.message });
  if (samlAvailable(config)) {
    if (config.saml.missing.length > 0)
      log({ level: 'error', msg: `SAML not configured: ${config.saml.missing.join(', ')} missing` });
    for (const problem of config.saml.problems) log({ level: 'warn', msg: problem });
    if (license && !license.ok) log({ level: 'warn', msg: `license: ${license.problem}` });
  } else if (license && !license.ok) {
    log({ level: 'warn', msg: `license: ${license.problem}; provider sign-in cannot create new users` });
  }
  if (!samlAvailable(config) && config.saml.enabled) {
    log({
      level: 'warn',
      msg: 'SAML_ENABLED is set, but SAML single sign-on is not available in the Community edition',
    });
  }
  return license;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const started = await startEngine(config);
  const host = process.env.HOST || '0.0.0.0';
  const server = serve({ fetch: started.app.fetch, port: config.port, hostname: host }, (info) => {
    started.listening(host, info.port);
    jsonLogger({
      level: 'info',
      msg: `GraphQL engine listening on http://localhost:${info.port}/api/graphql`,
      database: started.db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL',
      tables: started.engine.model.tables.length,
      adminSecret: config.adminSecret ? 'set' : 'unset (admin access off)',
    });
    process.stdout.write(welcome(info.port, config.adminSecret !== undefined, started.db.kind === 'pglite'));
  });
  let draining = false;
  const tracker = trackRequests(server as Server, () => draining);
  const stop = (signal: string) => {
    if (draining) {
      jsonLogger({ level: 'warn', msg: `${signal} again: exiting without waiting for the requests in flight` });
      process.exit(1);
    }
    draining = true;
    started.drain();
    jsonLogger({ level: 'info', msg: `${signal} received` });
    drainAndClose(server as Server, tracker, {
      drainMs: config.drainSeconds * 1000,
      log: jsonLogger,
      close: () => started.close(),
    }).then(
      () => process.exit(0),
      (err) => {
        jsonLogger({ level: 'error', msg: `shutdown: ${(err as Error)?.message}` });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** How to reach the running platform, for a person at the terminal. */
function welcome(port: number, adminSecret: boolean, embedded: boolean): string {
  const base = `http://localhost:${port}`;
  return (
    [
      '',
      `  Sign in:       ${base}/signin   (User Settings -> API Tokens)`,
      `  GraphQL:       ${base}/api/graphql   (console: ${base}/console)`,
      `  Token exchange: POST ${base}/api/auth/token {"email", "secret"}`,
      '  A password for a demo user (Acme Corp, tenant 11111111-0000-4000-8000-000000000001):',
      '    npm run admin -- set-password --email alice.admin@acme.example.com --password-stdin',
      !embedded
        ? ''
        : adminSecret
          ? "    (with this server's ADMIN_SECRET set: the embedded database is its alone, the command goes through it)"
          : "    (stop this server first, or start it with ADMIN_SECRET: the embedded database is one process's alone)",
      adminSecret
        ? '  Admin secret: send x-hasura-admin-secret, with x-hasura-role and x-hasura-tenant-id to act as a tenant role.'
        : '  Set ADMIN_SECRET to query as admin with x-hasura-admin-secret.',
      '',
    ]
      .filter((line, i, all) => line !== '' || i === 0 || i === all.length - 1)
      .join('\n') + '\n'
  );
}

if (require.main === module) {
  main().catch((err) => {
    const advice = err instanceof DataDirLocked ? '; stop it first, or set DATA_DIR to another folder' : '';
    jsonLogger({ level: 'fatal', msg: `${(err as Error).message}${advice}` });
    process.exit(1);
  });
}
