/**
 * Every handler module of metadata's `module:<name>` handlers, by that name, imported with types so
 * that tsc and the dependency rules see them. The composition root (engine/main.ts) hands this to the
 * engine; a family added to the catalogue is added here once.
 */
import type { ActionModules, SignedInPage } from './api';
import { ticketPage } from './tickets/page';
import * as ai from './ai';
import * as aiCatalogue from './ai-catalogue';
import * as anomalies from './anomalies';
import * as apiTokens from './api-tokens';
import * as automation from './automation';
import * as cloud from './cloud';
import * as cost from './cost';
import * as events from './events';
import * as kubernetes from './kubernetes';
import * as logs from './logs';
import * as recommendations from './recommendations';
import * as tickets from './tickets';
import * as workflows from './workflows';

export const ACTION_MODULES: ActionModules = {
  ai,
  'ai-catalogue': aiCatalogue,
  anomalies,
  'api-tokens': apiTokens,
  automation,
  cloud,
  cost,
  events,
  kubernetes,
  logs,
  recommendations,
  tickets,
  workflows,
};

/** Pages of the families behind sign-in, served by the web room: the platform's own ticket URLs. */
export const ACTION_PAGES: readonly SignedInPage[] = [ticketPage];
