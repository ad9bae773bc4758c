import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../core/db/database';
import { RequestError } from '../../core/errors';
import { sameSecret } from '../../core/secrets';
import { hintTokenDeleted } from './revocation';
import { normaliseEmail, ROLE_ORDER_SQL } from './users';
import { isUuid } from '../../core/uuid';
import { recordAudit, type AuditEvent } from '../../core/audit';

/**
 * API tokens: the secret is `plat_` and 43 base64url characters (256 random bits). Only its SHA-256
 * is stored (a secret of 256 random bits needs no slow hash: nobody can search that space), with the
 * first characters for lists. The secret is returned once, by createApiToken, and never again.
 */
export const API_TOKEN_PREFIX = 'plat_';
const SECRET_BYTES = 32;
/** Characters of the secret kept for lists, the product prefix included (`plat_abcd`). */
const SHOWN_CHARS = API_TOKEN_PREFIX.length + 4;
export const MAX_TOKEN_NAME_LENGTH = 100;
/** Live tokens one user may hold; deleted ones do not count. */
export const MAX_TOKENS_PER_USER = 100;

export interface CreatedApiToken {
  id: string;
  name: string;
  /** Shown once: it cannot be read again. */
  secret: string;
  prefix: string;
  /** ISO 8601. */
  createdAt: string;
}

export interface ApiTokenInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');
export const looksLikeApiToken = (value: string) => value.startsWith(API_TOKEN_PREFIX);

/** Timestamps as ISO 8601 text in UTC, the same from both database drivers. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The name, trimmed; a validation error when it is empty, too long or holds control characters. */
export function tokenName(name: unknown): string {
  if (typeof name !== 'string')
    throw new RequestError('validation-failed', 'the token name must be a string', '$.name');
  const n = name.trim();
  if (n.length === 0) throw new RequestError('validation-failed', 'the token name must not be empty', '$.name');
  if (n.length > MAX_TOKEN_NAME_LENGTH)
    throw new RequestError(
      'validation-failed',
      `the token name must be at most ${MAX_TOKEN_NAME_LENGTH} characters long`,
      '$.name',
    );
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(n))
    throw new RequestError('validation-failed', 'the token name must not contain control characters', '$.name');
  return n;
}

/** A new token of the user in the tenant; its secret is in the answer and nowhere else. */
export async function createApiToken(
  db: Queryable,
  s: { userId: string; tenantId: string },
  name: string,
  via: AuditEvent['method'] = 'graphql',
): Promise<CreatedApiToken> {
  const clean = tokenName(name);
  const [{ n }] = await db.query(
    'SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1::uuid AND deleted_at IS NULL',
    [s.userId],
  );
  if (Number(n) >= MAX_TOKENS_PER_USER)
    throw new RequestError(
      'validation-failed',
      `a user may hold at most ${MAX_TOKENS_PER_USER} API tokens: delete one first`,
      '$.name',
    );
  const secret = API_TOKEN_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  const prefix = secret.slice(0, SHOWN_CHARS);
  const [row] = await db.query(
    `INSERT INTO api_tokens (user_id, tenant_id, name, prefix, secret_hash) VALUES ($1::uuid, $2::uuid, $3::text, $4::text, $5::text)
     RETURNING id::text AS id, ${iso('created_at')} AS created_at`,
    [s.userId, s.tenantId, clean, prefix, hashSecret(secret)],
  );
  await recordAudit(db, {
    type: 'api_token_created',
    outcome: 'success',
    method: via,
    userId: s.userId,
    tenantId: s.tenantId,
    tokenId: row.id as string,
    detail: { name: clean },
  });
  return { id: row.id as string, name: clean, secret, prefix, createdAt: row.created_at as string };
}

/** The user's tokens that are not deleted, newest first; never their secrets or hashes. */
export async function listApiTokens(db: Queryable, userId: string): Promise<ApiTokenInfo[]> {
  if (!isUuid(userId)) return [];
  const rows = await db.query(
    `SELECT id::text AS id, name, prefix, ${iso('created_at')} AS created_at, ${iso('last_used_at')} AS last_used_at
     FROM api_tokens WHERE user_id = $1::uuid AND deleted_at IS NULL ORDER BY created_at DESC, id`,
    [userId],
  );
  return rows.map((r) => ({
    id: r.id as string,
    name: r.name as string,
    prefix: r.prefix as string,
    createdAt: r.created_at as string,
    lastUsedAt: (r.last_used_at as string | null) ?? null,
  }));
}

/**
 * Deletes one of the user's own tokens (soft, irreversible); false when the user has no such live
 * token. A trigger broadcasts the deletion to every instance (NOTIFY platform_auth) when the
 * transaction commits; the instances of this process are told at once as well.
 */
export async function deleteApiToken(
  db: Queryable,
  userId: string,
  id: string,
  via: AuditEvent['method'] = 'graphql',
): Promise<boolean> {
  if (!isUuid(userId) || !isUuid(id)) return false;
  const rows = await db.query(
    'UPDATE api_tokens SET deleted_at = now() WHERE id = $1::uuid AND user_id = $2::uuid AND deleted_at IS NULL RETURNING id::text AS id, tenant_id::text AS tenant_id, name',
    [id, userId],
  );
  if (rows.length === 0) return false;
  await recordAudit(db, {
    type: 'api_token_deleted',
    outcome: 'success',
    method: via,
    userId,
    tenantId: rows[0].tenant_id as string,
    tokenId: rows[0].id as string,
    detail: { name: rows[0].name as string },
  });
  hintTokenDeleted(id.toLowerCase());
  return true;
}

/** Who an exchanged token speaks for. */
export interface ExchangedToken {
  tokenId: string;
  userId: string;
  tenantId: string;
  role: string;
  email: string;
}

/**
 * The token exchange's check: the secret names a live token, the e-mail is its owner's, the owner is
 * active and still holds a role in the token's tenant. null in every other case, without saying which.
 * On success Last Used is set.
 */
export async function exchangeApiToken(db: Queryable, email: string, secret: string): Promise<ExchangedToken | null> {
  const hash = hashSecret(secret);
  const rows = await db.query(
    `SELECT t.id::text AS token_id, t.secret_hash, t.user_id::text AS user_id, t.tenant_id::text AS tenant_id, u.username, u.status, m.role
     FROM api_tokens t
     JOIN users u ON u.id = t.user_id
     LEFT JOIN LATERAL (
       SELECT r.role FROM user_roles r JOIN tenant_users tu ON tu."user" = r.user_id AND tu.tenant = r.tenant_id
       WHERE r.user_id = t.user_id AND r.tenant_id = t.tenant_id AND r.entity_type = 'tenant'
       ORDER BY ${ROLE_ORDER_SQL}, r.role LIMIT 1
     ) m ON true
     WHERE t.secret_hash = $1::text AND t.deleted_at IS NULL`,
    [hash],
  );
  const row = rows[0];
  // The lookup is by hash; the comparison below is constant-time all the same.
  const secretMatches = sameSecret(String(row?.secret_hash ?? '0'.repeat(64)), hash);
  const ownerMatches = !!row && normaliseEmail(String(row.username)) === normaliseEmail(email);
  if (!row || !secretMatches || !ownerMatches || row.status !== 'active' || !row.role) return null;
  const used = await db.query(
    'UPDATE api_tokens SET last_used_at = now() WHERE id = $1::uuid AND deleted_at IS NULL RETURNING id',
    [row.token_id as string],
  );
  if (used.length === 0) return null;
  return {
    tokenId: row.token_id as string,
    userId: row.user_id as string,
    tenantId: row.tenant_id as string,
    role: row.role as string,
    email: row.username as string,
  };
}
