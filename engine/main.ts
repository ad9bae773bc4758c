import { serve } from '@hono/node-server';
import { loadConfig } from './config/config';
import { jsonLogger, startEngine } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const started = await startEngine(config);
  const server = serve({ fetch: started.app.fetch, port: config.port, hostname: process.env.HOST || '0.0.0.0' }, (info) => {
    jsonLogger({
      level: 'info',
      msg: `GraphQL engine listening on http://localhost:${info.port}/api/graphql`,
      database: started.db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL',
      tables: started.engine.model.tables.length,
      adminSecret: config.adminSecret ? 'set' : 'unset (admin access off)',
    });
    process.stdout.write(welcome(info.port, config.adminSecret !== undefined, started.db.kind === 'pglite'));
  });
  const stop = async () => {
    server.close();
    await started.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** How to reach the running platform, for a person at the terminal. */
function welcome(port: number, adminSecret: boolean, embedded: boolean): string {
  const base = `http://localhost:${port}`;
  return [
    '',
    `  Sign in:       ${base}/signin   (User Settings -> API Tokens)`,
    `  GraphQL:       ${base}/api/graphql   (console: ${base}/console)`,
    `  Token exchange: POST ${base}/api/auth/token {"email", "secret"}`,
    '  A password for a demo user (Acme Corp, tenant 11111111-0000-4000-8000-000000000001):',
    '    npm run admin -- set-password --email alice.admin@acme.example.com --password-stdin',
    embedded ? '    (stop this server first: the embedded database serves one process at a time)' : '',
    adminSecret ? '  Admin secret: send x-hasura-admin-secret, with x-hasura-role and x-hasura-tenant-id to act as a tenant role.' : '  Set ADMIN_SECRET to query as admin with x-hasura-admin-secret.',
    '',
  ].filter((line, i, all) => line !== '' || i === 0 || i === all.length - 1).join('\n') + '\n';
}

main().catch((err) => {
  jsonLogger({ level: 'fatal', msg: (err as Error).message });
  process.exit(1);
});
