import type { Context, Hono } from 'hono';
import { errorBody } from '../../core/errors';
import { header } from '../../core/headers';
import { sameSecret } from '../../core/secrets';
import { readBody, requestHeaders } from './read-request';

/** What `npm run admin` printed and its exit code, for a command run inside the engine. */
export interface AdminCommandResult {
  code: number;
  out: string[];
  err: string[];
}

/** Runs an admin command (the CLI's arguments, and its standard input) on the engine's own database. */
export type AdminCommandRunner = (args: string[], stdin: string) => Promise<AdminCommandResult>;

/** A command line and a password are short; anything much larger is not one. */
const MAX_COMMAND_BYTES = 64 * 1024;
const MAX_ARGS = 32;

const answer = (c: Context, status: number, body: string) =>
  c.body(body, status as 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
const problem = (c: Context, status: number, code: string, message: string) =>
  answer(c, status, errorBody([{ message, code, path: '$' }]));

function parseCommand(text: string): { args: string[]; stdin: string } | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the body must be JSON: {"args": ["create-tenant", "--name", "..."], "stdin": "..."}';
  }
  const { args, stdin } = (body ?? {}) as { args?: unknown; stdin?: unknown };
  if (!Array.isArray(args) || args.length === 0 || args.length > MAX_ARGS || args.some((a) => typeof a !== 'string'))
    return `"args" must be a list of 1 to ${MAX_ARGS} strings: the command and its options`;
  if (stdin !== undefined && typeof stdin !== 'string') return '"stdin" must be a string';
  return { args: args as string[], stdin: (stdin as string | undefined) ?? '' };
}

/**
 * POST /api/admin/command: `npm run admin` sends its command here when this engine holds the embedded
 * database's folder (a second process may not open it). Only with the admin secret; without one
 * configured the route answers 401 like any other request would. The answer is the command's output
 * lines and exit code; the standard input (a password) is never echoed or logged.
 */
export function mountAdminCommandRoute(app: Hono, adminSecret: string | undefined, run: AdminCommandRunner): void {
  app.post('/api/admin/command', async (c) => {
    const given = header(requestHeaders(c), 'x-hasura-admin-secret');
    if (!adminSecret) return problem(c, 401, 'access-denied', 'admin access is off: ADMIN_SECRET is not set');
    if (given === undefined || !sameSecret(given, adminSecret))
      return problem(c, 401, 'access-denied', 'invalid admin secret');
    const body = await readBody(c, MAX_COMMAND_BYTES);
    if (!body.ok) return problem(c, 413, 'request-too-large', `an admin command is at most ${MAX_COMMAND_BYTES} bytes`);
    const parsed = parseCommand(body.text);
    if (typeof parsed === 'string') return problem(c, 400, 'bad-request', parsed);
    return answer(c, 200, JSON.stringify(await run(parsed.args, parsed.stdin)));
  });
}
