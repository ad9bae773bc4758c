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
  });
  const stop = async () => {
    server.close();
    await started.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  jsonLogger({ level: 'fatal', msg: (err as Error).message });
  process.exit(1);
});
