/**
 * Demo data for two tenants, "Acme Corp" and "Globex Industries".
 *
 * `demoDataSql()` returns one SQL script that fills the tables of the migrations in `sql/`. The
 * script is deterministic: every id is fixed and every "random" value comes from a seeded PRNG
 * written below, so two calls return the same text. It is also safe to run twice: rows that are
 * already there are left alone (ON CONFLICT DO NOTHING, and a NOT EXISTS guard for logs, whose
 * key is a sequence).
 *
 * Id scheme: `<tenant>-<kind>-4000-8000-<n>`, where <tenant> is 11111111 (Acme) or 22222222
 * (Globex), <kind> names the table (see KIND) and <n> is a 12-digit hex counter.
 */

export const DEMO = {
  tenants: {
    acme: {
      id: '11111111-0000-4000-8000-000000000001',
      name: 'Acme Corp',
      users: {
        admin: {
          id: '11111111-0001-4000-8000-000000000001',
          username: 'alice.admin@acme.example.com',
          displayName: 'Alice Admin',
          role: 'tenant_admin',
        },
        readonly: {
          id: '11111111-0001-4000-8000-000000000002',
          username: 'victor.viewer@acme.example.com',
          displayName: 'Victor Viewer',
          role: 'tenant_admin_readonly',
        },
      },
      /** AWS and GCP run Kubernetes clusters (workloads, logs); Azure does not. */
      cloudAccounts: {
        aws: '11111111-0002-4000-8000-000000000001',
        gcp: '11111111-0002-4000-8000-000000000002',
        azure: '11111111-0002-4000-8000-000000000003',
      },
      integrationId: '11111111-000c-4000-8000-000000000001',
    },
    globex: {
      id: '22222222-0000-4000-8000-000000000001',
      name: 'Globex Industries',
      users: {
        admin: {
          id: '22222222-0001-4000-8000-000000000001',
          username: 'grace.admin@globex.example.com',
          displayName: 'Grace Admin',
          role: 'tenant_admin',
        },
        readonly: {
          id: '22222222-0001-4000-8000-000000000002',
          username: 'oscar.viewer@globex.example.com',
          displayName: 'Oscar Viewer',
          role: 'tenant_admin_readonly',
        },
      },
      cloudAccounts: {
        aws: '22222222-0002-4000-8000-000000000001',
        gcp: '22222222-0002-4000-8000-000000000002',
        azure: '22222222-0002-4000-8000-000000000003',
      },
      integrationId: '22222222-000c-4000-8000-000000000001',
    },
  },
  /** Row counts per tenant, for tests that assert on them. */
  perTenant: {
    cloudAccounts: 3,
    resourcesPerAccount: 10,
    /** One spend line per resource and day, 2026-01-01 through 2026-02-28. */
    spendDays: 59,
    recommendations: 15,
    /** Recommendations with status Open or Assigned (all of them have a resource). */
    openOrAssignedRecommendations: 10,
    /** Workloads in each of the aws and gcp accounts. */
    k8sWorkloadsPerAccount: 6,
    events: 30,
    autoPilots: 3,
    tickets: 2,
    /** Log lines on 2026-02-15, in the aws and gcp accounts. */
    logs: 200,
  },
} as const;

type TenantKey = keyof typeof DEMO.tenants;
type AccountKey = 'aws' | 'gcp' | 'azure';
type Provider = 'AWS' | 'GCP' | 'Azure';

// ---------------------------------------------------------------------------------------------
// Deterministic helpers

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One independent stream per (tenant, section), so that sections do not shift each other. */
function rngFor(tenantSeed: number, section: number): () => number {
  return mulberry32((tenantSeed ^ Math.imul(section + 1, 0x9e3779b1)) >>> 0);
}

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

function weighted<T>(rng: () => number, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0);
  let r = rng() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1]![0];
}

function cents(x: number): number {
  return Math.round(x * 100) / 100;
}

const KIND = {
  resource: 0x3,
  spend: 0x4,
  recommendation: 0x5,
  workload: 0x6,
  workloadResource: 0x7,
  event: 0x8,
  approvalPolicy: 0x9,
  autoPilot: 0xa,
  ticket: 0xb,
  userRole: 0xd,
  tenantUser: 0xe,
} as const;

function demoId(tenantPrefix: string, kind: number, n: number): string {
  return `${tenantPrefix}-${kind.toString(16).padStart(4, '0')}-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

const DAY_MS = 86_400_000;

function utc(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

/** `timestamp` literal text, second precision: 2026-01-05 14:03:00 */
function tsText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

// ---------------------------------------------------------------------------------------------
// SQL text helpers: every value is rendered to a literal here, never concatenated elsewhere.

type Cell = string; // already-rendered SQL

function str(value: string | null): Cell {
  return value === null ? 'NULL' : `'${value.replace(/'/g, "''")}'`;
}

function num(value: number | null, digits?: number): Cell {
  if (value === null) return 'NULL';
  return digits === undefined ? String(value) : value.toFixed(digits);
}

function bool(value: boolean | null): Cell {
  return value === null ? 'NULL' : value ? 'true' : 'false';
}

function ts(ms: number | null): Cell {
  return ms === null ? 'NULL' : `'${tsText(ms)}'`;
}

function json(value: unknown): Cell {
  return value === null || value === undefined ? 'NULL' : str(JSON.stringify(value));
}

function insert(table: string, columns: readonly string[], rows: readonly Cell[][], chunk = 400): string {
  const out: string[] = [];
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES\n`;
  for (let i = 0; i < rows.length; i += chunk) {
    const values = rows.slice(i, i + chunk).map((r) => {
      if (r.length !== columns.length) throw new Error(`demo data: ${table} row has ${r.length} values for ${columns.length} columns`);
      return `  (${r.join(', ')})`;
    });
    out.push(`${head}${values.join(',\n')}\nON CONFLICT DO NOTHING;\n`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The shape of each tenant

interface AccountSpec {
  key: AccountKey;
  provider: Provider;
  name: string;
  number: string;
  type: string;
  env: 'prod' | 'non_prod';
  status: 'active' | 'disabled' | 'inactive';
  syncStatus: 'Completed' | 'Error' | 'Queued' | 'Running';
  syncMessage: string | null;
  budget: number;
  region: string;
  altRegion: string;
  /** Prefix of resource names, e.g. "prod" gives "prod-api-server". */
  prefix: string;
  /** Kubernetes cluster of the account, when it runs workloads. */
  cluster: string | null;
  createdAt: string;
}

interface TenantSpec {
  key: TenantKey;
  seed: number;
  uuidPrefix: string;
  type: 'Customer' | 'Demo';
  createdAt: string;
  projectKey: string;
  ticketHost: string;
  accounts: readonly AccountSpec[];
}

const TENANTS: readonly TenantSpec[] = [
  {
    key: 'acme',
    seed: 0x00ac3e01,
    uuidPrefix: '11111111',
    type: 'Customer',
    createdAt: '2025-03-10',
    projectKey: 'OPS',
    ticketHost: 'https://acme.jira.example.com',
    accounts: [
      {
        key: 'aws', provider: 'AWS', name: 'acme-aws-production', number: '401234567890', type: 'Production',
        env: 'prod', status: 'active', syncStatus: 'Completed', syncMessage: null, budget: 25000,
        region: 'us-east-1', altRegion: 'us-west-2', prefix: 'prod', cluster: 'acme-prod-eks', createdAt: '2025-03-12',
      },
      {
        key: 'gcp', provider: 'GCP', name: 'acme-gcp-analytics', number: 'acme-analytics-4821', type: 'Production',
        env: 'prod', status: 'active', syncStatus: 'Running', syncMessage: null, budget: 12000,
        region: 'us-central1', altRegion: 'us-east1', prefix: 'analytics', cluster: 'acme-analytics-gke', createdAt: '2025-05-02',
      },
      {
        key: 'azure', provider: 'Azure', name: 'acme-azure-dev', number: '7d1e2f3a-0b4c-4d5e-8f60-718293a4b5c6', type: 'Development',
        env: 'non_prod', status: 'inactive', syncStatus: 'Error', syncMessage: 'Client secret expired; update the service principal credentials',
        budget: 3000, region: 'eastus', altRegion: 'westeurope', prefix: 'dev', cluster: null, createdAt: '2025-08-19',
      },
    ],
  },
  {
    key: 'globex',
    seed: 0x0610be02,
    uuidPrefix: '22222222',
    type: 'Customer',
    createdAt: '2025-04-22',
    projectKey: 'INFRA',
    ticketHost: 'https://globex.jira.example.com',
    accounts: [
      {
        key: 'aws', provider: 'AWS', name: 'globex-aws-main', number: '509876543210', type: 'Production',
        env: 'prod', status: 'active', syncStatus: 'Completed', syncMessage: null, budget: 40000,
        region: 'eu-west-1', altRegion: 'eu-central-1', prefix: 'main', cluster: 'globex-main-eks', createdAt: '2025-04-25',
      },
      {
        key: 'gcp', provider: 'GCP', name: 'globex-gcp-ml', number: 'globex-ml-1187', type: 'Development',
        env: 'non_prod', status: 'active', syncStatus: 'Queued', syncMessage: null, budget: 8000,
        region: 'europe-west4', altRegion: 'europe-west1', prefix: 'ml', cluster: 'globex-ml-gke', createdAt: '2025-06-14',
      },
      {
        key: 'azure', provider: 'Azure', name: 'globex-azure-legacy', number: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', type: 'Production',
        env: 'prod', status: 'disabled', syncStatus: 'Completed', syncMessage: null, budget: 5000,
        region: 'northeurope', altRegion: 'westeurope', prefix: 'legacy', cluster: null, createdAt: '2025-07-01',
      },
    ],
  },
];

interface ResourceTemplate {
  /** Name after the account prefix. */
  name: string;
  type: string;
  service: string;
  /** Typical daily cost before the account's scale. */
  daily: number;
  alt?: boolean;
  status?: 'Active' | 'Inactive';
  size?: string;
}

/** Ten resources per provider; index 5 (AWS) and 4 (GCP, Azure) is the Kubernetes cluster. */
const RESOURCES: Record<Provider, readonly ResourceTemplate[]> = {
  AWS: [
    { name: 'api-server', type: 'ec2_instance', service: 'Amazon EC2', daily: 18.4, size: 'm5.xlarge' },
    { name: 'worker-01', type: 'ec2_instance', service: 'Amazon EC2', daily: 32.6, size: 'c5.2xlarge' },
    { name: 'batch-host', type: 'ec2_instance', service: 'Amazon EC2', daily: 2.2, status: 'Inactive', size: 't3.large' },
    { name: 'orders-db', type: 'rds_instance', service: 'Amazon RDS', daily: 45.2, size: 'db.r6g.xlarge' },
    { name: 'assets-bucket', type: 's3_bucket', service: 'Amazon S3', daily: 6.3 },
    { name: 'eks', type: 'eks_cluster', service: 'Amazon EKS', daily: 7.2 },
    { name: 'image-resizer', type: 'lambda_function', service: 'AWS Lambda', daily: 1.15, alt: true },
    { name: 'public-alb', type: 'load_balancer', service: 'Elastic Load Balancing', daily: 5.4 },
    { name: 'data-volume-01', type: 'ebs_volume', service: 'Amazon EBS', daily: 3.2, alt: true, size: 'gp3 500 GiB' },
    { name: 'session-cache', type: 'elasticache_cluster', service: 'Amazon ElastiCache', daily: 9.8, size: 'cache.r6g.large' },
  ],
  GCP: [
    { name: 'vm-1', type: 'compute_instance', service: 'Compute Engine', daily: 27.1, size: 'n2-standard-8' },
    { name: 'etl-runner', type: 'compute_instance', service: 'Compute Engine', daily: 9.6, size: 'e2-standard-4' },
    { name: 'reporting-db', type: 'sql_instance', service: 'Cloud SQL', daily: 21.4, size: 'db-custom-4-16384' },
    { name: 'raw-events', type: 'storage_bucket', service: 'Cloud Storage', daily: 4.8 },
    { name: 'gke', type: 'gke_cluster', service: 'Kubernetes Engine', daily: 7.3 },
    { name: 'warehouse', type: 'bigquery_dataset', service: 'BigQuery', daily: 38.5 },
    { name: 'ingest-api', type: 'cloud_run_service', service: 'Cloud Run', daily: 3.1, alt: true },
    { name: 'disk-1', type: 'persistent_disk', service: 'Persistent Disk', daily: 2.7, status: 'Inactive', size: 'pd-ssd 1 TiB' },
    { name: 'events-topic', type: 'pubsub_topic', service: 'Pub/Sub', daily: 1.9 },
    { name: 'feature-cache', type: 'redis_instance', service: 'Memorystore', daily: 6.2, alt: true },
  ],
  Azure: [
    { name: 'vm-01', type: 'virtual_machine', service: 'Virtual Machines', daily: 6.9, size: 'Standard_D4s_v5' },
    { name: 'vm-02', type: 'virtual_machine', service: 'Virtual Machines', daily: 6.9, status: 'Inactive', size: 'Standard_D4s_v5' },
    { name: 'sqldb', type: 'sql_database', service: 'Azure SQL Database', daily: 8.4, size: 'S3' },
    { name: 'storage01', type: 'storage_account', service: 'Storage Accounts', daily: 1.6 },
    { name: 'aks', type: 'aks_cluster', service: 'Azure Kubernetes Service', daily: 2.4 },
    { name: 'functions', type: 'function_app', service: 'Azure Functions', daily: 0.6, alt: true },
    { name: 'lb', type: 'load_balancer', service: 'Load Balancer', daily: 0.9 },
    { name: 'disk-01', type: 'managed_disk', service: 'Managed Disks', daily: 1.2, size: 'P20' },
    { name: 'cosmos', type: 'cosmosdb_account', service: 'Azure Cosmos DB', daily: 5.3, alt: true },
    { name: 'webapp', type: 'app_service', service: 'App Service', daily: 2.9, size: 'P1v3' },
  ],
};

interface Resource {
  id: string;
  account: AccountSpec;
  template: ResourceTemplate;
  name: string;
  region: string;
  /** Daily cost after the account's scale. */
  daily: number;
}

function resourceExternalId(account: AccountSpec, t: ResourceTemplate, name: string, region: string): string {
  switch (account.provider) {
    case 'AWS':
      return `arn:aws:${t.service === 'Amazon S3' ? 's3' : t.type.split('_')[0]}:${region}:${account.number}:${t.type}/${name}`;
    case 'GCP':
      return `//${t.type.split('_')[0]}.googleapis.com/projects/${account.number}/locations/${region}/${t.type}s/${name}`;
    case 'Azure':
      return `/subscriptions/${account.number}/resourceGroups/rg-${account.prefix}/providers/${t.type}/${name}`;
  }
}

function buildResources(tenant: TenantSpec): Resource[] {
  const rng = rngFor(tenant.seed, 1);
  const out: Resource[] = [];
  for (const account of tenant.accounts) {
    const templates = RESOURCES[account.provider];
    const base = templates.reduce((sum, t) => sum + t.daily, 0);
    // Scale so that a month of spend lands between about 55% and 95% of the account's budget.
    const scale = (account.budget * (0.55 + 0.4 * rng())) / 30 / base;
    templates.forEach((t) => {
      out.push({
        id: demoId(tenant.uuidPrefix, KIND.resource, out.length + 1),
        account,
        template: t,
        name: `${account.prefix}-${t.name}`,
        region: t.alt ? account.altRegion : account.region,
        daily: t.daily * scale,
      });
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sections

function tenantSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const admin = d.users.admin.id;
  const created = utc(t.createdAt);
  return insert('tenant', ['id', 'name', 'type', 'created_at', 'created_by', 'updated_at', 'updated_by'], [
    [str(d.id), str(d.name), str(t.type), ts(created), str(admin), ts(created), str(admin)],
  ]);
}

function userSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const created = utc(t.createdAt) + 3_600_000;
  const users = [d.users.admin, d.users.readonly];
  const admin = d.users.admin.id;
  const parts: string[] = [];
  parts.push(insert('users', ['id', 'username', 'display_name', 'status', 'created_at', 'created_by', 'updated_at', 'updated_by'],
    users.map((u, i) => [str(u.id), str(u.username), str(u.displayName), str('active'), ts(created + i * 60_000), str(admin), ts(created + i * 60_000), str(admin)])));
  parts.push(insert('user_roles', ['id', 'user_id', 'role', 'entity_type', 'entity_id', 'tenant_id', 'created_at', 'created_by', 'updated_at'],
    users.map((u, i) => [str(demoId(t.uuidPrefix, KIND.userRole, i + 1)), str(u.id), str(u.role), str('tenant'), str(d.id), str(d.id), ts(created + i * 60_000), str(admin), ts(created + i * 60_000)])));
  parts.push(insert('tenant_users', ['id', 'tenant', '"user"', 'is_default', 'is_owner', 'created_at', 'created_by', 'updated_at', 'updated_by'],
    users.map((u, i) => [str(demoId(t.uuidPrefix, KIND.tenantUser, i + 1)), str(d.id), str(u.id), bool(true), bool(i === 0), ts(created + i * 60_000), str(admin), ts(created + i * 60_000), str(admin)])));
  return parts.join('\n');
}

function accountSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const admin = d.users.admin.id;
  const rows = t.accounts.map((a) => {
    const created = utc(a.createdAt) + 9 * 3_600_000;
    const synced = a.syncStatus === 'Queued' ? null : utc('2026-02-28') + 6 * 3_600_000;
    const data = { regions: [a.region, a.altRegion], currency: 'USD', ...(a.cluster ? { kubernetes_cluster: a.cluster } : {}) };
    return [
      str(d.cloudAccounts[a.key]), str(d.id), str(a.name), str(a.number), str(a.type), str(a.env),
      str(`${a.provider === 'AWS' ? 'Main workloads' : a.provider === 'GCP' ? 'Data and analytics' : 'Development and legacy services'}`),
      str(a.provider), str(a.status), str(a.syncStatus), str(a.syncMessage), ts(synced),
      num(a.budget, 2), str(a.region), ts(utc(a.createdAt)), str(a.provider === 'AWS' ? 'cur' : a.provider === 'GCP' ? 'bigquery_export' : 'cost_management_export'),
      json(data), num(0), ts(created), str(admin), ts(created), str(admin),
    ];
  });
  return insert('cloud_accounts', [
    'id', 'tenant', 'account_name', 'account_number', 'account_type', 'account_env', 'account_purpose',
    'cloud_provider', 'status', 'sync_status', 'sync_status_message', 'synced_at',
    'budget', 'region', 'start_date', 'billing_source',
    'data', 'etl_attempt', 'created_at', 'created_by', 'updated_at', 'updated_by',
  ], rows);
}

function resourceSection(t: TenantSpec, resources: readonly Resource[]): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 2);
  const rows = resources.map((r) => {
    const firstSeen = utc(r.account.createdAt) + Math.floor(rng() * 20) * DAY_MS + 10 * 3_600_000;
    const status = r.template.status ?? 'Active';
    const lastSeen = utc('2026-02-28') + 5 * 3_600_000;
    const externalId = resourceExternalId(r.account, r.template, r.name, r.region);
    const meta = { ...(r.template.size ? { size: r.template.size } : {}), zone: `${r.region}-${pick(rng, ['a', 'b', 'c'])}` };
    const tags = { env: r.account.env, team: pick(rng, ['platform', 'payments', 'data', 'web']), owner: r.account.prefix };
    return [
      str(r.id), str(d.id), str(d.cloudAccounts[r.account.key]), str(r.account.provider), str(r.name), str(r.template.type),
      str(r.template.service), str(r.region), str(r.account.provider === 'AWS' ? externalId : null), str(externalId), str(r.name),
      str(status), bool(status === 'Active'), ts(firstSeen), ts(lastSeen), ts(firstSeen - DAY_MS),
      json(meta), json(tags), ts(firstSeen), ts(lastSeen),
    ];
  });
  return insert('cloud_resourses', [
    'id', 'tenant', 'account', 'cloud_provider', 'name', 'type',
    'service_name', 'region', 'arn', 'external_resource_id', 'resourse_id',
    'status', 'is_active', 'first_seen', 'last_seen', 'resourse_created_on',
    'meta', 'tags', 'created_at', 'updated_at',
  ], rows);
}

const SPEND_START = '2026-01-01';

function spendSection(t: TenantSpec, resources: readonly Resource[]): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 3);
  const start = utc(SPEND_START);
  const rows: Cell[][] = [];
  for (let day = 0; day < DEMO.perTenant.spendDays; day++) {
    const date = start + day * DAY_MS;
    const weekday = new Date(date).getUTCDay();
    const weekFactor = weekday === 0 || weekday === 6 ? 0.82 : 1;
    const trend = 1 + day * 0.003; // slow growth over the two months
    for (const r of resources) {
      const amount = Math.max(0.01, cents(r.daily * weekFactor * trend * (0.85 + 0.3 * rng())));
      rows.push([
        str(demoId(t.uuidPrefix, KIND.spend, rows.length + 1)), str(d.id), str(d.cloudAccounts[r.account.key]),
        str(r.id), ts(date), num(amount, 2), str('USD'), bool(false),
      ]);
    }
  }
  return insert('spends', ['id', 'tenant', 'cloud_account', 'cloud_resource_id', 'date', 'amount', 'unit', 'exclude_aggregate'], rows);
}

interface RecommendationTemplate {
  account: AccountKey;
  resource: number;
  rule: string;
  category: string;
  action: 'Create' | 'Delete' | 'Modify';
  severity: 'Critical' | 'High' | 'Info' | 'Low' | 'Medium';
  title: string;
  description: string;
  /** Share of the resource's monthly cost that the change saves (0 for non-cost findings). */
  savingsShare: number;
  current?: Record<string, string | number>;
  suggested?: Record<string, string | number>;
}

const RECOMMENDATIONS: readonly RecommendationTemplate[] = [
  { account: 'aws', resource: 2, rule: 'ec2_idle_instance', category: 'Cost', action: 'Delete', severity: 'High',
    title: 'Terminate idle EC2 instance', description: 'CPU below 2% and no network traffic for 30 days.', savingsShare: 1 },
  { account: 'aws', resource: 1, rule: 'ec2_rightsizing', category: 'RightSizing', action: 'Modify', severity: 'Medium',
    title: 'Downsize over-provisioned EC2 instance', description: 'Peak CPU 31% and memory 40% over 30 days.', savingsShare: 0.5,
    current: { instance_type: 'c5.2xlarge' }, suggested: { instance_type: 'c5.xlarge' } },
  { account: 'aws', resource: 3, rule: 'rds_rightsizing', category: 'RightSizing', action: 'Modify', severity: 'High',
    title: 'Downsize RDS instance', description: 'Average CPU 12% with ample free memory.', savingsShare: 0.45,
    current: { instance_class: 'db.r6g.xlarge' }, suggested: { instance_class: 'db.r6g.large' } },
  { account: 'aws', resource: 4, rule: 's3_bucket_public_access', category: 'Security', action: 'Modify', severity: 'Critical',
    title: 'Block public access on S3 bucket', description: 'The bucket policy allows public reads.', savingsShare: 0 },
  { account: 'aws', resource: 8, rule: 'ebs_unattached_volume', category: 'Cost', action: 'Delete', severity: 'Low',
    title: 'Delete unattached EBS volume', description: 'The volume has been detached for 21 days.', savingsShare: 1 },
  { account: 'aws', resource: 5, rule: 'eks_version_upgrade', category: 'K8sVersionUpgrade', action: 'Modify', severity: 'Medium',
    title: 'Upgrade EKS control plane', description: 'Kubernetes 1.28 leaves standard support soon.', savingsShare: 0,
    current: { version: '1.28' }, suggested: { version: '1.30' } },
  { account: 'aws', resource: 9, rule: 'elasticache_reserved_nodes', category: 'Cost', action: 'Create', severity: 'Medium',
    title: 'Buy reserved ElastiCache nodes', description: 'The cluster has run steadily for 6 months.', savingsShare: 0.3 },
  { account: 'gcp', resource: 0, rule: 'gce_rightsizing', category: 'RightSizing', action: 'Modify', severity: 'High',
    title: 'Resize Compute Engine VM', description: 'Average CPU 9% over 30 days.', savingsShare: 0.5,
    current: { machine_type: 'n2-standard-8' }, suggested: { machine_type: 'n2-standard-4' } },
  { account: 'gcp', resource: 5, rule: 'bigquery_slot_commitment', category: 'Cost', action: 'Create', severity: 'Medium',
    title: 'Use a BigQuery slot commitment', description: 'On-demand query spend is steady and high.', savingsShare: 0.25 },
  { account: 'gcp', resource: 2, rule: 'cloudsql_public_ip', category: 'Security', action: 'Modify', severity: 'High',
    title: 'Remove public IP from Cloud SQL', description: 'The instance accepts connections from 0.0.0.0/0.', savingsShare: 0 },
  { account: 'gcp', resource: 4, rule: 'gke_spot_node_pool', category: 'K8sSpotRecommendation', action: 'Create', severity: 'Low',
    title: 'Move batch workloads to a spot node pool', description: 'Interruptible workloads run on on-demand nodes.', savingsShare: 0.6 },
  { account: 'gcp', resource: 7, rule: 'pd_unused_disk', category: 'Cost', action: 'Delete', severity: 'Low',
    title: 'Delete unused persistent disk', description: 'No VM has used the disk for 45 days.', savingsShare: 1 },
  { account: 'azure', resource: 1, rule: 'vm_stopped_not_deallocated', category: 'Cost', action: 'Modify', severity: 'Medium',
    title: 'Deallocate stopped VM', description: 'The VM is stopped but still allocated and billed.', savingsShare: 0.9 },
  { account: 'azure', resource: 2, rule: 'sql_backup_retention', category: 'Configuration', action: 'Modify', severity: 'Info',
    title: 'Set backup retention on Azure SQL', description: 'Point-in-time restore keeps only 1 day.', savingsShare: 0,
    current: { retention_days: 1 }, suggested: { retention_days: 7 } },
  { account: 'azure', resource: 8, rule: 'cosmos_autoscale', category: 'InfraUpgrade', action: 'Modify', severity: 'Low',
    title: 'Switch Cosmos DB to autoscale throughput', description: 'Provisioned RU/s is idle most of the day.', savingsShare: 0.35 },
];

const RECOMMENDATION_STATUSES = [
  'Open', 'Assigned', 'Open', 'Closed', 'Open', 'Assigned', 'Dismissed', 'Open',
  'Assigned', 'Closed', 'Open', 'Dismissed', 'Open', 'Assigned', 'Closed',
] as const;

function recommendationSection(t: TenantSpec, resources: readonly Resource[]): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 4);
  const offset = t.key === 'acme' ? 0 : 5;
  const rows = RECOMMENDATIONS.map((rec, i) => {
    const status = RECOMMENDATION_STATUSES[(i + offset) % RECOMMENDATION_STATUSES.length]!;
    const accountIndex = t.accounts.findIndex((a) => a.key === rec.account);
    const resource = resources[accountIndex * DEMO.perTenant.resourcesPerAccount + rec.resource]!;
    const monthly = resource.daily * 30;
    const savings = cents(monthly * rec.savingsShare * (0.9 + 0.2 * rng()));
    const created = utc('2026-01-03') + Math.floor(rng() * 50) * DAY_MS + Math.floor(rng() * 86_400) * 1000;
    const updated = status === 'Open' ? created : created + (1 + Math.floor(rng() * 6)) * DAY_MS;
    const body = {
      title: rec.title,
      description: rec.description,
      resource: resource.name,
      ...(rec.current ? { current: rec.current } : {}),
      ...(rec.suggested ? { suggested: rec.suggested } : {}),
      monthly_cost: cents(monthly),
    };
    return [
      str(demoId(t.uuidPrefix, KIND.recommendation, i + 1)), str(d.id), str(d.cloudAccounts[rec.account]), str(resource.id),
      str(resource.name), str(rec.rule), str(rec.category), str(rec.action), str(rec.severity), str(status),
      json(body), num(savings, 2), bool(status === 'Dismissed'),
      str(status === 'Dismissed' ? 'Accepted risk: resource is scheduled for decommissioning' : null),
      str(status === 'Assigned' ? `Assigned to ${d.users.admin.displayName}` : null),
      ts(created), ts(updated), str(status === 'Open' ? null : d.users.admin.id),
    ];
  });
  return insert('recommendation', [
    'id', 'tenant_id', 'cloud_account_id', 'resource_id',
    'account_object_id', 'rule_name', 'category', 'recommendation_action', 'severity', 'status',
    'recommendation', 'estimated_savings', 'is_dismissed',
    'dismissed_reason',
    'note',
    'created_at', 'updated_at', 'updated_by',
  ], rows);
}

interface WorkloadTemplate {
  name: string;
  namespace: string;
  type: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'CronJob';
  replicas: number;
  ready: number;
  status: 'Running' | 'Degraded' | 'Pending' | 'Succeeded';
  cpu: [number, number];
  memMi: [number, number];
}

const WORKLOADS: Record<'aws' | 'gcp', readonly WorkloadTemplate[]> = {
  aws: [
    { name: 'api-server', namespace: 'production', type: 'Deployment', replicas: 4, ready: 4, status: 'Running', cpu: [0.5, 1], memMi: [512, 1024] },
    { name: 'web-frontend', namespace: 'production', type: 'Deployment', replicas: 3, ready: 3, status: 'Running', cpu: [0.25, 0.5], memMi: [256, 512] },
    { name: 'payments-worker', namespace: 'production', type: 'Deployment', replicas: 2, ready: 1, status: 'Degraded', cpu: [0.5, 2], memMi: [1024, 2048] },
    { name: 'postgres', namespace: 'production', type: 'StatefulSet', replicas: 1, ready: 1, status: 'Running', cpu: [1, 2], memMi: [2048, 4096] },
    { name: 'fluent-bit', namespace: 'kube-system', type: 'DaemonSet', replicas: 3, ready: 3, status: 'Running', cpu: [0.1, 0.2], memMi: [128, 256] },
    { name: 'prometheus-server', namespace: 'monitoring', type: 'StatefulSet', replicas: 1, ready: 1, status: 'Running', cpu: [0.5, 1], memMi: [2048, 4096] },
  ],
  gcp: [
    { name: 'api-gateway', namespace: 'staging', type: 'Deployment', replicas: 2, ready: 2, status: 'Running', cpu: [0.25, 0.5], memMi: [256, 512] },
    { name: 'ml-inference', namespace: 'production', type: 'Deployment', replicas: 3, ready: 2, status: 'Degraded', cpu: [2, 4], memMi: [4096, 8192] },
    { name: 'feature-store', namespace: 'production', type: 'StatefulSet', replicas: 3, ready: 3, status: 'Running', cpu: [1, 2], memMi: [2048, 4096] },
    { name: 'nightly-etl', namespace: 'production', type: 'CronJob', replicas: 1, ready: 0, status: 'Succeeded', cpu: [1, 2], memMi: [1024, 2048] },
    { name: 'redis', namespace: 'staging', type: 'StatefulSet', replicas: 1, ready: 0, status: 'Pending', cpu: [0.25, 0.5], memMi: [512, 1024] },
    { name: 'grafana', namespace: 'monitoring', type: 'Deployment', replicas: 1, ready: 1, status: 'Running', cpu: [0.1, 0.25], memMi: [256, 512] },
  ],
};

const MI = 1024 * 1024;

function workloadSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 5);
  const rows: Cell[][] = [];
  for (const key of ['aws', 'gcp'] as const) {
    const account = t.accounts.find((a) => a.key === key)!;
    for (const w of WORKLOADS[key]) {
      const n = rows.length + 1;
      const created = utc(account.createdAt) + (10 + Math.floor(rng() * 120)) * DAY_MS + Math.floor(rng() * 86_400) * 1000;
      const lastSeen = utc('2026-02-28') + 23 * 3_600_000 + Math.floor(rng() * 3_600) * 1000;
      rows.push([
        str(demoId(t.uuidPrefix, KIND.workload, n)), str(d.id), str(d.cloudAccounts[key]),
        str(demoId(t.uuidPrefix, KIND.workloadResource, n)), str(`${account.cluster}/${w.namespace}/${w.type.toLowerCase()}/${w.name}`),
        str(w.name), str(w.namespace), str(w.type), str(w.type), num(w.replicas), str(w.status), num(w.ready), num(w.replicas),
        num(w.cpu[0]), num(w.cpu[1]), num(w.memMi[0] * MI), num(w.memMi[1] * MI),
        json({ app: w.name, 'app.kubernetes.io/part-of': w.namespace === 'production' ? 'shop' : w.namespace }),
        json({ cluster: account.cluster, images: [`registry.example.com/${w.name}:${1 + Math.floor(rng() * 4)}.${Math.floor(rng() * 20)}.0`] }),
        bool(true), ts(created), ts(lastSeen), ts(lastSeen),
      ]);
    }
  }
  return insert('k8s_workloads', [
    'id', 'tenant_id', 'cloud_account_id',
    'cloud_resource_id', 'external_id',
    'name', 'namespace', 'kind', 'workload_type', 'replicas', 'status', 'ready_pods', 'total_pods',
    'cpu_request', 'cpu_limit', 'memory_request', 'memory_limit',
    'labels',
    'meta',
    'is_active', 'creation_time', 'last_seen', 'updated_at',
  ], rows);
}

type EventSeverity = 'DEBUG' | 'HIGH' | 'INFO' | 'LOW' | 'MEDIUM';

interface EventTemplate {
  /** {s} is replaced by the subject's name. */
  title: string;
  severity: EventSeverity;
  source: string;
  findingType: string;
  category: string;
  /** k8s: a workload of the aws or gcp account; otherwise a resource of one of these accounts. */
  subject: 'workload' | 'resource';
  accounts: readonly AccountKey[];
  /** For resource subjects: which resource of the account (index in RESOURCES). */
  resource?: number;
}

const EVENTS: readonly EventTemplate[] = [
  { title: 'High CPU usage on {s}', severity: 'HIGH', source: 'AWS_CloudWatch_Alarm', findingType: 'metric_alert', category: 'Performance', subject: 'resource', accounts: ['aws'], resource: 0 },
  { title: 'Pod CrashLoopBackOff in {s}', severity: 'HIGH', source: 'kubernetes_api_server', findingType: 'issue', category: 'Availability', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'Container OOMKilled in {s}', severity: 'MEDIUM', source: 'kubernetes_api_server', findingType: 'issue', category: 'Resources', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'Replicas mismatch for {s}', severity: 'MEDIUM', source: 'prometheus', findingType: 'prometheus_alert', category: 'Availability', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'Cost anomaly: {s} spend above forecast', severity: 'MEDIUM', source: 'anomaly', findingType: 'cost_anomaly', category: 'Cost', subject: 'resource', accounts: ['aws', 'gcp', 'azure'], resource: 3 },
  { title: 'Budget 80% threshold reached for {s}', severity: 'LOW', source: 'scheduler', findingType: 'budget_alert', category: 'Cost', subject: 'resource', accounts: ['aws', 'gcp', 'azure'], resource: 0 },
  { title: 'Helm release upgrade failed for {s}', severity: 'HIGH', source: 'helm_release', findingType: 'helm_release', category: 'Deployment', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'High DTU consumption on {s}', severity: 'MEDIUM', source: 'Azure_Monitor_Alert', findingType: 'metric_alert', category: 'Performance', subject: 'resource', accounts: ['azure'], resource: 2 },
  { title: 'Error rate above 5% on {s}', severity: 'HIGH', source: 'slo', findingType: 'slo_breach', category: 'Reliability', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'Rollout completed for {s}', severity: 'INFO', source: 'kubernetes_api_server', findingType: 'rollout', category: 'Deployment', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'Debug trace captured for {s}', severity: 'DEBUG', source: 'manual', findingType: 'trace', category: 'Operations', subject: 'workload', accounts: ['aws', 'gcp'] },
  { title: 'Slow queries detected on {s}', severity: 'LOW', source: 'prometheus', findingType: 'prometheus_alert', category: 'Performance', subject: 'resource', accounts: ['aws'], resource: 3 },
];

function lowerSeverity(s: EventSeverity): EventSeverity {
  const order: readonly EventSeverity[] = ['DEBUG', 'INFO', 'LOW', 'MEDIUM', 'HIGH'];
  return order[Math.max(0, order.indexOf(s) - 1)]!;
}

function eventSection(t: TenantSpec, resources: readonly Resource[]): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 6);
  const start = utc('2026-01-01');
  const span = utc('2026-03-01') - start;
  const count = DEMO.perTenant.events;
  const slot = span / count;
  const rows: Cell[][] = [];
  for (let i = 0; i < count; i++) {
    const tpl = EVENTS[(i * 7 + (t.key === 'acme' ? 0 : 3)) % EVENTS.length]!;
    const accountKey = pick(rng, tpl.accounts);
    const accountIndex = t.accounts.findIndex((a) => a.key === accountKey);
    const account = t.accounts[accountIndex]!;
    // One event per slot of the two months, at a whole second, so created_at values are distinct and ordered by id.
    const created = start + Math.floor((i * slot + rng() * (slot - 60_000)) / 1000) * 1000;
    const recent = created >= utc('2026-02-20');
    const settled = rng() < 0.6 ? 'RESOLVED' : 'CLOSED';
    const status = recent ? (i % 4 === 3 ? 'RESOLVED' : 'FIRING') : settled;
    let subjectName: string;
    let subjectType: string;
    let namespace: string | null = null;
    let resourceId: string | null = null;
    if (tpl.subject === 'workload') {
      const w = pick(rng, WORKLOADS[accountKey === 'gcp' ? 'gcp' : 'aws']);
      subjectName = w.name;
      subjectType = w.type.toLowerCase();
      namespace = w.namespace;
    } else {
      const r = resources[accountIndex * DEMO.perTenant.resourcesPerAccount + (tpl.resource ?? 0)]!;
      subjectName = tpl.findingType === 'budget_alert' ? account.name : r.name;
      subjectType = tpl.findingType === 'budget_alert' ? 'cloud_account' : r.template.type;
      resourceId = tpl.findingType === 'budget_alert' ? null : r.id;
    }
    const title = tpl.title.replace('{s}', subjectName);
    const cluster = account.cluster ?? account.name;
    const aggregationKey = `${tpl.findingType}:${subjectName}`;
    const fingerprint = `${t.key}-${accountKey}-${aggregationKey}`.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
    const ends = status === 'FIRING' ? null : created + (15 + Math.floor(rng() * 240)) * 60_000;
    const labels = { cluster, ...(namespace ? { namespace } : {}), alertname: tpl.findingType, severity: tpl.severity.toLowerCase() };
    const evidences = [{ type: 'text', title: 'Summary', data: `${title} (${account.name})` }];
    rows.push([
      str(demoId(t.uuidPrefix, KIND.event, i + 1)), str(d.id), str(d.cloudAccounts[accountKey]), str(resourceId),
      str(title), str(`${title}. Detected by ${tpl.source}.`), str(tpl.severity), str(tpl.severity), str(lowerSeverity(tpl.severity)),
      str(tpl.source), str(status), str(tpl.category), str(aggregationKey), str(fingerprint),
      str(`${tpl.findingType}-${(i + 1).toString().padStart(4, '0')}`), str(tpl.findingType),
      str(cluster), str(subjectName), str(namespace), str(subjectType),
      json(labels), json(evidences), ts(created), ts(ends), ts(created), ts(ends ?? created),
    ]);
  }
  return insert('events', [
    'id', 'tenant', 'cloud_account_id', 'cloud_resource_id',
    'title', 'description', 'severity', 'priority', 'urgency',
    'source', 'status', 'category', 'aggregation_key', 'fingerprint',
    'finding_id', 'finding_type',
    'cluster', 'subject_name', 'subject_namespace', 'subject_type',
    'labels', 'evidences', 'starts_at', 'ends_at', 'created_at', 'updated_at',
  ], rows);
}

interface AutoPilotTemplate {
  account: AccountKey;
  name: string;
  description: string;
  category: string;
  status: 'Active' | 'DRAFT' | 'Disabled' | 'Dryrun';
  trigger: string;
  schedule: string | null;
  approvalType: string;
  approvalStatus: string;
  created: string;
}

const AUTO_PILOTS: readonly AutoPilotTemplate[] = [
  { account: 'aws', name: 'Stop idle development instances at night', description: 'Stops instances tagged env=dev outside working hours.',
    category: 'Cost', status: 'Active', trigger: 'schedule', schedule: '0 20 * * 1-5', approvalType: 'auto', approvalStatus: 'active', created: '2026-01-05' },
  { account: 'gcp', name: 'Rightsize over-provisioned workloads', description: 'Applies open RightSizing recommendations to Kubernetes workloads.',
    category: 'RightSizing', status: 'Dryrun', trigger: 'recommendation', schedule: null, approvalType: 'manual', approvalStatus: 'active', created: '2026-01-21' },
  { account: 'aws', name: 'Restart crash-looping pods', description: 'Restarts pods after a CrashLoopBackOff event, at most once an hour.',
    category: 'Remediation', status: 'DRAFT', trigger: 'event', schedule: null, approvalType: 'multi_level', approvalStatus: 'draft', created: '2026-02-10' },
];

function automationSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const admin = d.users.admin.id;
  const shift = t.key === 'acme' ? 0 : 2 * 3_600_000;
  const policies: Cell[][] = [];
  const pilots: Cell[][] = [];
  AUTO_PILOTS.forEach((p, i) => {
    const created = utc(p.created) + 10 * 3_600_000 + shift;
    const policyId = demoId(t.uuidPrefix, KIND.approvalPolicy, i + 1);
    const reviewers = p.approvalType === 'auto' ? [] : [admin];
    policies.push([
      str(policyId), str(d.id), str(d.cloudAccounts[p.account]), str(p.approvalType), str(p.approvalStatus),
      json({ reviewers, min_approvals: reviewers.length, expire_after_hours: 24 }), ts(created), str(admin), ts(created), str(admin),
    ]);
    const lastRun = p.status === 'DRAFT' ? null : utc('2026-02-27') + 20 * 3_600_000;
    pilots.push([
      str(demoId(t.uuidPrefix, KIND.autoPilot, i + 1)), str(d.id), str(d.cloudAccounts[p.account]), str(policyId),
      str(p.name), str(p.description), str(p.category), str(p.status), str(p.trigger), str('ui'),
      json({ trigger: p.trigger, ...(p.schedule ? { cron: p.schedule } : {}), category: p.category }),
      json({ max_actions_per_run: 5 }), json({ channels: ['email'], recipients: [d.users.admin.username] }),
      str(p.schedule), str(lastRun === null ? null : 'Completed'),
      ts(created), ts(lastRun), ts(lastRun), ts(lastRun === null ? null : lastRun + DAY_MS),
      ts(created), str(admin), ts(created), str(admin), ts(created),
    ]);
  });
  return [
    insert('auto_pilot_approval_policy', [
      'id', 'tenant_id', 'account_id', 'approval_type', 'status',
      'policy_attributes', 'created_at', 'created_by', 'updated_at', 'updated_by',
    ], policies),
    insert('auto_pilot', [
      'id', 'tenant_id', 'account_id', 'approval_policy_id',
      'name', 'description', 'category', 'status', 'trigger_type', 'source',
      'rule',
      'attributes', 'notification',
      'schedule_time', 'execution_status',
      'start_at', 'last_executed_time', 'last_schedule_time', 'next_schedule_time',
      'created_at', 'created_by', 'creation_date', 'update_by', 'update_date',
    ], pilots),
  ].join('\n');
}

function ticketSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const admin = d.users.admin;
  const tickets = [
    { n: 101, account: 'aws' as const, title: 'Payments worker degraded', severity: 'High', status: 'In Progress', source: 'event', created: '2026-02-12' },
    { n: 102, account: 'gcp' as const, title: 'Remove public IP from reporting database', severity: 'Medium', status: 'Open', source: 'recommendation', created: '2026-02-18' },
  ];
  const rows = tickets.map((k, i) => {
    const key = `${t.projectKey}-${k.n}`;
    const created = utc(k.created) + 14 * 3_600_000;
    return [
      str(demoId(t.uuidPrefix, KIND.ticket, i + 1)), str(d.id), str(d.cloudAccounts[k.account]), str(d.integrationId),
      str('jira'), str(k.source), str(key), str('Task'), str(`${k.source}:${k.n}`), str(t.projectKey),
      str(k.title), str(`${k.title}. Raised from the platform.`), str(k.severity), str(k.status),
      str(admin.username), str(admin.username), str(`${t.ticketHost}/browse/${key}`), bool(false),
      ts(created), str(admin.id), ts(created),
    ];
  });
  return insert('tickets', [
    'id', 'tenant', 'account_id', 'integration_id',
    'platform', 'source', 'ticket_id', 'ticket_type', 'reference_id', 'project_key',
    'title', 'description', 'severity', 'status',
    'assignee', 'reporter', 'url', 'is_new',
    'created_at', 'created_by', 'updated_at',
  ], rows);
}

const LOG_APPS: Record<string, readonly string[]> = {
  production: ['api', 'web', 'payments', 'worker'],
  staging: ['api', 'web'],
  'kube-system': ['coredns', 'ingress-nginx'],
  monitoring: ['prometheus', 'grafana'],
};

const LOG_MESSAGES: Record<'error' | 'warn' | 'info' | 'debug', readonly string[]> = {
  error: [
    'upstream connect error: connection refused to {peer}:8080',
    'database query timed out after {ms}ms',
    'failed to process message: deadline exceeded',
    'HTTP 500 on POST /api/v1/orders: internal error',
  ],
  warn: [
    'slow request: GET /api/v1/products took {ms}ms',
    'retrying call to {peer} (attempt {n} of 5)',
    'memory usage at {n}0% of limit',
    'certificate for {peer}.example.com expires in {n} days',
  ],
  info: [
    'GET /api/v1/orders 200 {ms}ms',
    'POST /api/v1/checkout 201 {ms}ms',
    'processed batch of {n}00 messages',
    'health check passed',
    'config reloaded',
  ],
  debug: [
    'cache hit for key product:{n}',
    'opening connection to {peer}',
    'span finished in {ms}ms',
  ],
};

function logSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 7);
  const dayStart = utc('2026-02-15');
  const lines: { ts: number; account: 'aws' | 'gcp'; level: keyof typeof LOG_MESSAGES; message: string; labels: Record<string, string> }[] = [];
  for (let i = 0; i < DEMO.perTenant.logs; i++) {
    const account = rng() < 0.6 ? 'aws' : 'gcp';
    const namespace = weighted(rng, [['production', 45], ['staging', 25], ['kube-system', 15], ['monitoring', 15]] as const);
    const app = pick(rng, LOG_APPS[namespace]!);
    const level = weighted(rng, [['error', 12], ['warn', 18], ['info', 55], ['debug', 15]] as const);
    const message = pick(rng, LOG_MESSAGES[level])
      .replace('{peer}', pick(rng, ['payments', 'inventory', 'postgres', 'redis']))
      .replace('{ms}', String(5 + Math.floor(rng() * 4000)))
      .replace('{n}', String(1 + Math.floor(rng() * 9)));
    const podSuffix = Math.floor(rng() * 0xfffff).toString(16).padStart(5, '0');
    lines.push({
      ts: dayStart + Math.floor(rng() * DAY_MS),
      account,
      level,
      message,
      labels: { namespace, app, level, pod: `${app}-${podSuffix}`, cluster: t.accounts.find((a) => a.key === account)!.cluster! },
    });
  }
  lines.sort((a, b) => a.ts - b.ts);
  const values = lines.map((l) =>
    `  (${[str(d.id), str(d.cloudAccounts[l.account]), str(new Date(l.ts).toISOString()), str(l.level), str(l.message), json(l.labels)].join(', ')})`);
  return [
    'INSERT INTO logs (tenant_id, cloud_account_id, ts, severity, message, labels)',
    'SELECT v.tenant_id::uuid, v.cloud_account_id::uuid, v.ts::timestamptz, v.severity, v.message, v.labels::jsonb',
    'FROM (VALUES',
    values.join(',\n'),
    ') AS v (tenant_id, cloud_account_id, ts, severity, message, labels)',
    'WHERE NOT EXISTS (',
    '  SELECT 1 FROM logs l',
    '  WHERE l.tenant_id = v.tenant_id::uuid AND l.ts = v.ts::timestamptz AND l.message = v.message',
    ');',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

/** The whole demo script: identical text on every call. */
export function demoDataSql(): string {
  const parts: string[] = ['-- Demo data: tenants Acme Corp and Globex Industries (generated by sql/demo/demo-data.ts).\n'];
  for (const t of TENANTS) {
    const resources = buildResources(t);
    parts.push(
      `-- ${DEMO.tenants[t.key].name}\n`,
      tenantSection(t),
      userSection(t),
      accountSection(t),
      resourceSection(t, resources),
      spendSection(t, resources),
      recommendationSection(t, resources),
      workloadSection(t),
      eventSection(t, resources),
      automationSection(t),
      ticketSection(t),
      logSection(t),
    );
  }
  return parts.join('\n');
}
