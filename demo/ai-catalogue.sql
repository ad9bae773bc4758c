-- Demo AI catalogue of the two demo tenants (Acme, Globex), loaded after the demo set
-- (demo/seed.ts): agents, knowledge-base documents, which agent uses which, global contexts, a
-- tool and a default model of the tenant's own. The knowledge graph comes with the demo set itself
-- (demo/demo-data.ts). Ids follow the demo data's scheme: kind 0x70 tools, 0x71 models, 0x72
-- agents, 0x73 knowledge bases, 0x74 global contexts. Safe to run again: existing rows stay.

INSERT INTO ai_agent (id, tenant_id, cloud_account_id, name, description, agent_type, system_prompt, enabled, created_by, created_at, updated_at)
SELECT v.id::uuid, v.tenant_id::uuid, v.account_id::uuid, v.name, v.description, v.agent_type, v.prompt, v.enabled::boolean, v.created_by,
       v.created_at::timestamptz, v.updated_at::timestamptz
FROM (VALUES
  ('11111111-0072-4000-8000-000000000001', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Incident responder', 'Finds the cause of firing alerts from events, logs and runbooks', 'troubleshooting',
    'You investigate incidents of the production EKS cluster. Cite the events and runbooks you use.', 'true', 'alice.admin@acme.example.com',
    '2026-01-15 09:00:00+00', '2026-02-01 10:00:00+00'),
  ('11111111-0072-4000-8000-000000000002', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Cost advisor', 'Explains spend changes and proposes savings', 'cost',
    'You explain AWS spend by service and team, and rank savings by amount.', 'true', 'alice.admin@acme.example.com',
    '2026-01-16 09:00:00+00', '2026-01-16 09:00:00+00'),
  ('11111111-0072-4000-8000-000000000003', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Security reviewer', 'Reviews misconfigurations and vulnerable images', 'security',
    NULL, 'false', 'alice.admin@acme.example.com',
    '2026-02-10 09:00:00+00', '2026-02-12 09:00:00+00'),
  ('11111111-0072-4000-8000-000000000004', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000002',
    'GKE assistant', 'Answers questions about the GKE cluster', 'assistant',
    NULL, 'true', 'alice.admin@acme.example.com',
    '2026-01-20 09:00:00+00', '2026-01-20 09:00:00+00'),
  ('22222222-0072-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'Incident responder', 'Globex on-call helper', 'troubleshooting',
    'You help the Globex on-call engineer.', 'true', 'grace.admin@globex.example.com',
    '2026-01-18 09:00:00+00', '2026-01-18 09:00:00+00'),
  ('22222222-0072-4000-8000-000000000002', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'FinOps analyst', 'Globex cost questions', 'cost',
    NULL, 'true', 'grace.admin@globex.example.com',
    '2026-01-19 09:00:00+00', '2026-01-19 09:00:00+00')
) AS v (id, tenant_id, account_id, name, description, agent_type, prompt, enabled, created_by, created_at, updated_at)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;

INSERT INTO ai_knowledgebase (id, tenant_id, cloud_account_id, name, description, kb_type, kb_source, data, data_filename, data_format, status, created_by, created_at, updated_at)
SELECT v.id::uuid, v.tenant_id::uuid, v.account_id::uuid, v.name, v.description, v.kb_type, v.kb_source, v.data, v.filename, v.format, v.status, v.created_by,
       v.created_at::timestamptz, v.created_at::timestamptz
FROM (VALUES
  ('11111111-0073-4000-8000-000000000001', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Checkout runbook', 'What to do when checkout errors rise', 'runbook', 'upload',
    E'# Checkout runbook\n1. Check the checkout pods for restarts (CrashLoopBackOff).\n2. Look at the payment gateway latency.\n3. Roll back the last deployment when errors started with it.',
    'checkout-runbook.md', 'markdown', 'active', 'alice.admin@acme.example.com', '2026-01-15 10:00:00+00'),
  ('11111111-0073-4000-8000-000000000002', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Tagging policy', 'Which tags every AWS resource carries', 'policy', 'upload',
    'Every resource carries team, env and cost-center tags. Untagged resources are reported weekly to #finops.',
    'tagging-policy.txt', 'text', 'active', 'alice.admin@acme.example.com', '2026-01-16 10:00:00+00'),
  ('11111111-0073-4000-8000-000000000003', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Architecture overview', 'Services of the shop and how they call each other', 'document', 'confluence',
    'The web frontend calls checkout and catalog; checkout calls payments and the orders database (RDS PostgreSQL).',
    'architecture.md', 'markdown', 'active', 'alice.admin@acme.example.com', '2026-01-17 10:00:00+00'),
  ('11111111-0073-4000-8000-000000000004', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000002',
    'GKE upgrade notes', 'Notes from the last GKE upgrade', 'document', 'upload',
    'Node pools upgrade one at a time; PodDisruptionBudgets keep two replicas of each service.',
    'gke-upgrade.md', 'markdown', 'active', 'alice.admin@acme.example.com', '2026-01-21 10:00:00+00'),
  ('22222222-0073-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'On-call handbook', 'Globex on-call procedures', 'runbook', 'upload',
    'Page the secondary after 15 minutes without acknowledgement.',
    'oncall.md', 'markdown', 'active', 'grace.admin@globex.example.com', '2026-01-18 10:00:00+00')
) AS v (id, tenant_id, account_id, name, description, kb_type, kb_source, data, filename, format, status, created_by, created_at)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;

INSERT INTO ai_agent_kb (tenant_id, agent_id, kb_id, created_by, created_at)
SELECT v.tenant_id::uuid, v.agent_id::uuid, v.kb_id::uuid, v.created_by, v.created_at::timestamptz
FROM (VALUES
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000001', '11111111-0073-4000-8000-000000000001', 'alice.admin@acme.example.com', '2026-02-01 10:00:00+00'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000001', '11111111-0073-4000-8000-000000000003', 'alice.admin@acme.example.com', '2026-02-01 10:05:00+00'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000002', '11111111-0073-4000-8000-000000000002', 'alice.admin@acme.example.com', '2026-02-02 10:00:00+00'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000004', '11111111-0073-4000-8000-000000000004', 'alice.admin@acme.example.com', '2026-02-03 10:00:00+00'),
  ('22222222-0000-4000-8000-000000000001', '22222222-0072-4000-8000-000000000001', '22222222-0073-4000-8000-000000000001', 'grace.admin@globex.example.com', '2026-02-01 11:00:00+00')
) AS v (tenant_id, agent_id, kb_id, created_by, created_at)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;

INSERT INTO ai_global_context (id, tenant_id, cloud_account_id, name, description, data, data_filename, data_format, status, created_by, created_at, updated_at)
SELECT v.id::uuid, v.tenant_id::uuid, v.account_id::uuid, v.name, v.description, v.data, v.filename, v.format, v.status, v.created_by,
       v.created_at::timestamptz, v.created_at::timestamptz
FROM (VALUES
  ('11111111-0074-4000-8000-000000000001', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Environments', 'Which namespaces are production', 'Namespaces production and payments are production; staging and dev are not.',
    'environments.txt', 'text', 'active', 'alice.admin@acme.example.com', '2026-01-15 11:00:00+00'),
  ('11111111-0074-4000-8000-000000000002', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Owners', 'Teams owning the services', '{"checkout":"team-payments","web":"team-web","catalog":"team-web"}',
    'owners.json', 'json', 'active', 'alice.admin@acme.example.com', '2026-01-16 11:00:00+00'),
  ('22222222-0074-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'Environments', 'Globex environments', 'Everything in the prod account is production.',
    'environments.txt', 'text', 'active', 'grace.admin@globex.example.com', '2026-01-18 11:00:00+00')
) AS v (id, tenant_id, account_id, name, description, data, filename, format, status, created_by, created_at)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;

-- A tool of Acme's own (its deploy-history webhook), next to the platform's tools of sql/0025.
INSERT INTO ai_tool (id, tenant_id, cloud_account_id, name, description, input_schema)
SELECT v.id::uuid, v.tenant_id::uuid, v.account_id::uuid, v.name, v.description, v.schema::jsonb
FROM (VALUES
  ('11111111-0070-4000-8000-000000000001', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'deploy_history', 'Recent deployments of a service, from the CI system',
    '{"type":"object","required":["service"],"properties":{"service":{"type":"string"},"limit":{"type":"integer"}}}'),
  ('22222222-0070-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'pager_status', 'Who is on call now', '{"type":"object","properties":{}}')
) AS v (id, tenant_id, account_id, name, description, schema)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;

INSERT INTO ai_agent_tool (tenant_id, agent_id, tool_id)
SELECT v.tenant_id::uuid, v.agent_id::uuid, v.tool_id::uuid
FROM (VALUES
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000001', '00000000-0070-4000-8000-000000000001'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000001', '00000000-0070-4000-8000-000000000002'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000001', '11111111-0070-4000-8000-000000000001'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000002', '00000000-0070-4000-8000-000000000003'),
  ('11111111-0000-4000-8000-000000000001', '11111111-0072-4000-8000-000000000002', '00000000-0070-4000-8000-000000000004'),
  ('22222222-0000-4000-8000-000000000001', '22222222-0072-4000-8000-000000000001', '00000000-0070-4000-8000-000000000001'),
  ('22222222-0000-4000-8000-000000000001', '22222222-0072-4000-8000-000000000001', '22222222-0070-4000-8000-000000000001')
) AS v (tenant_id, agent_id, tool_id)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;

-- Globex picked a default model for all its accounts; Acme uses the configuration's.
INSERT INTO ai_model (id, tenant_id, cloud_account_id, provider, name, display_name, description, context_window, max_output_tokens, is_default)
SELECT v.id::uuid, v.tenant_id::uuid, NULL, v.provider, v.name, v.display_name, v.description, v.context_window::int, v.max_output::int, v.is_default::boolean
FROM (VALUES
  ('22222222-0071-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', 'openai', 'gpt-4o', 'GPT-4o (Globex)', 'Globex''s chosen model', '128000', '16384', 'true')
) AS v (id, tenant_id, provider, name, display_name, description, context_window, max_output, is_default)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT DO NOTHING;
