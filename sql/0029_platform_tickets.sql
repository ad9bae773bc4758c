-- Tickets the platform keeps itself (no ticketing integration: OPS-1, OPS-2 ...) say so in
-- tickets.platform, instead of passing for Jira tickets.
INSERT INTO ticket_tool_types (value, comment) VALUES ('platform', 'Kept by the platform itself (no ticketing integration)')
ON CONFLICT (value) DO NOTHING;
UPDATE tickets SET platform = 'platform' WHERE platform = 'jira' AND integration_id IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM integrations i WHERE i.id = tickets.integration_id AND i.integration_type = 'jira')
   AND url NOT LIKE '%/browse/%';
