-- knowledge_graph_relationship_types: the spec lists it among the AI and LLM table queries without
-- showing its fields. It answers what a knowledge-graph browser needs to draw its legend and offer
-- edge filters: which kinds of relationship a tenant's graph holds, between which node types, how
-- many edges of each, and when they were first and last written. A view, so it is always current;
-- the tenant filter of the permission is on a grouping column, so PostgreSQL applies it to the edges
-- before grouping (knowledge_graph_edge_tenant_type_idx).
CREATE VIEW knowledge_graph_relationship_types AS
SELECT e.tenant_id,
       e.cloud_account_id,
       e.relationship_type,
       s.node_type AS source_node_type,
       d.node_type AS destination_node_type,
       count(*)::int AS edge_count,
       min(e.created_at) AS first_seen_at,
       max(e.updated_at) AS last_seen_at
  FROM knowledge_graph_edge e
  JOIN knowledge_graph_node s ON s.id = e.source_node_id
  JOIN knowledge_graph_node d ON d.id = e.destination_node_id
 GROUP BY e.tenant_id, e.cloud_account_id, e.relationship_type, s.node_type, d.node_type;
