import { positive, type Env } from '../api';

/** Ticketing integrations (the integration's own settings are in its `integrations` row). */
export interface TicketsConfig {
  /** JIRA_TIMEOUT_MS: how long tickets_insert_one waits for Jira before failing (nothing is stored). */
  jiraTimeoutMs: number;
  /** The application's base URL (NEXTAUTH_URL): platform tickets live at {baseUrl}/tickets/<id>. */
  baseUrl: string;
}

export function loadTicketsConfig(env: Env, baseUrl: string): TicketsConfig {
  return { jiraTimeoutMs: positive(env, 'JIRA_TIMEOUT_MS', 15000), baseUrl };
}
