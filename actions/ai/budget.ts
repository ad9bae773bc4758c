import type { ActionContext } from '../context';
import { isTenantAccount, tenantOf, uuidArg } from '../api';
import { currentPeriod, moduleBudget, MODULES } from './usage';

/**
 * ai_budget_status: the tokens used this calendar month against the budgets, per module, for the
 * caller's tenant and one of its accounts. An account of another tenant (or none) is answered in
 * `err`, the response type's place for it, without saying whether it exists elsewhere.
 */
export async function ai_budget_status(args: Record<string, unknown>, ctx: ActionContext) {
  const tenant = tenantOf(ctx);
  const request = (args.request ?? {}) as { account_id?: unknown };
  const account = uuidArg(request.account_id, 'request.account_id');
  if (!(await isTenantAccount(ctx.db, tenant, account)))
    return { data: null, err: { code: 'not-found', message: `account ${account} not found` } };
  const data: Record<string, unknown> = { account_id: account, tenant_id: tenant, period: await currentPeriod(ctx.db) };
  for (const module of MODULES) data[module] = await moduleBudget(ctx.db, ctx.config.ai, tenant, account, module);
  return { data, err: null };
}
