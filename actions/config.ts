import { loadAiConfig, type AiConfig } from './ai/config';
import { loadLogsConfig, type LogsConfig } from './logs/config';
import { loadTicketsConfig, type TicketsConfig } from './tickets/config';
import type { Env } from './api';

/** The actions' own settings, read once at start-up by the composition root; handlers get them in ctx.config. */
export interface ActionsConfig {
  ai: AiConfig;
  logs: LogsConfig;
  tickets: TicketsConfig;
}

/** Reads the AI, Loki and Jira settings; a malformed value stops start-up naming the variable. */
export function loadActionsConfig(env: Env, baseUrl: string): ActionsConfig {
  return { ai: loadAiConfig(env), logs: loadLogsConfig(env), tickets: loadTicketsConfig(env, baseUrl) };
}
