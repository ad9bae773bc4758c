import { createApiToken, deleteApiToken, isUuid, listApiTokens, RequestError, tenantOf, uuidArg } from './api';
import type { ActionContext } from './context';

/**
 * The signed-in user's API tokens (User Settings, API Tokens). Always the caller's own: the user and
 * tenant come from the session (a JWT, the session cookie, or the admin secret's x-hasura-user-id),
 * never from arguments. Any of them lists and deletes; only the session cookie creates (operators
 * have `npm run admin -- create-token`).
 */
function userOf(ctx: ActionContext): string {
  const id = ctx.session.vars['x-hasura-user-id'];
  if (!id || !isUuid(id)) {
    throw new RequestError('access-denied', 'this operation needs a signed-in user (x-hasura-user-id)');
  }
  return id.toLowerCase();
}

export async function api_tokens(_args: Record<string, unknown>, ctx: ActionContext) {
  const tokens = await listApiTokens(ctx.db, userOf(ctx));
  return tokens.map((t) => ({
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    created_at: t.createdAt,
    last_used_at: t.lastUsedAt,
  }));
}

export async function create_api_token(args: Record<string, unknown>, ctx: ActionContext) {
  // A long-lived token from a short-lived credential would outlive it: a stolen JWT (or a leaked admin
  // secret acting as a user) could mint itself a permanent way in. Only a signed-in person may.
  if (ctx.session.via !== 'cookie') {
    throw new RequestError(
      'access-denied',
      'API tokens are created from a browser session (User Settings, API Tokens), not with a JWT or the admin secret; a JWT may list and delete its user’s tokens',
    );
  }
  const t = await createApiToken(ctx.db, { userId: userOf(ctx), tenantId: tenantOf(ctx) }, args.name as string);
  return { id: t.id, name: t.name, prefix: t.prefix, created_at: t.createdAt, secret: t.secret };
}

export async function delete_api_token(args: Record<string, unknown>, ctx: ActionContext) {
  const id = uuidArg(args.id, 'id');
  return { id, deleted: await deleteApiToken(ctx.db, userOf(ctx), id) };
}
