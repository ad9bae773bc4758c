import type { EngineActionContext } from './api';
import type { ActionsConfig } from './config';

/** What a handler receives besides its arguments: the engine's context with the actions' own settings. */
export type ActionContext = EngineActionContext<ActionsConfig>;
