import type { ActionContext } from '../context';
import { tenantOf, uuidArg } from '../api';
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
  const owned = await ctx.db.query('SELECT 1 FROM cloud_accounts WHERE id = $1::uuid AND tenant = $2::uuid', [
    account,
    tenant,
  ]);
  if (!owned.length) return { data: null, err: { code: 'not_found', message: `account ${account} not found` } };
  const data: Record<string, unknown> = { account_id: account, tenant_id: tenant, period: await currentPeriod(ctx.db) };
  for (const module of MODULES) data[module] = await moduleBudget(ctx.db, ctx.config.ai, tenant, account, module);
  return { data, err: null };
}
