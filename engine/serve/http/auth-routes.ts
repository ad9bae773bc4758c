import type { Context, Hono } from 'hono';
import { exchangeApiToken } from '../auth/api-tokens';
import { mintApiJwt } from '../auth/jwt';
import { clearFailures, lockedFor, recordFailure, successKeys, throttleKeys, waitInWords } from '../auth/throttle';
import type { AuthConfig } from '../../core/config';
import type { Database } from '../../core/db/database';
import { errorBody } from '../../core/errors';
import { recordAudit, recordLockout, type AuditEvent } from '../../core/audit';
import { header } from '../../core/headers';
import { clientAddress, readBody, requestHeaders } from './read-request';

export interface AuthRouteDeps {
  db: Database;
  auth: AuthConfig;
}

/** The exchange body is two short strings; anything much larger is not one. */
const MAX_EXCHANGE_BYTES = 16 * 1024;
const MAX_FIELD_LENGTH = 1024;

const answer = (c: Context, status: number, body: string, extra: Record<string, string> = {}) =>
  c.body(body, status as 200, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...extra,
  });

const problem = (
  c: Context,
  status: number,
  code: string,
  message: string,
  path = '$',
  extra: Record<string, string> = {},
) => answer(c, status, errorBody([{ message, code, path }]), extra);

const tooMany = (c: Context, wait: number) =>
  problem(c, 429, 'too-many-requests', `too many failed attempts: try again in ${waitInWords(wait)}`, '$', {
    'retry-after': String(wait),
  });

/** A refusal for too many failures: an audit event, then 429 with Retry-After. */
async function lockedOut(
  c: Context,
  db: Database,
  who: Pick<AuditEvent, 'method' | 'email' | 'clientAddress'>,
  wait: number,
) {
  await recordLockout(db, who, wait);
  return tooMany(c, wait);
}

type Parsed = { ok: true; email: string; secret: string } | { ok: false; message: string; path: string };

function parseExchange(contentType: string | undefined, text: string): Parsed {
  if (!contentType || !/^application\/json\s*(;|$)/i.test(contentType.trim())) {
    return { ok: false, message: 'the content-type must be application/json', path: '$' };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the request body is not valid JSON', path: '$' };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, message: 'the request body must be a JSON object {"email", "secret"}', path: '$' };
  const b = body as Record<string, unknown>;
  for (const field of ['email', 'secret'] as const) {
    if (b[field] === undefined || b[field] === null)
      return { ok: false, message: `"${field}" is required`, path: `$.${field}` };
    if (typeof b[field] !== 'string') return { ok: false, message: `"${field}" must be a string`, path: `$.${field}` };
    if ((b[field] as string).trim() === '')
      return { ok: false, message: `"${field}" must not be empty`, path: `$.${field}` };
    if ((b[field] as string).length > MAX_FIELD_LENGTH)
      return { ok: false, message: `"${field}" is too long`, path: `$.${field}` };
  }
  return { ok: true, email: b.email as string, secret: b.secret as string };
}

/**
 * POST /api/auth/token: `{email, secret}` -> `{token, expiry}`. A malformed request is 400 naming the
 * problem; a wrong e-mail, wrong secret, deleted token or suspended user is the same 401; too many
 * failures (throttle.ts) is 429 until the window ends. Nothing here logs the secret.
 */
export function mountAuthRoutes(app: Hono, deps: AuthRouteDeps): void {
  const { db, auth } = deps;
  app.post('/api/auth/token', async (c) => {
    const read = await readBody(c, MAX_EXCHANGE_BYTES);
    if (!read.ok)
      return problem(c, 413, 'request-too-large', `the request body is larger than ${MAX_EXCHANGE_BYTES} bytes`, '$', {
        connection: 'close',
      });
    const parsed = parseExchange(header(requestHeaders(c), 'content-type'), read.text);
    if (!parsed.ok) return problem(c, 400, 'bad-request', parsed.message, parsed.path);

    const address = clientAddress(c, auth);
    const keys = throttleKeys(auth, address, parsed.email);
    const who = { method: 'api_token' as const, email: parsed.email, clientAddress: address };
    const locked = await lockedFor(db, auth, keys);
    if (locked > 0) return lockedOut(c, db, who, locked);
    const token = await exchangeApiToken(db, parsed.email, parsed.secret);
    if (!token) {
      // The failure that goes past a limit is already refused: exactly AUTH_MAX_FAILURES 401s, then 429s.
      const wait = await recordFailure(db, auth, keys);
      if (wait > 0) return lockedOut(c, db, who, wait);
      await recordAudit(db, {
        type: 'token_exchange',
        outcome: 'failure',
        reason: 'invalid e-mail or API token',
        ...who,
      });
      return problem(c, 401, 'invalid-credentials', 'invalid e-mail or API token');
    }
    await clearFailures(db, successKeys(keys));
    const jwt = await mintApiJwt(auth, token);
    await recordAudit(db, {
      type: 'token_exchange',
      outcome: 'success',
      ...who,
      userId: token.userId,
      tenantId: token.tenantId,
      tokenId: token.tokenId,
      detail: { role: token.role },
    });
    return answer(c, 200, JSON.stringify({ token: jwt.token, expiry: jwt.expiry }));
  });
}
