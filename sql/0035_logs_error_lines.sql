-- k8s_workloads_cloud_account_monitoring_v2 counts each workload's application errors: the tenant's
-- log lines of severity error, critical or fatal, a few in a hundred of all lines. No index held them:
-- every request read the whole table (3 million lines in the bench at scale 100: about 1 s). This
-- partial index holds only those lines, keyed by tenant and account, with the labels that the count
-- groups them by. Its predicate is the statement's condition, word for word, which is what lets the
-- planner use it (tests/analytics-plans.test.ts).
CREATE INDEX logs_error_lines_idx ON logs (tenant_id, cloud_account_id) INCLUDE (labels)
  WHERE lower(severity) IN ('error', 'critical', 'fatal');
