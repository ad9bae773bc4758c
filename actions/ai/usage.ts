import type { AiConfig } from './config';
import { query, sql, type Queryable } from '../api';

/**
 * Token usage and budgets. Each answer of the model is recorded with the tokens it reported, per
 * tenant, account and module; budgets are tokens per calendar month (UTC), per module, at two
 * levels: the whole tenant and each account. A budget row in ai_budget overrides the engine's
 * defaults (AI_BUDGET_TENANT, AI_BUDGET_ACCOUNT); limit_source says which one applies.
 */

/** The budgets the platform reports (AIBudgetStatusData): event analyses, and users' own questions. */
export const MODULES = ['investigation', 'user_investigation'] as const;
export type Module = (typeof MODULES)[number];

export interface Usage {
  tenant: string;
  account: string | null;
  module: Module;
  operation: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  subjectId: string | null;
}

export async function recordUsage(db: Queryable, u: Usage): Promise<void> {
  await query(
    db,
    sql`INSERT INTO ai_usage (tenant_id, cloud_account_id, module, operation, model, prompt_tokens, completion_tokens, subject_id)
     VALUES (${u.tenant}::uuid, ${u.account}::uuid, ${u.module}::text, ${u.operation}::text, ${u.model}::text,
             ${u.promptTokens}::int, ${u.completionTokens}::int, ${u.subjectId}::text)`,
  );
}

export interface BudgetLevel {
  budget_limit: number;
  budget_remaining: number;
  current_usage: number;
  limit_source: 'tenant' | 'account' | 'default';
  rate_limit: boolean;
}

export interface ModuleBudget {
  tenant: BudgetLevel;
  account: BudgetLevel;
}

/** The month the budgets count, as 'YYYY-MM' (UTC). */
export async function currentPeriod(db: Queryable): Promise<string> {
  const [row] = await query(db, sql`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS period`);
  return String(row.period);
}

/** Usage this month and the limits that apply, at the tenant's and the account's level. */
export async function moduleBudget(
  db: Queryable,
  cfg: AiConfig,
  tenant: string,
  account: string,
  module: Module,
): Promise<ModuleBudget> {
  const [row] = await query(
    db,
    sql`WITH month AS (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS start)
     SELECT
       (SELECT coalesce(sum(total_tokens), 0)::float8 FROM ai_usage, month
         WHERE tenant_id = ${tenant}::uuid AND module = ${module}::text AND created_at >= month.start) AS tenant_usage,
       (SELECT coalesce(sum(total_tokens), 0)::float8 FROM ai_usage, month
         WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND module = ${module}::text AND created_at >= month.start) AS account_usage,
       (SELECT tenant_tokens::float8 FROM ai_budget
         WHERE tenant_id = ${tenant}::uuid AND cloud_account_id IS NULL AND (module = ${module}::text OR module IS NULL) AND tenant_tokens IS NOT NULL
         ORDER BY module IS NULL LIMIT 1) AS tenant_limit,
       (SELECT account_tokens::float8 FROM ai_budget
         WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND (module = ${module}::text OR module IS NULL) AND account_tokens IS NOT NULL
         ORDER BY module IS NULL LIMIT 1) AS account_limit,
       (SELECT account_tokens::float8 FROM ai_budget
         WHERE tenant_id = ${tenant}::uuid AND cloud_account_id IS NULL AND (module = ${module}::text OR module IS NULL) AND account_tokens IS NOT NULL
         ORDER BY module IS NULL LIMIT 1) AS tenant_account_limit`,
  );
  const tenantLimit =
    row.tenant_limit == null
      ? { limit: cfg.budgetTenantTokens, source: 'default' as const }
      : { limit: Number(row.tenant_limit), source: 'tenant' as const };
  const accountLimit =
    row.account_limit != null
      ? { limit: Number(row.account_limit), source: 'account' as const }
      : row.tenant_account_limit != null
        ? { limit: Number(row.tenant_account_limit), source: 'tenant' as const }
        : { limit: cfg.budgetAccountTokens, source: 'default' as const };
  return {
    tenant: level(Number(row.tenant_usage), tenantLimit.limit, tenantLimit.source),
    account: level(Number(row.account_usage), accountLimit.limit, accountLimit.source),
  };
}

function level(usage: number, limit: number, source: BudgetLevel['limit_source']): BudgetLevel {
  return {
    budget_limit: limit,
    budget_remaining: Math.max(0, limit - usage),
    current_usage: usage,
    limit_source: source,
    rate_limit: usage >= limit,
  };
}

/** Why the model may not be used for this call (the budget it has used up), or null when it may. */
export async function overBudget(
  db: Queryable,
  cfg: AiConfig,
  tenant: string,
  account: string,
  module: Module,
): Promise<string | null> {
  const b = await moduleBudget(db, cfg, tenant, account, module);
  if (b.tenant.rate_limit)
    return `the tenant has used its ${module} budget of ${b.tenant.budget_limit} tokens this month`;
  if (b.account.rate_limit)
    return `the account has used its ${module} budget of ${b.account.budget_limit} tokens this month`;
  return null;
}
