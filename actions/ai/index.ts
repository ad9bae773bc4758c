/**
 * AI-assisted analysis (metadata/actions/ai-analysis.yaml, handler module:ai). The engine looks up
 * each action's export by name here; the code lives in actions/ai/, one file per stage.
 */
export { ai_get_rca, ai_get_recommendation } from './rca';
export { ai_followup_response } from './followup';
export { ai_budget_status } from './budget';
