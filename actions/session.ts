import type { ActionContext } from '../engine/compile/execute/actions';
import { RequestError } from '../engine/core/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's tenant. Handlers never take it from arguments: it comes from the session only. */
export function tenantOf(ctx: ActionContext): string {
  const tenant = ctx.session.vars['x-hasura-tenant-id'];
  if (!tenant || !UUID.test(tenant))
    throw new RequestError('access-denied', 'this operation needs a tenant in the session (x-hasura-tenant-id)');
  return tenant;
}

/** A uuid argument, checked, or a validation error naming it. */
export function uuidArg(value: unknown, path: string): string {
  if (typeof value !== 'string' || !UUID.test(value))
    throw new RequestError(
      'validation-failed',
      `expected a uuid for ${path}, got ${JSON.stringify(value)}`,
      `$.${path}`,
    );
  return value.toLowerCase();
}
