-- Demo workflows and executions of the two demo tenants (Acme, Globex), loaded after the demo set
-- (demo/seed.ts). Ids follow the demo data's scheme (kind 0x60 workflows, 0x61 executions).
-- Safe to run again: existing rows are left alone.

INSERT INTO workflows (id, tenant_id, account_id, name, status, definition, tags, last_execution_status, last_execution_time, created_at, created_by, updated_at, updated_by)
SELECT v.id::uuid, v.tenant_id::uuid, v.account_id::uuid, v.name, v.status, v.definition::jsonb, v.tags::jsonb, v.last_status, v.last_time::timestamp,
       v.created_at::timestamp, v.created_by::uuid, v.updated_at::timestamp, v.updated_by::uuid
FROM (VALUES
  ('11111111-0060-4000-8000-000000000001', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Stop idle dev instances', 'ACTIVE',
    '{"version":"1","timeout":"30m","inputs":[{"id":"max_cpu","type":"number","default":"2","description":"CPU percent below which an instance is idle"}],"triggers":[{"type":"schedule","params":{"cron":"0 20 * * 1-5"}}],"retry_policy":{"maximum_attempts":3,"initial_interval":"10s","backoff_coefficient":2,"maximum_interval":"5m","non_retryable_error_types":["ValidationError"]},"tasks":[{"id":"find","type":"query_cost","params":{"period":"1d"}},{"id":"stop","type":"cloud_resource_action","depends_on":["find"],"params":{"action":"stop"},"failure_policy":{"action":"retry","retry":{"maximum_attempts":2,"initial_interval":"30s"}}},{"id":"tell","type":"notify_slack","depends_on":["stop"],"params":{"channel":"#finops","message":"Stopped idle instances"}}],"hooks":[{"failure":[{"type":"notify_slack","params":{"channel":"#oncall"}}]}],"output":{"stopped":"{{tasks.stop.output}}"}}',
    '{"env":"dev","team":"platform"}', 'COMPLETED', '2026-03-02 20:00:41',
    '2026-01-10 09:00:00', '11111111-0001-4000-8000-000000000001', '2026-02-01 10:30:00', '11111111-0001-4000-8000-000000000001'),
  ('11111111-0060-4000-8000-000000000002', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000001',
    'Scale down staging at night', 'ACTIVE',
    '{"version":"1","triggers":[{"type":"schedule","params":{"cron":"0 22 * * *"}}],"tasks":[{"id":"scale","type":"k8s_scale_workload","params":{"namespace":"staging","name":"web","replicas":0}}]}',
    '{"env":"staging","team":"web"}', 'FAILED', '2026-03-01 22:00:12',
    '2026-01-20 14:00:00', '11111111-0001-4000-8000-000000000001', '2026-01-20 14:00:00', NULL),
  ('11111111-0060-4000-8000-000000000003', '11111111-0000-4000-8000-000000000001', '11111111-0002-4000-8000-000000000002',
    'Approve large rightsizing', 'DRAFT',
    '{"version":"1","triggers":[{"type":"event","params":{"source":"recommendation"}},{"type":"manual"}],"tasks":[{"id":"ask","type":"approval","params":{"reviewers":["alice.admin@acme.example.com"]}},{"id":"apply","type":"cloud_resource_action","depends_on":["ask"],"if":"tasks.ask.output.approved","params":{"action":"resize"}}]}',
    '{"team":"data"}', NULL, NULL,
    '2026-02-15 08:00:00', '11111111-0001-4000-8000-000000000001', '2026-02-16 08:00:00', '11111111-0001-4000-8000-000000000001'),
  ('22222222-0060-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'Stop idle dev instances', 'ACTIVE',
    '{"version":"1","triggers":[{"type":"schedule","params":{"cron":"0 19 * * *"}}],"tasks":[{"id":"stop","type":"cloud_resource_action","params":{"action":"stop"}}]}',
    '{"env":"dev","team":"platform"}', 'COMPLETED', '2026-03-02 19:00:30',
    '2026-01-12 09:00:00', '22222222-0001-4000-8000-000000000001', '2026-01-12 09:00:00', NULL),
  ('22222222-0060-4000-8000-000000000002', '22222222-0000-4000-8000-000000000001', '22222222-0002-4000-8000-000000000001',
    'Weekly cost report', 'INACTIVE',
    '{"version":"1","triggers":[{"type":"manual"}],"tasks":[{"id":"cost","type":"query_cost","params":{"period":"7d"}},{"id":"post","type":"http_request","depends_on":["cost"],"params":{"url":"https://reports.globex.example.com"}}]}',
    '{"team":"finance"}', NULL, NULL,
    '2026-02-03 11:00:00', '22222222-0001-4000-8000-000000000001', '2026-02-03 11:00:00', NULL)
) AS v (id, tenant_id, account_id, name, status, definition, tags, last_status, last_time, created_at, created_by, updated_at, updated_by)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT (id) DO NOTHING;

INSERT INTO workflow_executions (id, tenant_id, workflow_id, status, trigger_type, triggered_by, parent_workflow_id, inputs, tasks, workflow_result, error, start_time, close_time)
SELECT v.id::uuid, v.tenant_id::uuid, v.workflow_id::uuid, v.status, v.trigger_type, v.triggered_by, v.parent_workflow_id, v.inputs::jsonb, v.tasks::jsonb,
       v.workflow_result::jsonb, v.error, v.start_time::timestamp, v.close_time::timestamp
FROM (VALUES
  ('11111111-0061-4000-8000-000000000001', '11111111-0000-4000-8000-000000000001', '11111111-0060-4000-8000-000000000001',
    'COMPLETED', 'schedule', 'scheduler', NULL, '{"max_cpu":"2"}',
    '[{"id":"find","type":"query_cost","status":"COMPLETED","attempt":1,"start_time":"2026-02-27T20:00:01","end_time":"2026-02-27T20:00:09","input":{"period":"1d"},"output":{"total":412.5,"currency":"USD"}},{"id":"stop","type":"cloud_resource_action","status":"COMPLETED","attempt":1,"start_time":"2026-02-27T20:00:10","end_time":"2026-02-27T20:00:35","input":{"action":"stop"},"output":{"state":"stopped"}}]',
    '{"stopped":2}', NULL, '2026-02-27 20:00:00', '2026-02-27 20:00:40'),
  ('11111111-0061-4000-8000-000000000002', '11111111-0000-4000-8000-000000000001', '11111111-0060-4000-8000-000000000001',
    'FAILED', 'schedule', 'scheduler', NULL, '{"max_cpu":"2"}',
    '[{"id":"find","type":"query_cost","status":"COMPLETED","attempt":1,"start_time":"2026-02-28T20:00:01","end_time":"2026-02-28T20:00:08"},{"id":"stop","type":"cloud_resource_action","status":"FAILED","attempt":2,"error":"instance i-0abc is protected","start_time":"2026-02-28T20:00:09","end_time":"2026-02-28T20:01:10"}]',
    NULL, 'task stop failed: instance i-0abc is protected', '2026-02-28 20:00:00', '2026-02-28 20:01:11'),
  ('11111111-0061-4000-8000-000000000003', '11111111-0000-4000-8000-000000000001', '11111111-0060-4000-8000-000000000001',
    'COMPLETED', 'manual', '11111111-0001-4000-8000-000000000001', NULL, '{"max_cpu":"5"}', '[]',
    '{"stopped":0}', NULL, '2026-03-02 20:00:00', '2026-03-02 20:00:41'),
  ('11111111-0061-4000-8000-000000000004', '11111111-0000-4000-8000-000000000001', '11111111-0060-4000-8000-000000000002',
    'FAILED', 'schedule', 'scheduler', NULL, NULL,
    '[{"id":"scale","type":"k8s_scale_workload","status":"FAILED","attempt":1,"error":"deployment web not found"}]',
    NULL, 'task scale failed: deployment web not found', '2026-03-01 22:00:00', '2026-03-01 22:00:12'),
  ('11111111-0061-4000-8000-000000000005', '11111111-0000-4000-8000-000000000001', '11111111-0060-4000-8000-000000000002',
    'RUNNING', 'event', 'recommendation', '11111111-0060-4000-8000-000000000001', NULL, '[]',
    NULL, NULL, '2026-03-03 09:15:00', NULL),
  ('22222222-0061-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001', '22222222-0060-4000-8000-000000000001',
    'COMPLETED', 'schedule', 'scheduler', NULL, NULL,
    '[{"id":"stop","type":"cloud_resource_action","status":"COMPLETED","attempt":1}]',
    '{"stopped":1}', NULL, '2026-03-02 19:00:00', '2026-03-02 19:00:30'),
  ('22222222-0061-4000-8000-000000000002', '22222222-0000-4000-8000-000000000001', '22222222-0060-4000-8000-000000000001',
    'FAILED', 'schedule', 'scheduler', NULL, NULL, '[]',
    NULL, 'timed out', '2026-03-01 19:00:00', '2026-03-01 19:30:00')
) AS v (id, tenant_id, workflow_id, status, trigger_type, triggered_by, parent_workflow_id, inputs, tasks, workflow_result, error, start_time, close_time)
WHERE EXISTS (SELECT 1 FROM tenant WHERE tenant.id = v.tenant_id::uuid)
ON CONFLICT (id) DO NOTHING;
