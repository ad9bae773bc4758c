import './production-default';
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
import { laneServer } from './serve/http/graphql-lane';
import { drainAndClose, trackRequests } from './serve/http/shutdown';
import { keepConnections } from './serve/http/keep-alive';
import type { LoadedMetadata } from './compile/model/load';
import { loadMetadataKept } from './compile/model/metadata-cache';
import { liveEngine, type ReloadResult } from './compile/execute/live-engine';
import { keepSessionSecret } from './core/session-secret';
import { buildModel } from './compile/model/model';
import { readLicense, type License } from './serve/saml/license';
import { samlAvailable } from './serve/saml/health';
import { seedDemoData, seedDemoScale } from '../demo/seed';
import { loadActionsConfig, type ActionsConfig } from '../actions/config';
import { ACTION_MODULES, ACTION_PAGES } from '../actions/registry';
import { createLogger, jsonLogger, type Logger } from './core/logger';
import { startObservability, type Observability } from './serve/http/observability';
import { DataDirLocked } from './core/db/data-lock';
import { runAdminOn } from './cli/admin';
import { LiveQueries } from './compile/execute/live-queries';
import { SubscriptionHub } from './serve/ws/subscription-hub';
import { attachWebSockets } from './serve/ws/attach';
/**
 * The composition root: configuration -> database -> migrations -> demo data -> model -> engine ->
 * HTTP app. The only module that wires the floors together, and so the only one of the engine that
 * may import `actions/` and `demo/`. Run directly, it serves on PORT.
 */
export interface Started {
  engine: Engine;
  db: Database;
  app: ReturnType<typeof createApp>;
  /**
   * For @hono/node-server's `serve({fetch: app.fetch, createServer})`: Node's server with the GraphQL
   * lane in front of the app (serve/http/graphql-lane.ts), as every server of the engine should be.
   */
  createServer: ReturnType<typeof laneServer>;
  /** This instance's memory of deleted tokens and suspended users (fed by LISTEN platform_auth). */
  revocations: Revocations;
  /** The actions' settings (AI, Loki, Jira) this instance runs with. */
  actionsConfig: ActionsConfig;
  /** The live queries of subscriptions (its `statements` count the multiplexed statements run). */
  live: LiveQueries;
  /** Serves subscriptions over WebSocket on the server's GraphQL endpoints (README "Subscriptions"). */
  attachWebSockets(server: Server): void;
  /** Tells the embedded database's folder lock where this engine listens, so that `npm run admin` finds it. */
  listening(host: string, port: number): void;
  /** Reads the metadata folder again and serves it; a folder that does not make a model leaves the old one. */
  reloadMetadata(): Promise<ReloadResult>;
  /** Metrics, traces and the /metrics listener of METRICS_PORT (serve/http/observability.ts). */
  observability: Observability;
  /** Shutdown has begun: readiness answers 503 from now on, WebSocket connections are closed. */
  drain(): void;
  close(): Promise<void>;
}

/**
 * Start-up, in order: database (the metadata files are read meanwhile), migrations, demo data (when
 * asked and the tables are empty), metadata checked against the catalog, engine, the listener for
 * token deletions, HTTP app. Any error stops start-up with its reason. Each step's time is logged.
 */
export async function startEngine(
  config: EngineConfig,
  log: Logger = jsonLogger,
  existingDb?: Database,
): Promise<Started> {
  const timer = startupTimer();
  // The actions' settings first: a malformed one stops start-up before anything is opened.
  const actions = { modules: ACTION_MODULES, config: loadActionsConfig(config.env, config.auth.baseUrl) };
  const { db, metadata } = await openWithMetadata(config, log, existingDb);
  timer.lap('database and metadata files');
  try {
    // An engine handed a database (tests, the bench) has no data folder of its own to keep it in.
    if (!existingDb) keepSessionSecret(config.auth, config, log);
    await migrate(db, config.migrationsDir, (msg) => log({ level: 'info', msg }));
    timer.lap('migrations');
    await seedWhenAsked(db, config, log);
    timer.lap('demo data');
    const observability = await startObservability(config, db, log);
    const newEngine = async (m: LoadedMetadata) =>
      new Engine(await buildModel(db, m, config.tenancy), db, config, log, actions, observability);
    const live = liveEngine(await newEngine(metadata), () => newEngine(readMetadata(config, log)), log);
    timer.lap('model');
    // Session checks are sign-in's business: on the reserve pool, with the health checks.
    const revocations = new Revocations(db.reserve ?? db, config.auth, log);
    await revocations.start();
    const license = await samlLicense(config, log);
    let draining = false;
    const options = appOptions(config, { engine: live.engine, db, revocations, license, observability }, log);
    const app = createApp({
      ...options,
      draining: () => draining,
      adminCommand: (args, stdin) => runAdminOn(db, args, stdin),
      reloadMetadata: live.reload,
    });
    const subscriptions = serveSubscriptions(live.engine, config, options.resolveSession, log);
    const liveQueries = subscriptions.live;
    observability.metrics.watchSubscriptions(() => ({ ...liveQueries.counts(), statements: liveQueries.statements }));
    timer.lap('sign-in and HTTP');
    log({ level: 'info', msg: `engine started in ${timer.total()} ms`, ...timer.summary() });
    const close = async () => {
      await subscriptions.close();
      await observability.close();
      await revocations.stop();
      if (!existingDb) await db.close();
    };
    const listening = (host: string, port: number) => db.setAddress?.(host, port);
    const drain = () => void ((draining = true), subscriptions.closeSockets());
    const ws = { live: subscriptions.live, attachWebSockets: subscriptions.attach };
    const rest = { observability, listening, drain, close, reloadMetadata: live.reload, ...ws };
    const createServer = laneServer(options);
    return { engine: live.engine, db, app, createServer, revocations, actionsConfig: actions.config, ...rest };
  } catch (err) {
    if (!existingDb) await db.close().catch(() => undefined);
    throw err;
  }
}

/** The metadata folder read, its warnings logged. */
function readMetadata(config: EngineConfig, log: Logger): LoadedMetadata {
  const metadata = loadMetadataKept(config.metadataDir);
  for (const w of metadata.warnings) log({ level: 'warn', msg: w.message, file: w.file, feature: w.feature });
  return metadata;
}

/**
 * The database opened and the metadata files read at the same time: PGlite compiles its WebAssembly
 * off the main thread while the YAML is parsed on it. A metadata error closes the database once open.
 */
async function openWithMetadata(
  config: EngineConfig,
  log: Logger,
  existingDb?: Database,
): Promise<{ db: Database; metadata: LoadedMetadata }> {
  const opening = existingDb ? Promise.resolve(existingDb) : connectDatabase(config, { log });
  let metadata: LoadedMetadata;
  try {
    metadata = readMetadata(config, log);
  } catch (err) {
    // Closed before the error is told: a start that follows at once finds the folder free.
    if (!existingDb) await opening.then((db) => db.close()).catch(() => undefined);
    throw err;
  }
  return { db: await opening, metadata };
}

/** The HTTP app's settings that come from the configuration and the pieces started before it. */
function appOptions(
  config: EngineConfig,
  parts: {
    engine: Engine;
    db: Database;
    revocations: Revocations;
    license: License | undefined;
    observability: Observability;
  },
  log: Logger,
) {
  const { engine, db, revocations, license, observability } = parts;
  return {
    engine,
    db,
    bodyBytes: config.limits.bodyBytes,
    adminSecret: config.adminSecret,
    resolveSession: createSessionResolver({ auth: config.auth, revocations, adminSecret: config.adminSecret }),
    auth: config.auth,
    saml: { config, license: () => license, log },
    oauth: { config, license: () => license, log },
    pages: ACTION_PAGES,
    corsOrigins: config.corsOrigins,
    observe: { log, metrics: observability.metrics, tracing: observability.tracing },
    metrics: { metrics: observability.metrics, exposure: { token: config.observability.metricsToken } },
  };
}

/** Milliseconds of each start-up step, for the log line that tells where start-up time goes. */
function startupTimer() {
  const began = performance.now();
  let last = began;
  const steps: Record<string, number> = {};
  return {
    steps,
    lap(step: string) {
      const now = performance.now();
      steps[step] = Math.round(now - last);
      last = now;
    },
    total: () => Math.round(performance.now() - began),
    /**
     * The steps, and two figures a busy machine distorts less: the process's time since it began (module
     * loading included) and the CPU time it used, which is what the start-up costs where cores are free.
     */
    summary() {
      const cpu = process.cpuUsage();
      return {
        ms: Math.round(performance.now() - began),
        steps,
        processMs: Math.round(performance.now()),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      };
    },
  };
}

/** Live queries, and the WebSocket endpoints that serve them once attached to an HTTP server. */
function serveSubscriptions(
  engine: Engine,
  config: EngineConfig,
  resolveSession: ReturnType<typeof createSessionResolver>,
  log: Logger,
) {
  // Subscriptions only read: their polls go to the read replicas when there are any.
  const live = new LiveQueries(
    engine.db.replicas ?? engine.db,
    {
      intervalMs: config.subscriptions.refetchIntervalMs,
      batchSize: config.subscriptions.batchSize,
      maxResponseBytes: config.limits.maxResponseBytes,
    },
    log,
  );
  const hub = new SubscriptionHub({
    engine,
    live,
    resolveSession,
    config: config.subscriptions,
    corsOrigins: config.corsOrigins,
    log,
  });
  const sockets: { close(): Promise<void> }[] = [];
  // WebSocket connections would hold the HTTP server's close: they are told to go (1001) at once.
  const closeSockets = () => Promise.all(sockets.splice(0).map((s) => s.close()));
  return {
    live,
    attach: (server: Server) => void sockets.push(attachWebSockets(server, hub, config.subscriptions)),
    closeSockets: () => void closeSockets(),
    close: async () => {
      await closeSockets();
      hub.close();
      live.close();
    },
  };
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
  const started = await startEngine(config, createLogger(config.observability.logLevel));
  const host = process.env.HOST || '0.0.0.0';
  const server = serve(
    { fetch: started.app.fetch, createServer: started.createServer, port: config.port, hostname: host },
    (info) => {
      started.listening(host, info.port);
      jsonLogger({
        level: 'info',
        msg: `GraphQL engine listening on http://localhost:${info.port}/api/graphql`,
        database: started.db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL',
        tables: started.engine.model.tables.length,
        adminSecret: config.adminSecret ? 'set' : 'unset (admin access off)',
      });
      process.stdout.write(welcome(info.port, config.adminSecret !== undefined, started.db.kind === 'pglite'));
    },
  );
  keepConnections(server as Server, config.keepAliveSeconds);
  started.attachWebSockets(server as Server);
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
  // SIGHUP: the metadata folder read again (as POST /v1/metadata reload_metadata); a bad one is logged and left.
  process.on('SIGHUP', () => void started.reloadMetadata());
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
