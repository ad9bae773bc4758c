/**
 * `npm run seed -- --scale N`: demo data for trying the platform and for measuring it.
 *
 * Connects as the engine does (DATABASE_URL, or the embedded PGlite in DATA_DIR), applies the
 * migrations, loads the fixed demo set when the tenant table is empty, then adds the generated data
 * of scale N on top (about 100,000 × N spend lines; see scale.ts). On PostgreSQL the rows go
 * through COPY, on PGlite through large multi-row INSERTs; all in one transaction. Running it again
 * with the same scale adds nothing; a larger scale adds only what is missing.
 */
import postgres from 'postgres';
import { loadConfig, type EngineConfig } from '../engine/core/config';
import { connectDatabase } from '../engine/core/db/connect';
import { migrate } from '../engine/core/db/migrate';
import { copyTarget, formatReport, insertTarget, TerminalProgress } from './load';
import { SHAPE, type ScalePlan } from './scale';
import { seedDemoData, seedDemoScale, type ScaleSeedResult, type SeedState } from './seed';
import { DEMO } from './demo-data';

const USAGE = `Usage: npm run seed -- [--scale N] [--tenants T] [--inserts] [--per-row-fk-checks]

  --scale N     generated data of scale N on top of the demo set (default 1):
                ${SHAPE.accountsPerScale} × N cloud accounts, about ${(SHAPE.accountsPerScale * SHAPE.resourcesPerAccount * SHAPE.spendDays).toLocaleString('en-US')} × N spend lines
  --tenants T   tenants in all: Acme, Globex and T - 2 generated ones (default 2, or what the
                database holds already)
  --inserts     on PostgreSQL, write with multi-row INSERTs instead of COPY
  --per-row-fk-checks
                let the database check foreign keys row by row as they go in, instead of
                loading in replica mode and checking each foreign key with one query
                before committing (the default for a superuser: 3-4 times faster on
                PostgreSQL, the same guarantee)

The database is the engine's: DATABASE_URL, or the embedded PGlite in DATA_DIR (default data/pglite;
stop the engine first: PGlite's folder is for one process at a time).`;

interface Args {
  scale: number;
  tenants?: number;
  inserts: boolean;
  perRowChecks: boolean;
}

function parseArgs(argv: readonly string[]): Args | 'help' {
  const args: Args = { scale: 1, inserts: false, perRowChecks: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--scale': {
        const v = Number(value());
        if (!Number.isFinite(v) || v <= 0) throw new Error('--scale must be a positive number');
        args.scale = v;
        break;
      }
      case '--tenants': {
        const v = Number(value());
        if (!Number.isInteger(v) || v < 2) throw new Error('--tenants must be an integer of at least 2');
        args.tenants = v;
        break;
      }
      case '--inserts':
        args.inserts = true;
        break;
      case '--per-row-fk-checks':
        args.perRowChecks = true;
        break;
      case '-h':
      case '--help':
        return 'help';
      default:
        throw new Error(`unknown argument ${arg}`);
    }
  }
  return args;
}

type Say = (line: string) => void;

/** The arguments; null when the usage was asked for (and printed). A bad argument exits with the usage. */
function argsOrUsage(argv: readonly string[]): Args | null {
  let args: Args | 'help';
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (args === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return null;
  }
  return args;
}

function planLine(scale: number, plan: ScalePlan, state: SeedState | null, method: string): string {
  const accounts = plan.toAccount - plan.fromAccount;
  return (
    `scale ${scale}: ${plan.tenants.length} tenants, generated accounts ${plan.fromAccount + 1} to ${plan.toAccount}` +
    ` (${accounts.toLocaleString('en-US')} new${state ? `, ${state.accounts.toLocaleString('en-US')} there already` : ''}), with ${method === 'copy' ? 'COPY' : 'multi-row INSERTs'}`
  );
}

function reportResult(say: Say, result: ScaleSeedResult): void {
  if (result.foreignKeys?.mode === 'after-load') {
    say(
      `${'foreign keys'.padEnd(28)} ${String(result.foreignKeys.constraints).padStart(12)} checked after the load ${result.foreignKeys.seconds.toFixed(1).padStart(5)} s`,
    );
  } else if (result.foreignKeys) {
    say('foreign keys checked row by row as the rows went in');
  }
  say(result.message);
  if (result.seeded) {
    const rows = result.tables.reduce((sum, t) => sum + t.rows, 0);
    say(formatReport({ table: 'total (with ANALYZE)', rows, seconds: result.seconds }));
  }
}

function sayHowToTry(say: Say, config: EngineConfig): void {
  say('');
  say(
    `Try it: start the engine on this database (npm start${config.databaseUrl ? ' with the same DATABASE_URL' : ''}, with ADMIN_SECRET set) and send`,
  );
  say(
    `x-hasura-role: tenant_admin (or tenant_admin_readonly) and x-hasura-tenant-id: ${DEMO.tenants.acme.id} (${DEMO.tenants.acme.name})`,
  );
  say(`or ${DEMO.tenants.globex.id} (${DEMO.tenants.globex.name}) with the admin secret; see the README.`);
}

async function main(): Promise<void> {
  const args = argsOrUsage(process.argv.slice(2));
  if (!args) return;
  const { scale, tenants, inserts, perRowChecks } = args;
  const say: Say = (line) => process.stderr.write(`${line}\n`);
  const config = loadConfig();
  const where = config.databaseUrl ? 'PostgreSQL' : `the embedded PGlite in ${config.dataDir}`;
  say(`Seeding ${where}`);
  // On PGlite: refused, naming the engine, while one holds the folder (stop it first).
  const db = await connectDatabase(config, { holder: 'seed' });
  let raw: postgres.Sql | undefined;
  try {
    const applied = await migrate(db, config.migrationsDir);
    if (applied.length) say(`applied ${applied.length} migrations`);
    if (await seedDemoData(db)) say('loaded the demo set (Acme Corp and Globex Industries)');
    if (db.kind === 'postgres' && !inserts) {
      raw = postgres(config.databaseUrl!, {
        max: 1,
        onnotice: () => undefined,
        connection: { statement_timeout: 0, application_name: 'demo-seed' },
      });
    }
    const target = raw ? copyTarget(raw) : insertTarget(db);
    const result = await seedDemoScale(db, {
      scale,
      tenants,
      target,
      foreignKeys: perRowChecks ? 'per-row' : 'after-load',
      progress: new TerminalProgress(process.stderr),
      onPlan: (plan, state) => say(planLine(scale, plan, state, target.method)),
    });
    reportResult(say, result);
    sayHowToTry(say, config);
  } finally {
    await raw?.end({ timeout: 5 });
    await db.close();
  }
}

main().catch((err) => {
  process.stderr.write(`\nseed failed: ${(err as Error).message}\n`);
  process.exit(1);
});
