import type { ActionContext } from '../context';
import { query, sql, type Row } from '../api';
import { accountScope, num, optUuid, requestOf, type Args, type Scope } from './common';

/**
 * Language models (ai_model) and the one that applies to a conversation.
 *
 * ai_list_models data: {models: [Model], default_model: {provider, name}, total}, Model = {id, provider,
 * name, display_name, description, context_window, max_output_tokens, source, enabled, available,
 * is_default}. `source`: "builtin" (builtin-analyst, the offline reasoner, always available),
 * "config" (AI_MODEL, listed when AI_BASE_URL is set and the catalogue has no model of that name),
 * "account" / "tenant" (the tenant's own entries) or "platform" (the shared catalogue). A model other
 * than builtin-analyst is available only when enabled and an endpoint is configured (AI_BASE_URL),
 * the only way to reach a language model.
 *
 * The default (is_default): the account's own default entry, else the tenant's, else AI_MODEL when an
 * endpoint is configured, else builtin-analyst.
 *
 * ai_get_model_config data: {account_id, conversation_id, llm_provider, llm_model_name, source,
 * available, answered_by, context_window, max_output_tokens, timeout_ms}: the conversation's
 * model_config (AIConfigInput: llm_model_name, llm_provider) when it names a model, else the default
 * ("source" says which). answered_by is "model:<name>" when the model is available, else "builtin".
 */

export const BUILTIN_MODEL = 'builtin-analyst';

export interface Model {
  id: string;
  provider: string;
  name: string;
  display_name: string | null;
  description: string | null;
  context_window: number | null;
  max_output_tokens: number | null;
  /** conversation: a name a conversation's model_config gives that the catalogue does not list. */
  source: 'builtin' | 'config' | 'account' | 'tenant' | 'platform' | 'conversation';
  enabled: boolean;
  available: boolean;
  is_default: boolean;
}

const builtin = (): Model => ({
  id: BUILTIN_MODEL,
  provider: 'builtin',
  name: BUILTIN_MODEL,
  display_name: 'Built-in analyst',
  description: "Answers offline from the platform's data, without a language model",
  context_window: null,
  max_output_tokens: null,
  source: 'builtin',
  enabled: true,
  available: true,
  is_default: false,
});

/** Rows of the shared catalogue and of the tenant (for all its accounts, or this one). */
async function modelRows(ctx: ActionContext, scope: Scope): Promise<Row[]> {
  return query(
    ctx.db,
    sql`SELECT id::text AS id, provider, name, display_name, description, context_window, max_output_tokens, enabled, is_default,
       CASE WHEN tenant_id IS NULL THEN 'platform' WHEN cloud_account_id IS NULL THEN 'tenant' ELSE 'account' END AS source
     FROM ai_model WHERE tenant_id IS NULL OR (tenant_id = ${scope.tenant}::uuid AND (cloud_account_id IS NULL OR cloud_account_id = ${scope.account}::uuid))
     ORDER BY (tenant_id IS NULL), (cloud_account_id IS NULL), provider, name, id`,
  );
}

function modelOf(r: Row, endpoint: boolean): Model {
  const enabled = r.enabled === true;
  return {
    id: String(r.id),
    provider: String(r.provider),
    name: String(r.name),
    display_name: (r.display_name as string) ?? null,
    description: (r.description as string) ?? null,
    context_window: num(r.context_window),
    max_output_tokens: num(r.max_output_tokens),
    source: r.source as Model['source'],
    enabled,
    available: enabled && endpoint,
    is_default: false,
  };
}

/** The tenant's chosen default: an enabled account entry beats a tenant-wide one. */
const tenantDefault = (rows: Row[], models: Model[]): Model | undefined => {
  const pick = (source: string) =>
    models.find((m, i) => m.source === source && m.enabled && rows[i]!.is_default === true);
  return pick('account') ?? pick('tenant');
};

/** Every model the account may name, with the default marked. */
export async function modelCatalogue(
  ctx: ActionContext,
  scope: Scope,
): Promise<{ models: Model[]; defaultModel: Model }> {
  const { baseUrl, model: configured } = ctx.config.ai;
  const endpoint = baseUrl !== undefined;
  const rows = await modelRows(ctx, scope);
  const listed = rows.map((r) => modelOf(r, endpoint));
  const models = [builtin(), ...listed];
  let configModel = listed.find((m) => m.name === configured);
  if (endpoint && !configModel) {
    configModel = {
      ...builtin(),
      id: 'config',
      provider: 'openai-compatible',
      name: configured,
      display_name: configured,
      description: 'The model of AI_MODEL, at AI_BASE_URL',
      source: 'config',
    };
    models.splice(1, 0, configModel);
  }
  const defaultModel = tenantDefault(rows, listed) ?? (endpoint && configModel ? configModel : models[0]!);
  defaultModel.is_default = true;
  return { models, defaultModel };
}

export async function ai_list_models(args: Args, ctx: ActionContext) {
  const scope = await accountScope(ctx, requestOf(args));
  const { models, defaultModel } = await modelCatalogue(ctx, scope);
  return {
    data: { models, default_model: { provider: defaultModel.provider, name: defaultModel.name }, total: models.length },
    errors: null,
  };
}

/** The conversation's model_config, when the conversation is the tenant's and of this account (or of none). */
async function conversationConfig(
  ctx: ActionContext,
  scope: Scope,
  id: string,
): Promise<Record<string, unknown> | null> {
  const [row] = await query(
    ctx.db,
    sql`SELECT model_config::text AS config FROM ai_conversation
     WHERE id = ${id}::uuid AND tenant_id = ${scope.tenant}::uuid AND (cloud_account_id IS NULL OR cloud_account_id = ${scope.account}::uuid)`,
  );
  return row ? (JSON.parse(String(row.config)) as Record<string, unknown>) : null;
}

/** The model a conversation's config names: from the catalogue when listed there, else as given. */
function namedModel(models: Model[], config: Record<string, unknown>, endpoint: boolean): Model | undefined {
  const name =
    typeof config.llm_model_name === 'string' && config.llm_model_name !== '' ? config.llm_model_name : undefined;
  if (!name) return undefined;
  const provider =
    typeof config.llm_provider === 'string' && config.llm_provider !== '' ? config.llm_provider : undefined;
  const found = models.find((m) => m.name === name && (!provider || m.provider === provider));
  if (found) return found;
  return {
    ...builtin(),
    id: 'conversation',
    provider: provider ?? 'openai-compatible',
    name,
    display_name: name,
    description: null,
    source: 'conversation',
    available: endpoint,
  };
}

/**
 * The model that answers for this account (and conversation): the conversation's model_config when it
 * names one, else the default. `source` says which; undefined when the conversation is not found.
 * askModel (actions/ai/model-answer.ts) sends this model's name, so the catalogue decides.
 */
export async function modelFor(
  ctx: ActionContext,
  scope: Scope,
  conversationId?: string,
): Promise<{ model: Model; source: string } | undefined> {
  const { models, defaultModel } = await modelCatalogue(ctx, scope);
  if (conversationId === undefined) return { model: defaultModel, source: defaultModel.source };
  const config = await conversationConfig(ctx, scope, conversationId);
  if (!config) return undefined;
  const named = namedModel(models, config, ctx.config.ai.baseUrl !== undefined);
  return named ? { model: named, source: 'conversation' } : { model: defaultModel, source: defaultModel.source };
}

/** Whether a language model (not the built-in analyst) answers with this choice. */
export const answersWithModel = (m: Model) => m.available && m.source !== 'builtin';

export async function ai_get_model_config(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const scope = await accountScope(ctx, req);
  const conversationId = optUuid(req, 'conversation_id');
  const found = await modelFor(ctx, scope, conversationId);
  if (!found)
    return {
      data: null,
      errors: [{ code: 'not-found', message: `no conversation ${conversationId} in this account` }],
    };
  const { model: chosen, source } = found;
  return {
    data: {
      account_id: scope.account,
      conversation_id: conversationId ?? null,
      llm_provider: chosen.provider,
      llm_model_name: chosen.name,
      source,
      available: chosen.available,
      answered_by: answersWithModel(chosen) ? `model:${chosen.name}` : 'builtin',
      context_window: chosen.context_window,
      max_output_tokens: chosen.max_output_tokens,
      timeout_ms: ctx.config.ai.timeoutMs,
    },
    errors: null,
  };
}
