/**
 * The AI catalogue operations (metadata/actions/ai-catalogue.yaml): agents, knowledge bases, global
 * contexts, memory and references, tools, models, workflow generation and the knowledge-graph
 * filters. One module per subject in actions/ai-catalogue/.
 */
export {
  ai_list_agents,
  ai_list_agents_with_kb_counts,
  ai_list_agent_kbs,
  ai_list_kb_agents,
  ai_list_kb_agent_mappings,
} from './agents';
export { ai_list_kb, ai_get_kb, ai_list_gc, ai_get_gc } from './knowledge';
export { ai_list_memory, ai_list_references } from './history';
export { ai_list_tools } from './tools';
export { ai_list_models, ai_get_model_config } from './models';
export { ai_generate_workflow } from './generate-workflow';
export { kg_get_filter_options, kg_get_filter_values } from './kg-filters';
