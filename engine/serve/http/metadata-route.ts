import type { Context, Hono } from 'hono';
import type { ReloadResult } from '../../compile/execute/live-engine';
import { header } from '../../core/headers';
import { sameSecret } from '../../core/secrets';
import { readBody, requestHeaders } from './read-request';

/** A metadata command is a few words; anything much larger is not one. */
const MAX_METADATA_BYTES = 64 * 1024;

const answer = (c: Context, status: number, body: unknown) =>
  c.body(JSON.stringify(body), status as 200, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });

/** Hasura's metadata API error: `{path, error, code}` (not the GraphQL `errors` list). */
const problem = (c: Context, status: number, code: string, error: string, path = '$') =>
  answer(c, status, { path, error, code });

/** The command of a metadata API body, or what is wrong with it. */
function commandOf(text: string): { type: string } | { error: string; path: string; code: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: 'the body must be JSON: {"type": "reload_metadata", "args": {}}', path: '$', code: 'invalid-json' };
  }
  const bad = (error: string, path: string) => ({ error, path, code: 'bad-request' });
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return bad('the body must be an object: {"type": "reload_metadata", "args": {}}', '$');
  const { type, args } = body as { type?: unknown; args?: unknown };
  if (typeof type !== 'string') return bad('"type" must be a string: the metadata command', '$.type');
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return bad('"args" must be an object', '$.args');
  return { type };
}

/**
 * POST /v1/metadata: Hasura's metadata API, of which this engine serves `reload_metadata` (the
 * metadata folder is read again, checked against the database and put in use; requests in flight end
 * on the model they began with). The metadata lives in files, so the commands that would edit it
 * (`replace_metadata`, `track_table`...) are answered `not-supported`. Admin secret only.
 */
export function mountMetadataRoute(
  app: Hono,
  adminSecret: string | undefined,
  reload: () => Promise<ReloadResult>,
): void {
  app.post('/v1/metadata', async (c) => {
    const given = header(requestHeaders(c), 'x-hasura-admin-secret');
    if (!adminSecret) return problem(c, 401, 'access-denied', 'admin access is off: ADMIN_SECRET is not set');
    if (given === undefined || !sameSecret(given, adminSecret))
      return problem(c, 401, 'access-denied', 'invalid x-hasura-admin-secret');
    const body = await readBody(c, MAX_METADATA_BYTES);
    if (!body.ok)
      return problem(c, 413, 'request-too-large', `a metadata command is at most ${MAX_METADATA_BYTES} bytes`);
    const command = commandOf(body.text);
    if ('error' in command) return problem(c, 400, command.code, command.error, command.path);
    if (command.type !== 'reload_metadata')
      return problem(
        c,
        400,
        'not-supported',
        `metadata command "${command.type}" is not supported: the metadata is the folder's files; edit them and send reload_metadata`,
        '$.type',
      );
    const result = await reload();
    if (!result.ok)
      return problem(c, 400, 'invalid-configuration', `${result.message} (the previous metadata stays in use)`, '$');
    return answer(c, 200, { message: 'success', is_consistent: true });
  });
}
