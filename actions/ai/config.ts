import { httpUrl, int, positive, type Env } from '../api';

/**
 * AI-assisted analysis. Without `baseUrl` the built-in reasoner answers; with it, an OpenAI-compatible
 * chat-completions endpoint does, and the built-in reasoner answers when it fails or times out.
 */
export interface AiConfig {
  /** AI_BASE_URL: e.g. https://api.openai.com/v1 (the client posts to {baseUrl}/chat/completions). */
  baseUrl?: string;
  /** AI_API_KEY: sent as a Bearer token; never logged. */
  apiKey?: string;
  /** AI_MODEL: the model name sent with each request. */
  model: string;
  /** AI_TIMEOUT_MS: how long to wait for the model before falling back. */
  timeoutMs: number;
  /** AI_BUDGET_TENANT / AI_BUDGET_ACCOUNT: tokens per calendar month, unless the database sets a budget. */
  budgetTenantTokens: number;
  budgetAccountTokens: number;
}

export function loadAiConfig(env: Env): AiConfig {
  return {
    baseUrl: httpUrl(env, 'AI_BASE_URL'),
    apiKey: env.AI_API_KEY || undefined,
    model: env.AI_MODEL || 'gpt-4o-mini',
    timeoutMs: positive(env, 'AI_TIMEOUT_MS', 30000),
    budgetTenantTokens: int(env, 'AI_BUDGET_TENANT', 2_000_000),
    budgetAccountTokens: int(env, 'AI_BUDGET_ACCOUNT', 500_000),
  };
}
