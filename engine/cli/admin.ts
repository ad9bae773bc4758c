/*
 * engine/cli: the operators' command line (`npm run admin`). Imports engine/serve's auth pieces and
 * engine/core.
 */
import { parseArgs } from 'node:util';
import { createApiToken, type CreatedApiToken } from '../serve/auth/api-tokens';
import { recordAudit } from '../core/audit';
import { hashPassword, passwordProblem } from '../serve/auth/passwords';
import { loadUserSession, normaliseEmail, TENANT_ROLES } from '../serve/auth/users';
import { loadConfig } from '../core/config';
import { connectDatabase } from '../core/db/connect';
import { DataDirLocked, type LockHolder } from '../core/db/data-lock';
import type { AdminCommandResult } from '../serve/http/admin-command-route';
import type { Database, Queryable } from '../core/db/database';
import { migrate } from '../core/db/migrate';
import { isUuid } from '../core/uuid';
import { clearLockouts, deleteToken, listTokens, listUsers, table } from './admin-accounts';

/**
 * Operators' commands: `npm run admin -- <command> [options]`. Each works on the database of the
 * engine's configuration (DATABASE_URL, or the embedded PGlite in DATA_DIR) after applying the
 * migrations. The embedded database's folder is one process's alone: when a running engine holds it,
 * the command goes through that engine (POST /api/admin/command, with ADMIN_SECRET) or is refused.
 * The functions are exported for tests.
 */

/** created_by of rows an operator makes from the command line: nobody in particular. */
export const OPERATOR_ID = '00000000-0000-0000-0000-000000000000';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export class AdminError extends Error {}

export async function createTenant(
  db: Queryable,
  opts: { name: string; type?: string },
): Promise<{ id: string; name: string }> {
  const name = opts.name?.trim();
  if (!name) throw new AdminError('--name is required');
  const taken = await db.query('SELECT id FROM tenant WHERE lower(name) = lower($1::text)', [name]);
  if (taken.length) throw new AdminError(`a tenant named "${name}" exists already`);
  const [row] = await db.query(
    'INSERT INTO tenant (name, type, created_by, updated_by) VALUES ($1::text, $2::text, $3::uuid, $3::uuid) RETURNING id::text AS id',
    [name, opts.type ?? 'Customer', OPERATOR_ID],
  );
  return { id: row.id as string, name };
}

async function tenantId(db: Queryable, idOrName: string): Promise<string> {
  if (!idOrName) throw new AdminError('--tenant is required (a tenant id or name)');
  const rows = isUuid(idOrName)
    ? await db.query('SELECT id::text AS id FROM tenant WHERE id = $1::uuid', [idOrName])
    : await db.query('SELECT id::text AS id FROM tenant WHERE lower(name) = lower($1::text)', [idOrName]);
  if (!rows.length) throw new AdminError(`no tenant "${idOrName}"`);
  return rows[0].id as string;
}

async function userId(db: Queryable, email: string): Promise<string> {
  if (!email) throw new AdminError('--email is required');
  const rows = await db.query('SELECT id::text AS id FROM users WHERE lower(username) = $1::text', [
    normaliseEmail(email),
  ]);
  if (!rows.length) throw new AdminError(`no user with the e-mail ${email}`);
  return rows[0].id as string;
}

function checkPassword(password: string | undefined): string {
  if (!password) throw new AdminError('a password is required: --password <password> or --password-stdin');
  const problem = passwordProblem(password);
  if (problem) throw new AdminError(problem);
  return password;
}

export interface NewUser {
  tenant: string;
  email: string;
  name: string;
  role: string;
  /** Omitted: the user signs in through SSO only. */
  password?: string;
}

/** A user who is a member of the tenant with the role; their default tenant when it is their first. */
export async function createUser(db: Database, u: NewUser): Promise<{ id: string; tenantId: string }> {
  if (!u.email || !EMAIL.test(u.email.trim())) throw new AdminError('--email must be an e-mail address');
  if (!u.name?.trim()) throw new AdminError('--name (the display name) is required');
  if (!(TENANT_ROLES as readonly string[]).includes(u.role))
    throw new AdminError(`--role must be one of ${TENANT_ROLES.join(', ')}`);
  const hash = u.password === undefined ? null : await hashPassword(checkPassword(u.password));
  const email = u.email.trim();
  return db.transaction(async (tx) => {
    const tenant = await tenantId(tx, u.tenant);
    const taken = await tx.query('SELECT 1 FROM users WHERE lower(username) = $1::text', [normaliseEmail(email)]);
    if (taken.length) throw new AdminError(`a user with the e-mail ${email} exists already`);
    const [row] = await tx.query(
      `INSERT INTO users (username, display_name, status, password_hash, created_by, updated_by) VALUES ($1::text, $2::text, 'active', $3::text, $4::uuid, $4::uuid)
       RETURNING id::text AS id`,
      [email, u.name.trim(), hash, OPERATOR_ID],
    );
    const id = row.id as string;
    await tx.query(
      `INSERT INTO tenant_users (tenant, "user", is_default, is_owner, created_by, updated_by) VALUES ($1::uuid, $2::uuid, true, false, $3::uuid, $3::uuid)`,
      [tenant, id, OPERATOR_ID],
    );
    await tx.query(
      `INSERT INTO user_roles (user_id, role, entity_type, entity_id, tenant_id, created_by) VALUES ($1::uuid, $2::text, 'tenant', $3::text, $3::uuid, $4::uuid)`,
      [id, u.role, tenant, OPERATOR_ID],
    );
    const detail = { role: u.role, password: hash !== null };
    await recordAudit(tx, {
      type: 'user_created',
      outcome: 'success',
      method: 'cli',
      email,
      userId: id,
      tenantId: tenant,
      detail,
    });
    return { id, tenantId: tenant };
  });
}

/** Sets (or replaces) the user's built-in password. */
export async function setPassword(db: Queryable, email: string, password: string): Promise<void> {
  const hash = await hashPassword(checkPassword(password));
  const id = await userId(db, email);
  await db.query('UPDATE users SET password_hash = $2::text, updated_at = now() WHERE id = $1::uuid', [id, hash]);
  await recordAudit(db, { type: 'password_set', outcome: 'success', method: 'cli', email, userId: id });
}

async function setStatus(db: Queryable, email: string, status: 'active' | 'suspended'): Promise<void> {
  // A trigger tells every running engine (NOTIFY platform_auth): the user's JWTs and sessions stop at once.
  const id = await userId(db, email);
  await db.query('UPDATE users SET status = $2::text, updated_at = now() WHERE id = $1::uuid', [id, status]);
  const type = status === 'active' ? 'user_activated' : 'user_suspended';
  await recordAudit(db, { type, outcome: 'success', method: 'cli', email, userId: id });
}

/** Sign-in is refused from now on, and the user's JWTs and sessions stop working on every instance. */
export const suspendUser = (db: Queryable, email: string) => setStatus(db, email, 'suspended');
export const activateUser = (db: Queryable, email: string) => setStatus(db, email, 'active');

/** An API token of the user in their default tenant (or `tenant`); the secret is in the answer only. */
export async function createTokenFor(
  db: Queryable,
  opts: { email: string; name: string; tenant?: string },
): Promise<CreatedApiToken & { tenantId: string }> {
  if (!opts.name) throw new AdminError('--name (the token name) is required');
  const id = await userId(db, opts.email);
  let tenant: string | undefined;
  if (opts.tenant) tenant = await tenantId(db, opts.tenant);
  else {
    const rows = await db.query(
      'SELECT tenant::text AS tenant FROM tenant_users WHERE "user" = $1::uuid ORDER BY is_default DESC, created_at LIMIT 1',
      [id],
    );
    tenant = rows[0]?.tenant as string | undefined;
  }
  const session = tenant ? await loadUserSession(db, id, tenant) : null;
  if (!session) throw new AdminError(`${opts.email} is not active or holds no role in ${opts.tenant ?? 'any tenant'}`);
  const token = await createApiToken(db, { userId: id, tenantId: session.tenantId }, opts.name, 'cli');
  return { ...token, tenantId: session.tenantId };
}

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  create-tenant --name <name> [--type Customer|Demo|QA]
  create-user   --tenant <id|name> --email <e-mail> --name <display name>
                --role ${TENANT_ROLES.join('|')} [--password <password> | --password-stdin]
  set-password  --email <e-mail> (--password <password> | --password-stdin)
  suspend-user  --email <e-mail>
  activate-user --email <e-mail>
  create-token  --email <e-mail> --name <token name> [--tenant <id|name>]
  list-users    [--tenant <id|name>]
  list-tokens   [--email <e-mail>] [--tenant <id|name>]
  delete-token  --id <token id>
  clear-lockout (--email <e-mail> | --address <client address> | --all)

--password-stdin reads the password from the first line of standard input (it keeps it out of the
shell history and the process list). The database is the engine's: DATABASE_URL, or the embedded
PGlite in DATA_DIR. While an engine runs on that PGlite folder, the command is sent through it: set
ADMIN_SECRET to the engine's admin secret (without it the command is refused).`;

export interface AdminIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  /** The whole of standard input, for --password-stdin. */
  readStdin: () => Promise<string>;
  /** A database already open (tests); otherwise the configuration's is opened and migrated. */
  database?: Database;
}

type Options = Record<string, string | boolean | undefined>;

/** The options every command may take; parseArgs throws on any other, or on a value missing. */
function parseOptions(args: string[]): Options {
  return parseArgs({
    args,
    options: {
      name: { type: 'string' },
      type: { type: 'string' },
      tenant: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      id: { type: 'string' },
      address: { type: 'string' },
      all: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

type Command = (db: Database) => Promise<void>;

/** The commands that manage users: create one, set a password, suspend, activate. */
function userCommands(values: Options, io: AdminIo): Record<string, Command> {
  const str = (k: string) => values[k] as string | undefined;
  const password = async () => (values['password-stdin'] ? (await io.readStdin()).split(/\r?\n/)[0] : str('password'));
  return {
    'create-user': async (db) => {
      const pw = values.password !== undefined || values['password-stdin'] ? await password() : undefined;
      const u = await createUser(db, {
        tenant: str('tenant') ?? '',
        email: str('email') ?? '',
        name: str('name') ?? '',
        role: str('role') ?? '',
        password: pw,
      });
      io.out(
        `created user ${str('email')} (${str('role')} in tenant ${u.tenantId}): ${u.id}${pw === undefined ? ' (no password: SSO only)' : ''}`,
      );
    },
    'set-password': async (db) => {
      await setPassword(db, str('email') ?? '', (await password()) ?? '');
      io.out(`password set for ${str('email')}`);
    },
    'suspend-user': async (db) => {
      await suspendUser(db, str('email') ?? '');
      io.out(`suspended ${str('email')}`);
    },
    'activate-user': async (db) => {
      await activateUser(db, str('email') ?? '');
      io.out(`activated ${str('email')}`);
    },
  };
}

/** The commands that look at accounts and undo: list users and tokens, delete a token, clear a lockout. */
function accountCommands(values: Options, io: AdminIo): Record<string, Command> {
  const str = (k: string) => values[k] as string | undefined;
  return {
    'list-users': async (db) => {
      const users = await listUsers(db, { tenant: str('tenant') });
      const rows = users.map((u) => [u.email, u.name, u.status, u.password ? 'yes' : 'no (SSO)', u.roles]);
      table(['E-MAIL', 'NAME', 'STATUS', 'PASSWORD', 'ROLES'], rows).forEach(io.out);
      io.out(`${users.length} user${users.length === 1 ? '' : 's'}`);
    },
    'list-tokens': async (db) => {
      const tokens = await listTokens(db, { email: str('email'), tenant: str('tenant') });
      const rows = tokens.map((t) => [t.id, `${t.prefix}...`, t.name, t.email, t.tenant, t.created, t.lastUsed]);
      table(['ID', 'PREFIX', 'NAME', 'USER', 'TENANT', 'CREATED (UTC)', 'LAST USED'], rows).forEach(io.out);
      io.out(`${tokens.length} token${tokens.length === 1 ? '' : 's'}`);
    },
    'delete-token': async (db) => {
      const t = await deleteToken(db, str('id'));
      io.out(`deleted API token "${t.name}" of ${t.email}: JWTs exchanged for it stop working at once`);
    },
    'clear-lockout': async (db) => {
      const n = await clearLockouts(db, { email: str('email'), address: str('address'), all: values.all === true });
      io.out(`cleared ${n} failed-sign-in counter${n === 1 ? '' : 's'}`);
    },
  };
}

/** Every command by name, with the options it was given. */
function adminCommands(values: Options, io: AdminIo): Record<string, Command> {
  const str = (k: string) => values[k] as string | undefined;
  return {
    'create-tenant': async (db) => {
      const t = await createTenant(db, { name: str('name') ?? '', type: str('type') });
      io.out(`created tenant "${t.name}": ${t.id}`);
    },
    ...userCommands(values, io),
    ...accountCommands(values, io),
    'create-token': async (db) => {
      const t = await createTokenFor(db, { email: str('email') ?? '', name: str('name') ?? '', tenant: str('tenant') });
      io.out(`created API token "${t.name}" (${t.prefix}...) for ${str('email')} in tenant ${t.tenantId}: ${t.id}`);
      io.out('the secret, shown this once (exchange it at POST /api/auth/token):');
      io.out(t.secret);
    },
  };
}

/** The command line as given, and whether it reads standard input: for sending it to a running engine. */
interface Invocation {
  args: string[];
  readsStdin: boolean;
}

/** Runs a command on the tests' database or the configuration's (opened, migrated, closed); the exit code. */
async function onDatabase(io: AdminIo, run: Command, invocation: Invocation): Promise<number> {
  let opened: Database | undefined;
  try {
    let db = io.database;
    if (!db) {
      const config = loadConfig(io.env);
      try {
        db = opened = await connectDatabase(config, { holder: 'admin' });
      } catch (err) {
        if (err instanceof DataDirLocked) return await throughEngine(io, err, config.adminSecret, invocation);
        throw err;
      }
      await migrate(db, config.migrationsDir);
    }
    await run(db);
    return 0;
  } catch (err) {
    io.err(`error: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened?.close().catch(() => undefined);
  }
}

/** The URL a client on this machine reaches an engine at, from the address it listens on. */
function engineUrl(by: LockHolder): string {
  const host = !by.host || by.host === '0.0.0.0' ? '127.0.0.1' : by.host === '::' ? '::1' : by.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${by.port}/api/admin/command`;
}

/**
 * The embedded database's folder is held by another process: an engine that listens gets the command
 * (with the admin secret), anything else is a refusal that says what to do. Nothing is written here.
 */
async function throughEngine(
  io: AdminIo,
  locked: DataDirLocked,
  adminSecret: string | undefined,
  invocation: Invocation,
): Promise<number> {
  const by = locked.by;
  if (by.holder !== 'engine' || !by.port) {
    const why = by.holder === 'engine' ? 'it is starting up' : 'it holds the folder until it ends';
    io.err(`error: ${locked.message}; ${why}: try again in a moment`);
    return 1;
  }
  if (!adminSecret) {
    io.err(
      `error: ${locked.message}. Set ADMIN_SECRET to that engine's admin secret to send the command through it, or stop the engine first. Nothing was changed.`,
    );
    return 1;
  }
  const stdin = invocation.readsStdin ? await io.readStdin() : undefined;
  let res: Response;
  try {
    res = await fetch(engineUrl(by), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hasura-admin-secret': adminSecret },
      body: JSON.stringify({ args: invocation.args, stdin }),
    });
  } catch (err) {
    io.err(`error: ${locked.message}, but it cannot be reached (${(err as Error).message}). Nothing was changed.`);
    return 1;
  }
  if (res.status === 401) {
    io.err(`error: the running engine (pid ${by.pid}) refused the admin secret: ADMIN_SECRET must be the engine's`);
    return 1;
  }
  if (!res.ok) {
    io.err(`error: the running engine (pid ${by.pid}) answered HTTP ${res.status}: ${await res.text()}`);
    return 1;
  }
  const result = (await res.json()) as AdminCommandResult;
  io.err(`(sent through the running engine, pid ${by.pid}, port ${by.port})`);
  result.out.forEach((line) => io.out(line));
  result.err.forEach((line) => io.err(line));
  return result.code;
}

/** A command run by a running engine on its own database (POST /api/admin/command): its output and exit code. */
export async function runAdminOn(database: Database, args: string[], stdin: string): Promise<AdminCommandResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(args, {
    env: {},
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    readStdin: async () => stdin,
    database,
  });
  return { code, out, err };
}

/** Runs one command; the exit code. Errors are reported without any secret in them. */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  let values: Options;
  try {
    values = parseOptions(rest);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const run = adminCommands(values, io)[command];
  if (!run) {
    io.err(`unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  return onDatabase(io, run, { args: argv, readsStdin: values['password-stdin'] === true });
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.once('error', reject);
  });
}

if (require.main === module) {
  runAdmin(process.argv.slice(2), {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    readStdin,
  }).then((code) => process.exit(code));
}
