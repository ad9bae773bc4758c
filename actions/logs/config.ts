import { httpUrl, positive, type Env } from '../api';

/** Log search: the built-in PostgreSQL store, or a Loki server when LOKI_URL is set. */
export interface LogsConfig {
  /** LOKI_URL: base URL of a Loki server (the client calls {lokiUrl}/loki/api/v1/query_range). */
  lokiUrl?: string;
  /** LOKI_TENANT: sent as X-Scope-OrgID when set. */
  lokiTenant?: string;
  /** LOKI_TIMEOUT_MS */
  lokiTimeoutMs: number;
}

export function loadLogsConfig(env: Env): LogsConfig {
  return {
    lokiUrl: httpUrl(env, 'LOKI_URL'),
    lokiTenant: env.LOKI_TENANT || undefined,
    lokiTimeoutMs: positive(env, 'LOKI_TIMEOUT_MS', 10000),
  };
}
