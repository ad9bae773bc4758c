-- Demo security findings (sql/0020) of the demo tenants (Acme, Globex), loaded after the demo set
-- (demo/seed.ts): image vulnerabilities of their Kubernetes workloads, and CIS benchmark results
-- of the accounts that run clusters (aws, gcp). Ids follow the demo data's scheme
-- (<tenant>-<kind>-4000-8000-<n>: kind 0x62 vulnerabilities, 0x63 CIS results), so a second load
-- adds nothing.

-- Vulnerabilities: each row names a demo workload; its account, namespace, kind and image are the
-- workload's own (k8s_workloads, its first image), so the findings agree with the inventory.
-- tenants: which demo tenant has the finding ('both', 'acme' or 'globex').
INSERT INTO recommendation_vulnerabilities (id, tenant_id, cloud_account_id, namespace, workload_name, workload_type, image, package_id,
                                            vulnerability_id, severity, status, is_active, recommendation, created_at, updated_at)
SELECT (left(w.tenant_id::text, 8) || '-0062-4000-8000-' || lpad(to_hex(v.n), 12, '0'))::uuid,
       w.tenant_id, w.cloud_account_id, w.namespace, w.name, w.kind, coalesce(w.meta -> 'images' ->> 0, 'registry.example.com/' || w.name),
       v.package_id, v.vulnerability_id, v.severity, v.status, v.status NOT IN ('Closed', 'Dismissed'),
       jsonb_build_object('title', v.title, 'installed_version', v.installed, 'fixed_version', v.fixed,
                          'links', jsonb_build_array('https://nvd.nist.gov/vuln/detail/' || v.vulnerability_id)),
       timestamp '2026-02-20 06:00:00' + v.n * interval '7 hours',
       timestamp '2026-02-20 06:00:00' + v.n * interval '7 hours' + CASE WHEN v.status = 'Open' THEN interval '0' ELSE interval '2 days' END
FROM (VALUES
  (1,  'both',   'api-server',        'openssl',             '3.0.7',   '3.0.12',   'CVE-2023-5363',  'High',     'Open',       'OpenSSL: incorrect cipher key and IV length processing'),
  (2,  'both',   'api-server',        'zlib',                '1.2.13',  '1.3.1',    'CVE-2023-45853', 'Critical', 'Open',       'zlib minizip: integer overflow and heap overflow in zipOpenNewFileInZip4_64'),
  (3,  'both',   'web-frontend',      'nghttp2',             '1.51.0',  '1.57.0',   'CVE-2023-44487', 'High',     'Open',       'HTTP/2 rapid reset: denial of service'),
  (4,  'both',   'payments-worker',   'glibc',               '2.36',    '2.37',     'CVE-2023-4911',  'High',     'Assigned',   'glibc ld.so: buffer overflow in GLIBC_TUNABLES'),
  (5,  'both',   'payments-worker',   'openssh-client',      '9.2p1',   '9.8p1',    'CVE-2024-6387',  'High',     'Open',       'OpenSSH: signal handler race condition in sshd'),
  (6,  'both',   'postgres',          'curl',                '7.88.1',  '8.4.0',    'CVE-2023-38545', 'Critical', 'Open',       'curl: heap overflow in the SOCKS5 proxy handshake'),
  (7,  'both',   'fluent-bit',        'libexpat',            '2.5.0',   '2.6.0',    'CVE-2023-52425', 'High',     'Closed',     'libexpat: denial of service with large tokens'),
  (8,  'both',   'ml-inference',      'setuptools',          '65.5.0',  '65.5.1',   'CVE-2022-40897', 'Medium',   'Open',       'setuptools: regular expression denial of service in package_index'),
  (9,  'both',   'ml-inference',      'xz-utils',            '5.6.0',   '5.4.6',    'CVE-2024-3094',  'Critical', 'InProgress', 'xz / liblzma: malicious code in the release tarballs'),
  (10, 'both',   'grafana',           'busybox',             '1.36.0',  '1.36.1',   'CVE-2022-48174', 'Critical', 'Dismissed',  'BusyBox ash: stack overflow'),
  (11, 'both',   'feature-store',     'jackson-databind',    '2.13.4',  '2.13.4.2', 'CVE-2022-42003', 'High',     'Open',       'jackson-databind: resource exhaustion with deeply nested arrays'),
  (12, 'both',   'redis',             'libc-bin',            '2.36',    '2.37',     'CVE-2023-4806',  'Medium',   'Open',       'glibc getaddrinfo: use after free'),
  (13, 'globex', 'api-gateway',       'log4j-core',          '2.14.1',  '2.17.1',   'CVE-2021-44228', 'Critical', 'Open',       'Log4j: remote code execution through JNDI lookups (Log4Shell)'),
  (14, 'acme',   'prometheus-server', 'golang.org/x/net',    '0.15.0',  '0.17.0',   'CVE-2023-39325', 'High',     'Open',       'Go net/http: HTTP/2 rapid reset can cause excessive work'),
  (15, 'acme',   'nightly-etl',       'python-urllib3',      '1.26.15', '1.26.18',  'CVE-2023-45803', 'Low',      'Open',       'urllib3: request body not stripped after a 303 redirect'),
  (16, 'globex', 'nightly-etl',       'python-urllib3',      '1.26.15', '1.26.18',  'CVE-2023-45803', 'Low',      'Closed',     'urllib3: request body not stripped after a 303 redirect')
) AS v (n, tenants, workload, package_id, installed, fixed, vulnerability_id, severity, status, title)
JOIN k8s_workloads w ON w.name = v.workload
 AND w.tenant_id = ANY (CASE v.tenants
                          WHEN 'acme' THEN ARRAY['11111111-0000-4000-8000-000000000001']::uuid[]
                          WHEN 'globex' THEN ARRAY['22222222-0000-4000-8000-000000000001']::uuid[]
                          ELSE ARRAY['11111111-0000-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001']::uuid[] END)
ON CONFLICT DO NOTHING;

-- CIS results: rules of the CIS Kubernetes (EKS / GKE) benchmarks for the accounts that run
-- clusters; status Open when the rule fails, Closed when it passes. rule_id is unique per account.
INSERT INTO recommendation_security_cis (id, tenant_id, cloud_account_id, rule_id, rule_name, rule_description, severity, status, updated_at)
SELECT (left(t.id::text, 8) || '-0063-4000-8000-' || lpad(to_hex(a.n * 16 + v.n), 12, '0'))::uuid,
       t.id, (left(t.id::text, 8) || '-0002-4000-8000-' || lpad(a.n::text, 12, '0'))::uuid,
       v.rule_id, v.rule_name, v.rule_description, v.severity,
       -- The tenants and clusters differ a little: Globex passes the audit-log rule, its gcp cluster the
       -- endpoint rule, and Acme's gcp cluster still fails secrets-as-files.
       CASE
         WHEN t.id = '22222222-0000-4000-8000-000000000001' AND v.rule_id = '2.1.1' THEN 'Closed'
         WHEN a.n = 2 AND t.id = '22222222-0000-4000-8000-000000000001' AND v.rule_id = '5.4.1' THEN 'Closed'
         WHEN a.n = 2 AND t.id = '11111111-0000-4000-8000-000000000001' AND v.rule_id = '4.4.1' THEN 'Open'
         ELSE v.status END,
       timestamp '2026-02-27 03:00:00' + a.n * interval '1 hour'
FROM tenant t
CROSS JOIN (VALUES (1), (2)) AS a (n)  -- the aws and gcp accounts of the demo scheme
CROSS JOIN (VALUES
  (1, '2.1.1', 'Enable audit logs',                                'Control plane audit logs are sent to the provider''s log service.',                  'Medium',   'Open'),
  (2, '3.1.1', 'Restrict kubeconfig file permissions',             'The kubelet kubeconfig file is mode 644 or more restrictive on every node.',         'Medium',   'Closed'),
  (3, '3.2.1', 'Disable anonymous kubelet authentication',         'The kubelet refuses anonymous requests (--anonymous-auth=false).',                   'High',     'Closed'),
  (4, '4.1.1', 'Use cluster-admin only where required',            'The cluster-admin role is bound only to the accounts that need it.',                 'High',     'Open'),
  (5, '4.2.1', 'Minimize the admission of privileged containers',  'No workload outside kube-system runs a privileged container.',                       'Critical', 'Open'),
  (6, '4.4.1', 'Prefer secrets as files over environment variables', 'Workloads mount secrets as files rather than exposing them as environment variables.', 'Low',   'Closed'),
  (7, '5.4.1', 'Restrict access to the control plane endpoint',    'The API server endpoint is private or limited to known networks.',                    'High',     'Open')
) AS v (n, rule_id, rule_name, rule_description, severity, status)
WHERE t.id IN ('11111111-0000-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001')
ON CONFLICT DO NOTHING;
