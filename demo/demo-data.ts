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
 * (Globex), or 00000000 for the shared catalogues that belong to no tenant, <kind> names the table
 * (see KIND) and <n> is a 12-digit hex counter.
 *
 * The rows of the catalogue families' tables (migrations 0009 onwards) are written after the
 * original per-tenant sections, so that the script for the earlier tables stays as it was.
 */

import { COLUMNS } from './columns';

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
    /** Nodes in each of the aws and gcp accounts. */
    k8sNodesPerAccount: 3,
    /** One pod per workload, so as many as k8sWorkloadsPerAccount in each of the aws and gcp accounts. */
    k8sPodsPerAccount: 6,
    anomalies: 4,
    insights: 3,
    autoPlaybooks: 2,
    agents: 2,
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

/** Table numbers of ids, shared with the scaled data (demo/scale.ts). */
export const KIND = {
  // Only the scaled data generates tenants, users and accounts; the fixed set's are named in DEMO.
  tenant: 0x0,
  user: 0x1,
  account: 0x2,
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
  // Tables of the catalogue families (sql/0009 onwards).
  billing: 0x10,
  billingUsageCost: 0x11,
  fundingSource: 0x12,
  businessunitFunding: 0x13,
  businessUnit: 0x14,
  anomalyConfig: 0x15,
  anomaly: 0x16,
  eventRule: 0x17,
  eventTriageRule: 0x18,
  eventHistory: 0x19,
  eventClassification: 0x1a,
  eventBulkOperation: 0x1b,
  eventDuplicate: 0x1c,
  eventCorrelation: 0x1d,
  eventIncomingWebhook: 0x1e,
  eventLogAnalysis: 0x1f,
  eventResolution: 0x20,
  insight: 0x21,
  recommendationResolution: 0x22,
  cloudAccountAttr: 0x23,
  onboardingError: 0x24,
  cloudAccountScore: 0x25,
  apiPermissionError: 0x26,
  resourceAttribute: 0x27,
  resourceMetric: 0x28,
  k8sNode: 0x29,
  k8sPod: 0x2a,
  autoPilotTask: 0x2b,
  autoOptimizeResource: 0x2c,
  reviewer: 0x2d,
  reviewee: 0x2e,
  approval: 0x2f,
  autoPlaybook: 0x30,
  playbookExecution: 0x31,
  playbookTask: 0x32,
  agent: 0x33,
  agentTask: 0x34,
  agentAuditLog: 0x35,
  agentPlaybook: 0x36,
  kgNode: 0x37,
  kgEdge: 0x38,
  kgMetadata: 0x39,
  // Shared catalogues (no tenant; ids start with GLOBAL_PREFIX).
  resourceDetail: 0x40,
  autopilotAttribute: 0x41,
  playbookAction: 0x42,
  knowledgeBase: 0x43,
} as const;

/** Id prefix of the rows of the shared catalogues, which belong to no tenant. */
const GLOBAL_PREFIX = '00000000';

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
      if (r.length !== columns.length)
        throw new Error(`demo data: ${table} row has ${r.length} values for ${columns.length} columns`);
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
        key: 'aws',
        provider: 'AWS',
        name: 'acme-aws-production',
        number: '401234567890',
        type: 'Production',
        env: 'prod',
        status: 'active',
        syncStatus: 'Completed',
        syncMessage: null,
        budget: 25000,
        region: 'us-east-1',
        altRegion: 'us-west-2',
        prefix: 'prod',
        cluster: 'acme-prod-eks',
        createdAt: '2025-03-12',
      },
      {
        key: 'gcp',
        provider: 'GCP',
        name: 'acme-gcp-analytics',
        number: 'acme-analytics-4821',
        type: 'Production',
        env: 'prod',
        status: 'active',
        syncStatus: 'Running',
        syncMessage: null,
        budget: 12000,
        region: 'us-central1',
        altRegion: 'us-east1',
        prefix: 'analytics',
        cluster: 'acme-analytics-gke',
        createdAt: '2025-05-02',
      },
      {
        key: 'azure',
        provider: 'Azure',
        name: 'acme-azure-dev',
        number: '7d1e2f3a-0b4c-4d5e-8f60-718293a4b5c6',
        type: 'Development',
        env: 'non_prod',
        status: 'inactive',
        syncStatus: 'Error',
        syncMessage: 'Client secret expired; update the service principal credentials',
        budget: 3000,
        region: 'eastus',
        altRegion: 'westeurope',
        prefix: 'dev',
        cluster: null,
        createdAt: '2025-08-19',
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
        key: 'aws',
        provider: 'AWS',
        name: 'globex-aws-main',
        number: '509876543210',
        type: 'Production',
        env: 'prod',
        status: 'active',
        syncStatus: 'Completed',
        syncMessage: null,
        budget: 40000,
        region: 'eu-west-1',
        altRegion: 'eu-central-1',
        prefix: 'main',
        cluster: 'globex-main-eks',
        createdAt: '2025-04-25',
      },
      {
        key: 'gcp',
        provider: 'GCP',
        name: 'globex-gcp-ml',
        number: 'globex-ml-1187',
        type: 'Development',
        env: 'non_prod',
        status: 'active',
        syncStatus: 'Queued',
        syncMessage: null,
        budget: 8000,
        region: 'europe-west4',
        altRegion: 'europe-west1',
        prefix: 'ml',
        cluster: 'globex-ml-gke',
        createdAt: '2025-06-14',
      },
      {
        key: 'azure',
        provider: 'Azure',
        name: 'globex-azure-legacy',
        number: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
        type: 'Production',
        env: 'prod',
        status: 'disabled',
        syncStatus: 'Completed',
        syncMessage: null,
        budget: 5000,
        region: 'northeurope',
        altRegion: 'westeurope',
        prefix: 'legacy',
        cluster: null,
        createdAt: '2025-07-01',
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
    {
      name: 'batch-host',
      type: 'ec2_instance',
      service: 'Amazon EC2',
      daily: 2.2,
      status: 'Inactive',
      size: 't3.large',
    },
    { name: 'orders-db', type: 'rds_instance', service: 'Amazon RDS', daily: 45.2, size: 'db.r6g.xlarge' },
    { name: 'assets-bucket', type: 's3_bucket', service: 'Amazon S3', daily: 6.3 },
    { name: 'eks', type: 'eks_cluster', service: 'Amazon EKS', daily: 7.2 },
    { name: 'image-resizer', type: 'lambda_function', service: 'AWS Lambda', daily: 1.15, alt: true },
    { name: 'public-alb', type: 'load_balancer', service: 'Elastic Load Balancing', daily: 5.4 },
    { name: 'data-volume-01', type: 'ebs_volume', service: 'Amazon EBS', daily: 3.2, alt: true, size: 'gp3 500 GiB' },
    {
      name: 'session-cache',
      type: 'elasticache_cluster',
      service: 'Amazon ElastiCache',
      daily: 9.8,
      size: 'cache.r6g.large',
    },
  ],
  GCP: [
    { name: 'vm-1', type: 'compute_instance', service: 'Compute Engine', daily: 27.1, size: 'n2-standard-8' },
    { name: 'etl-runner', type: 'compute_instance', service: 'Compute Engine', daily: 9.6, size: 'e2-standard-4' },
    { name: 'reporting-db', type: 'sql_instance', service: 'Cloud SQL', daily: 21.4, size: 'db-custom-4-16384' },
    { name: 'raw-events', type: 'storage_bucket', service: 'Cloud Storage', daily: 4.8 },
    { name: 'gke', type: 'gke_cluster', service: 'Kubernetes Engine', daily: 7.3 },
    { name: 'warehouse', type: 'bigquery_dataset', service: 'BigQuery', daily: 38.5 },
    { name: 'ingest-api', type: 'cloud_run_service', service: 'Cloud Run', daily: 3.1, alt: true },
    {
      name: 'disk-1',
      type: 'persistent_disk',
      service: 'Persistent Disk',
      daily: 2.7,
      status: 'Inactive',
      size: 'pd-ssd 1 TiB',
    },
    { name: 'events-topic', type: 'pubsub_topic', service: 'Pub/Sub', daily: 1.9 },
    { name: 'feature-cache', type: 'redis_instance', service: 'Memorystore', daily: 6.2, alt: true },
  ],
  Azure: [
    { name: 'vm-01', type: 'virtual_machine', service: 'Virtual Machines', daily: 6.9, size: 'Standard_D4s_v5' },
    {
      name: 'vm-02',
      type: 'virtual_machine',
      service: 'Virtual Machines',
      daily: 6.9,
      status: 'Inactive',
      size: 'Standard_D4s_v5',
    },
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
  return insert('tenant', COLUMNS.tenant, [
    [str(d.id), str(d.name), str(t.type), ts(created), str(admin), ts(created), str(admin)],
  ]);
}

function userSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const created = utc(t.createdAt) + 3_600_000;
  const users = [d.users.admin, d.users.readonly];
  const admin = d.users.admin.id;
  const parts: string[] = [];
  parts.push(
    insert(
      'users',
      COLUMNS.users,
      users.map((u, i) => [
        str(u.id),
        str(u.username),
        str(u.displayName),
        str('active'),
        ts(created + i * 60_000),
        str(admin),
        ts(created + i * 60_000),
        str(admin),
      ]),
    ),
  );
  parts.push(
    insert(
      'user_roles',
      COLUMNS.user_roles,
      users.map((u, i) => [
        str(demoId(t.uuidPrefix, KIND.userRole, i + 1)),
        str(u.id),
        str(u.role),
        str('tenant'),
        str(d.id),
        str(d.id),
        ts(created + i * 60_000),
        str(admin),
        ts(created + i * 60_000),
      ]),
    ),
  );
  parts.push(
    insert(
      'tenant_users',
      COLUMNS.tenant_users,
      users.map((u, i) => [
        str(demoId(t.uuidPrefix, KIND.tenantUser, i + 1)),
        str(d.id),
        str(u.id),
        bool(true),
        bool(i === 0),
        ts(created + i * 60_000),
        str(admin),
        ts(created + i * 60_000),
        str(admin),
      ]),
    ),
  );
  return parts.join('\n');
}

function accountSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const admin = d.users.admin.id;
  const rows = t.accounts.map((a) => {
    const created = utc(a.createdAt) + 9 * 3_600_000;
    const synced = a.syncStatus === 'Queued' ? null : utc('2026-02-28') + 6 * 3_600_000;
    const data = {
      regions: [a.region, a.altRegion],
      currency: 'USD',
      ...(a.cluster ? { kubernetes_cluster: a.cluster } : {}),
    };
    return [
      str(d.cloudAccounts[a.key]),
      str(d.id),
      str(a.name),
      str(a.number),
      str(a.type),
      str(a.env),
      str(
        `${a.provider === 'AWS' ? 'Main workloads' : a.provider === 'GCP' ? 'Data and analytics' : 'Development and legacy services'}`,
      ),
      str(a.provider),
      str(a.status),
      str(a.syncStatus),
      str(a.syncMessage),
      ts(synced),
      num(a.budget, 2),
      str(a.region),
      ts(utc(a.createdAt)),
      str(a.provider === 'AWS' ? 'cur' : a.provider === 'GCP' ? 'bigquery_export' : 'cost_management_export'),
      json(data),
      num(0),
      ts(created),
      str(admin),
      ts(created),
      str(admin),
    ];
  });
  return insert('cloud_accounts', COLUMNS.cloud_accounts, rows);
}

function resourceSection(t: TenantSpec, resources: readonly Resource[]): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 2);
  const rows = resources.map((r) => {
    const firstSeen = utc(r.account.createdAt) + Math.floor(rng() * 20) * DAY_MS + 10 * 3_600_000;
    const status = r.template.status ?? 'Active';
    const lastSeen = utc('2026-02-28') + 5 * 3_600_000;
    const externalId = resourceExternalId(r.account, r.template, r.name, r.region);
    const meta = {
      ...(r.template.size ? { size: r.template.size } : {}),
      zone: `${r.region}-${pick(rng, ['a', 'b', 'c'])}`,
    };
    const tags = {
      env: r.account.env,
      team: pick(rng, ['platform', 'payments', 'data', 'web']),
      owner: r.account.prefix,
    };
    return [
      str(r.id),
      str(d.id),
      str(d.cloudAccounts[r.account.key]),
      str(r.account.provider),
      str(r.name),
      str(r.template.type),
      str(r.template.service),
      str(r.region),
      str(r.account.provider === 'AWS' ? externalId : null),
      str(externalId),
      str(r.name),
      str(status),
      bool(status === 'Active'),
      ts(firstSeen),
      ts(lastSeen),
      ts(firstSeen - DAY_MS),
      json(meta),
      json(tags),
      ts(firstSeen),
      ts(lastSeen),
    ];
  });
  return insert('cloud_resourses', COLUMNS.cloud_resourses, rows);
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
        str(demoId(t.uuidPrefix, KIND.spend, rows.length + 1)),
        str(d.id),
        str(d.cloudAccounts[r.account.key]),
        str(r.id),
        ts(date),
        num(amount, 2),
        str('USD'),
        bool(false),
      ]);
    }
  }
  return insert('spends', COLUMNS.spends, rows);
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
  {
    account: 'aws',
    resource: 2,
    rule: 'ec2_idle_instance',
    category: 'Cost',
    action: 'Delete',
    severity: 'High',
    title: 'Terminate idle EC2 instance',
    description: 'CPU below 2% and no network traffic for 30 days.',
    savingsShare: 1,
  },
  {
    account: 'aws',
    resource: 1,
    rule: 'ec2_rightsizing',
    category: 'RightSizing',
    action: 'Modify',
    severity: 'Medium',
    title: 'Downsize over-provisioned EC2 instance',
    description: 'Peak CPU 31% and memory 40% over 30 days.',
    savingsShare: 0.5,
    current: { instance_type: 'c5.2xlarge' },
    suggested: { instance_type: 'c5.xlarge' },
  },
  {
    account: 'aws',
    resource: 3,
    rule: 'rds_rightsizing',
    category: 'RightSizing',
    action: 'Modify',
    severity: 'High',
    title: 'Downsize RDS instance',
    description: 'Average CPU 12% with ample free memory.',
    savingsShare: 0.45,
    current: { instance_class: 'db.r6g.xlarge' },
    suggested: { instance_class: 'db.r6g.large' },
  },
  {
    account: 'aws',
    resource: 4,
    rule: 's3_bucket_public_access',
    category: 'Security',
    action: 'Modify',
    severity: 'Critical',
    title: 'Block public access on S3 bucket',
    description: 'The bucket policy allows public reads.',
    savingsShare: 0,
  },
  {
    account: 'aws',
    resource: 8,
    rule: 'ebs_unattached_volume',
    category: 'Cost',
    action: 'Delete',
    severity: 'Low',
    title: 'Delete unattached EBS volume',
    description: 'The volume has been detached for 21 days.',
    savingsShare: 1,
  },
  {
    account: 'aws',
    resource: 5,
    rule: 'eks_version_upgrade',
    category: 'K8sVersionUpgrade',
    action: 'Modify',
    severity: 'Medium',
    title: 'Upgrade EKS control plane',
    description: 'Kubernetes 1.28 leaves standard support soon.',
    savingsShare: 0,
    current: { version: '1.28' },
    suggested: { version: '1.30' },
  },
  {
    account: 'aws',
    resource: 9,
    rule: 'elasticache_reserved_nodes',
    category: 'Cost',
    action: 'Create',
    severity: 'Medium',
    title: 'Buy reserved ElastiCache nodes',
    description: 'The cluster has run steadily for 6 months.',
    savingsShare: 0.3,
  },
  {
    account: 'gcp',
    resource: 0,
    rule: 'gce_rightsizing',
    category: 'RightSizing',
    action: 'Modify',
    severity: 'High',
    title: 'Resize Compute Engine VM',
    description: 'Average CPU 9% over 30 days.',
    savingsShare: 0.5,
    current: { machine_type: 'n2-standard-8' },
    suggested: { machine_type: 'n2-standard-4' },
  },
  {
    account: 'gcp',
    resource: 5,
    rule: 'bigquery_slot_commitment',
    category: 'Cost',
    action: 'Create',
    severity: 'Medium',
    title: 'Use a BigQuery slot commitment',
    description: 'On-demand query spend is steady and high.',
    savingsShare: 0.25,
  },
  {
    account: 'gcp',
    resource: 2,
    rule: 'cloudsql_public_ip',
    category: 'Security',
    action: 'Modify',
    severity: 'High',
    title: 'Remove public IP from Cloud SQL',
    description: 'The instance accepts connections from 0.0.0.0/0.',
    savingsShare: 0,
  },
  {
    account: 'gcp',
    resource: 4,
    rule: 'gke_spot_node_pool',
    category: 'K8sSpotRecommendation',
    action: 'Create',
    severity: 'Low',
    title: 'Move batch workloads to a spot node pool',
    description: 'Interruptible workloads run on on-demand nodes.',
    savingsShare: 0.6,
  },
  {
    account: 'gcp',
    resource: 7,
    rule: 'pd_unused_disk',
    category: 'Cost',
    action: 'Delete',
    severity: 'Low',
    title: 'Delete unused persistent disk',
    description: 'No VM has used the disk for 45 days.',
    savingsShare: 1,
  },
  {
    account: 'azure',
    resource: 1,
    rule: 'vm_stopped_not_deallocated',
    category: 'Cost',
    action: 'Modify',
    severity: 'Medium',
    title: 'Deallocate stopped VM',
    description: 'The VM is stopped but still allocated and billed.',
    savingsShare: 0.9,
  },
  {
    account: 'azure',
    resource: 2,
    rule: 'sql_backup_retention',
    category: 'Configuration',
    action: 'Modify',
    severity: 'Info',
    title: 'Set backup retention on Azure SQL',
    description: 'Point-in-time restore keeps only 1 day.',
    savingsShare: 0,
    current: { retention_days: 1 },
    suggested: { retention_days: 7 },
  },
  {
    account: 'azure',
    resource: 8,
    rule: 'cosmos_autoscale',
    category: 'InfraUpgrade',
    action: 'Modify',
    severity: 'Low',
    title: 'Switch Cosmos DB to autoscale throughput',
    description: 'Provisioned RU/s is idle most of the day.',
    savingsShare: 0.35,
  },
];

const RECOMMENDATION_STATUSES = [
  'Open',
  'Assigned',
  'Open',
  'Closed',
  'Open',
  'Assigned',
  'Dismissed',
  'Open',
  'Assigned',
  'Closed',
  'Open',
  'Dismissed',
  'Open',
  'Assigned',
  'Closed',
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
      str(demoId(t.uuidPrefix, KIND.recommendation, i + 1)),
      str(d.id),
      str(d.cloudAccounts[rec.account]),
      str(resource.id),
      str(resource.name),
      str(rec.rule),
      str(rec.category),
      str(rec.action),
      str(rec.severity),
      str(status),
      json(body),
      num(savings, 2),
      bool(status === 'Dismissed'),
      str(status === 'Dismissed' ? 'Accepted risk: resource is scheduled for decommissioning' : null),
      str(status === 'Assigned' ? `Assigned to ${d.users.admin.displayName}` : null),
      ts(created),
      ts(updated),
      str(status === 'Open' ? null : d.users.admin.id),
    ];
  });
  return insert('recommendation', COLUMNS.recommendation, rows);
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
    {
      name: 'api-server',
      namespace: 'production',
      type: 'Deployment',
      replicas: 4,
      ready: 4,
      status: 'Running',
      cpu: [0.5, 1],
      memMi: [512, 1024],
    },
    {
      name: 'web-frontend',
      namespace: 'production',
      type: 'Deployment',
      replicas: 3,
      ready: 3,
      status: 'Running',
      cpu: [0.25, 0.5],
      memMi: [256, 512],
    },
    {
      name: 'payments-worker',
      namespace: 'production',
      type: 'Deployment',
      replicas: 2,
      ready: 1,
      status: 'Degraded',
      cpu: [0.5, 2],
      memMi: [1024, 2048],
    },
    {
      name: 'postgres',
      namespace: 'production',
      type: 'StatefulSet',
      replicas: 1,
      ready: 1,
      status: 'Running',
      cpu: [1, 2],
      memMi: [2048, 4096],
    },
    {
      name: 'fluent-bit',
      namespace: 'kube-system',
      type: 'DaemonSet',
      replicas: 3,
      ready: 3,
      status: 'Running',
      cpu: [0.1, 0.2],
      memMi: [128, 256],
    },
    {
      name: 'prometheus-server',
      namespace: 'monitoring',
      type: 'StatefulSet',
      replicas: 1,
      ready: 1,
      status: 'Running',
      cpu: [0.5, 1],
      memMi: [2048, 4096],
    },
  ],
  gcp: [
    {
      name: 'api-gateway',
      namespace: 'staging',
      type: 'Deployment',
      replicas: 2,
      ready: 2,
      status: 'Running',
      cpu: [0.25, 0.5],
      memMi: [256, 512],
    },
    {
      name: 'ml-inference',
      namespace: 'production',
      type: 'Deployment',
      replicas: 3,
      ready: 2,
      status: 'Degraded',
      cpu: [2, 4],
      memMi: [4096, 8192],
    },
    {
      name: 'feature-store',
      namespace: 'production',
      type: 'StatefulSet',
      replicas: 3,
      ready: 3,
      status: 'Running',
      cpu: [1, 2],
      memMi: [2048, 4096],
    },
    {
      name: 'nightly-etl',
      namespace: 'production',
      type: 'CronJob',
      replicas: 1,
      ready: 0,
      status: 'Succeeded',
      cpu: [1, 2],
      memMi: [1024, 2048],
    },
    {
      name: 'redis',
      namespace: 'staging',
      type: 'StatefulSet',
      replicas: 1,
      ready: 0,
      status: 'Pending',
      cpu: [0.25, 0.5],
      memMi: [512, 1024],
    },
    {
      name: 'grafana',
      namespace: 'monitoring',
      type: 'Deployment',
      replicas: 1,
      ready: 1,
      status: 'Running',
      cpu: [0.1, 0.25],
      memMi: [256, 512],
    },
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
      const created =
        utc(account.createdAt) + (10 + Math.floor(rng() * 120)) * DAY_MS + Math.floor(rng() * 86_400) * 1000;
      const lastSeen = utc('2026-02-28') + 23 * 3_600_000 + Math.floor(rng() * 3_600) * 1000;
      rows.push([
        str(demoId(t.uuidPrefix, KIND.workload, n)),
        str(d.id),
        str(d.cloudAccounts[key]),
        str(demoId(t.uuidPrefix, KIND.workloadResource, n)),
        str(`${account.cluster}/${w.namespace}/${w.type.toLowerCase()}/${w.name}`),
        str(w.name),
        str(w.namespace),
        str(w.type),
        str(w.type),
        num(w.replicas),
        str(w.status),
        num(w.ready),
        num(w.replicas),
        num(w.cpu[0]),
        num(w.cpu[1]),
        num(w.memMi[0] * MI),
        num(w.memMi[1] * MI),
        json({ app: w.name, 'app.kubernetes.io/part-of': w.namespace === 'production' ? 'shop' : w.namespace }),
        json({
          cluster: account.cluster,
          images: [`registry.example.com/${w.name}:${1 + Math.floor(rng() * 4)}.${Math.floor(rng() * 20)}.0`],
        }),
        bool(true),
        ts(created),
        ts(lastSeen),
        ts(lastSeen),
      ]);
    }
  }
  return insert('k8s_workloads', COLUMNS.k8s_workloads, rows);
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
  {
    title: 'High CPU usage on {s}',
    severity: 'HIGH',
    source: 'AWS_CloudWatch_Alarm',
    findingType: 'metric_alert',
    category: 'Performance',
    subject: 'resource',
    accounts: ['aws'],
    resource: 0,
  },
  {
    title: 'Pod CrashLoopBackOff in {s}',
    severity: 'HIGH',
    source: 'kubernetes_api_server',
    findingType: 'issue',
    category: 'Availability',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'Container OOMKilled in {s}',
    severity: 'MEDIUM',
    source: 'kubernetes_api_server',
    findingType: 'issue',
    category: 'Resources',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'Replicas mismatch for {s}',
    severity: 'MEDIUM',
    source: 'prometheus',
    findingType: 'prometheus_alert',
    category: 'Availability',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'Cost anomaly: {s} spend above forecast',
    severity: 'MEDIUM',
    source: 'anomaly',
    findingType: 'cost_anomaly',
    category: 'Cost',
    subject: 'resource',
    accounts: ['aws', 'gcp', 'azure'],
    resource: 3,
  },
  {
    title: 'Budget 80% threshold reached for {s}',
    severity: 'LOW',
    source: 'scheduler',
    findingType: 'budget_alert',
    category: 'Cost',
    subject: 'resource',
    accounts: ['aws', 'gcp', 'azure'],
    resource: 0,
  },
  {
    title: 'Helm release upgrade failed for {s}',
    severity: 'HIGH',
    source: 'helm_release',
    findingType: 'helm_release',
    category: 'Deployment',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'High DTU consumption on {s}',
    severity: 'MEDIUM',
    source: 'Azure_Monitor_Alert',
    findingType: 'metric_alert',
    category: 'Performance',
    subject: 'resource',
    accounts: ['azure'],
    resource: 2,
  },
  {
    title: 'Error rate above 5% on {s}',
    severity: 'HIGH',
    source: 'slo',
    findingType: 'slo_breach',
    category: 'Reliability',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'Rollout completed for {s}',
    severity: 'INFO',
    source: 'kubernetes_api_server',
    findingType: 'rollout',
    category: 'Deployment',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'Debug trace captured for {s}',
    severity: 'DEBUG',
    source: 'manual',
    findingType: 'trace',
    category: 'Operations',
    subject: 'workload',
    accounts: ['aws', 'gcp'],
  },
  {
    title: 'Slow queries detected on {s}',
    severity: 'LOW',
    source: 'prometheus',
    findingType: 'prometheus_alert',
    category: 'Performance',
    subject: 'resource',
    accounts: ['aws'],
    resource: 3,
  },
];

function lowerSeverity(s: EventSeverity): EventSeverity {
  const order: readonly EventSeverity[] = ['DEBUG', 'INFO', 'LOW', 'MEDIUM', 'HIGH'];
  return order[Math.max(0, order.indexOf(s) - 1)]!;
}

/** What later sections need to know about each demo event. */
interface DemoEvent {
  id: string;
  account: AccountKey;
  title: string;
  severity: EventSeverity;
  source: string;
  findingType: string;
  status: string;
  aggregationKey: string;
  fingerprint: string;
  subjectName: string;
  namespace: string | null;
  resourceId: string | null;
  created: number;
}

/** What an event is about: a workload of its account's cluster, or a resource (the account itself for budget alerts). */
interface EventSubject {
  subjectName: string;
  subjectType: string;
  namespace: string | null;
  resourceId: string | null;
}

function eventSubject(
  rng: () => number,
  tpl: EventTemplate,
  account: AccountSpec,
  accountIndex: number,
  resources: readonly Resource[],
): EventSubject {
  if (tpl.subject === 'workload') {
    const w = pick(rng, WORKLOADS[account.key === 'gcp' ? 'gcp' : 'aws']);
    return { subjectName: w.name, subjectType: w.type.toLowerCase(), namespace: w.namespace, resourceId: null };
  }
  const r = resources[accountIndex * DEMO.perTenant.resourcesPerAccount + (tpl.resource ?? 0)]!;
  const budget = tpl.findingType === 'budget_alert';
  return {
    subjectName: budget ? account.name : r.name,
    subjectType: budget ? 'cloud_account' : r.template.type,
    namespace: null,
    resourceId: budget ? null : r.id,
  };
}

/** The events row of `e`, the `n`th event of the tenant, made from `tpl`. */
function eventRow(
  t: TenantSpec,
  tpl: EventTemplate,
  e: DemoEvent,
  n: number,
  extra: { account: AccountSpec; subjectType: string; ends: number | null },
): Cell[] {
  const d = DEMO.tenants[t.key];
  const cluster = extra.account.cluster ?? extra.account.name;
  const labels = {
    cluster,
    ...(e.namespace ? { namespace: e.namespace } : {}),
    alertname: tpl.findingType,
    severity: tpl.severity.toLowerCase(),
  };
  const evidences = [{ type: 'text', title: 'Summary', data: `${e.title} (${extra.account.name})` }];
  return [
    str(e.id),
    str(d.id),
    str(d.cloudAccounts[e.account]),
    str(e.resourceId),
    str(e.title),
    str(`${e.title}. Detected by ${tpl.source}.`),
    str(tpl.severity),
    str(tpl.severity),
    str(lowerSeverity(tpl.severity)),
    str(tpl.source),
    str(e.status),
    str(tpl.category),
    str(e.aggregationKey),
    str(e.fingerprint),
    str(`${tpl.findingType}-${n.toString().padStart(4, '0')}`),
    str(tpl.findingType),
    str(cluster),
    str(e.subjectName),
    str(e.namespace),
    str(extra.subjectType),
    json(labels),
    json(evidences),
    ts(e.created),
    ts(extra.ends),
    ts(e.created),
    ts(extra.ends ?? e.created),
  ];
}

function buildEvents(t: TenantSpec, resources: readonly Resource[]): { rows: Cell[][]; events: DemoEvent[] } {
  const rng = rngFor(t.seed, 6);
  const start = utc('2026-01-01');
  const span = utc('2026-03-01') - start;
  const count = DEMO.perTenant.events;
  const slot = span / count;
  const rows: Cell[][] = [];
  const events: DemoEvent[] = [];
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
    const { subjectName, subjectType, namespace, resourceId } = eventSubject(
      rng,
      tpl,
      account,
      accountIndex,
      resources,
    );
    const title = tpl.title.replace('{s}', subjectName);
    const aggregationKey = `${tpl.findingType}:${subjectName}`;
    const fingerprint = `${t.key}-${accountKey}-${aggregationKey}`.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
    const ends = status === 'FIRING' ? null : created + (15 + Math.floor(rng() * 240)) * 60_000;
    const event: DemoEvent = {
      id: demoId(t.uuidPrefix, KIND.event, i + 1),
      account: accountKey,
      title,
      severity: tpl.severity,
      source: tpl.source,
      findingType: tpl.findingType,
      status,
      aggregationKey,
      fingerprint,
      subjectName,
      namespace,
      resourceId,
      created,
    };
    events.push(event);
    rows.push(eventRow(t, tpl, event, i + 1, { account, subjectType, ends }));
  }
  return { rows, events };
}

function eventSection(t: TenantSpec, resources: readonly Resource[]): string {
  const { rows } = buildEvents(t, resources);
  return insert('events', COLUMNS.events, rows);
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
  {
    account: 'aws',
    name: 'Stop idle development instances at night',
    description: 'Stops instances tagged env=dev outside working hours.',
    category: 'Cost',
    status: 'Active',
    trigger: 'schedule',
    schedule: '0 20 * * 1-5',
    approvalType: 'auto',
    approvalStatus: 'active',
    created: '2026-01-05',
  },
  {
    account: 'gcp',
    name: 'Rightsize over-provisioned workloads',
    description: 'Applies open RightSizing recommendations to Kubernetes workloads.',
    category: 'RightSizing',
    status: 'Dryrun',
    trigger: 'recommendation',
    schedule: null,
    approvalType: 'manual',
    approvalStatus: 'active',
    created: '2026-01-21',
  },
  {
    account: 'aws',
    name: 'Restart crash-looping pods',
    description: 'Restarts pods after a CrashLoopBackOff event, at most once an hour.',
    category: 'Remediation',
    status: 'DRAFT',
    trigger: 'event',
    schedule: null,
    approvalType: 'multi_level',
    approvalStatus: 'draft',
    created: '2026-02-10',
  },
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
      str(policyId),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(p.approvalType),
      str(p.approvalStatus),
      json({ reviewers, min_approvals: reviewers.length, expire_after_hours: 24 }),
      ts(created),
      str(admin),
      ts(created),
      str(admin),
    ]);
    const lastRun = p.status === 'DRAFT' ? null : utc('2026-02-27') + 20 * 3_600_000;
    pilots.push([
      str(demoId(t.uuidPrefix, KIND.autoPilot, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(policyId),
      str(p.name),
      str(p.description),
      str(p.category),
      str(p.status),
      str(p.trigger),
      str('ui'),
      json({ trigger: p.trigger, ...(p.schedule ? { cron: p.schedule } : {}), category: p.category }),
      json({ max_actions_per_run: 5 }),
      json({ channels: ['email'], recipients: [d.users.admin.username] }),
      str(p.schedule),
      str(lastRun === null ? null : 'Completed'),
      ts(created),
      ts(lastRun),
      ts(lastRun),
      ts(lastRun === null ? null : lastRun + DAY_MS),
      ts(created),
      str(admin),
      ts(created),
      str(admin),
      ts(created),
    ]);
  });
  return [
    insert('auto_pilot_approval_policy', COLUMNS.auto_pilot_approval_policy, policies),
    insert('auto_pilot', COLUMNS.auto_pilot, pilots),
  ].join('\n');
}

function ticketSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const admin = d.users.admin;
  const tickets = [
    {
      n: 101,
      account: 'aws' as const,
      title: 'Payments worker degraded',
      severity: 'High',
      status: 'In Progress',
      source: 'event',
      created: '2026-02-12',
    },
    {
      n: 102,
      account: 'gcp' as const,
      title: 'Remove public IP from reporting database',
      severity: 'Medium',
      status: 'Open',
      source: 'recommendation',
      created: '2026-02-18',
    },
  ];
  const rows = tickets.map((k, i) => {
    const key = `${t.projectKey}-${k.n}`;
    const created = utc(k.created) + 14 * 3_600_000;
    return [
      str(demoId(t.uuidPrefix, KIND.ticket, i + 1)),
      str(d.id),
      str(d.cloudAccounts[k.account]),
      str(d.integrationId),
      str('jira'),
      str(k.source),
      str(key),
      str('Task'),
      str(`${k.source}:${k.n}`),
      str(t.projectKey),
      str(k.title),
      str(`${k.title}. Raised from the platform.`),
      str(k.severity),
      str(k.status),
      str(admin.username),
      str(admin.username),
      str(`${t.ticketHost}/browse/${key}`),
      bool(false),
      ts(created),
      str(admin.id),
      ts(created),
    ];
  });
  return insert('tickets', COLUMNS.tickets, rows);
}

/** Apps of namespaces where the account runs none of the demo workloads (cluster add-ons). */
const LOG_APPS: Record<string, readonly string[]> = {
  production: ['api-server', 'web-frontend'],
  staging: ['api-gateway'],
  'kube-system': ['coredns', 'ingress-nginx'],
  monitoring: ['prometheus-server', 'grafana'],
};

/**
 * The `app` label of a log line: a demo workload of that account and namespace (its name is the
 * workload's `app` label, so lines, workloads and their monitoring counts agree), else an add-on.
 */
function logAppsOf(account: 'aws' | 'gcp', namespace: string): readonly string[] {
  const names = WORKLOADS[account].filter((w) => w.namespace === namespace).map((w) => w.name);
  return names.length ? names : LOG_APPS[namespace]!;
}

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
  debug: ['cache hit for key product:{n}', 'opening connection to {peer}', 'span finished in {ms}ms'],
};

interface LogLine {
  ts: number;
  account: 'aws' | 'gcp';
  level: keyof typeof LOG_MESSAGES;
  message: string;
  labels: Record<string, string>;
}

/** One log line of a workload in the aws or gcp account's cluster, at some time of the day. */
function logLine(t: TenantSpec, rng: () => number, dayStart: number): LogLine {
  const account = rng() < 0.6 ? 'aws' : 'gcp';
  const namespace = weighted(rng, [
    ['production', 45],
    ['staging', 25],
    ['kube-system', 15],
    ['monitoring', 15],
  ] as const);
  const app = pick(rng, logAppsOf(account, namespace));
  const level = weighted(rng, [
    ['error', 12],
    ['warn', 18],
    ['info', 55],
    ['debug', 15],
  ] as const);
  const message = pick(rng, LOG_MESSAGES[level])
    .replace('{peer}', pick(rng, ['payments', 'inventory', 'postgres', 'redis']))
    .replace('{ms}', String(5 + Math.floor(rng() * 4000)))
    .replace('{n}', String(1 + Math.floor(rng() * 9)));
  const podSuffix = Math.floor(rng() * 0xfffff)
    .toString(16)
    .padStart(5, '0');
  return {
    ts: dayStart + Math.floor(rng() * DAY_MS),
    account,
    level,
    message,
    labels: {
      namespace,
      app,
      level,
      pod: `${app}-${podSuffix}`,
      cluster: t.accounts.find((a) => a.key === account)!.cluster!,
    },
  };
}

function logSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const rng = rngFor(t.seed, 7);
  const dayStart = utc('2026-02-15');
  const lines: LogLine[] = [];
  for (let i = 0; i < DEMO.perTenant.logs; i++) lines.push(logLine(t, rng, dayStart));
  lines.sort((a, b) => a.ts - b.ts);
  const values = lines.map(
    (l) =>
      `  (${[str(d.id), str(d.cloudAccounts[l.account]), str(new Date(l.ts).toISOString()), str(l.level), str(l.message), json(l.labels)].join(', ')})`,
  );
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
// Tables of the catalogue families (sql/0009 onwards): a handful of rows per tenant, consistent
// with the accounts, resources, workloads, events, recommendations and auto-pilots above.

const HOUR_MS = 3_600_000;

/** The demo workloads of a tenant with their ids, in the order workloadSection numbers them. */
function demoWorkloads(
  t: TenantSpec,
): { id: string; resourceId: string; account: 'aws' | 'gcp'; w: WorkloadTemplate }[] {
  const out: { id: string; resourceId: string; account: 'aws' | 'gcp'; w: WorkloadTemplate }[] = [];
  for (const key of ['aws', 'gcp'] as const) {
    for (const w of WORKLOADS[key]) {
      const n = out.length + 1;
      out.push({
        id: demoId(t.uuidPrefix, KIND.workload, n),
        resourceId: demoId(t.uuidPrefix, KIND.workloadResource, n),
        account: key,
        w,
      });
    }
  }
  return out;
}

function accountOf(t: TenantSpec, key: AccountKey): AccountSpec {
  return t.accounts.find((a) => a.key === key)!;
}

function resourceOf(t: TenantSpec, resources: readonly Resource[], key: AccountKey, index: number): Resource {
  return resources[t.accounts.findIndex((a) => a.key === key) * DEMO.perTenant.resourcesPerAccount + index]!;
}

/** What most rows of a tenant refer to: its entry in DEMO, its admin user, and its ids by kind. */
interface TenantRefs {
  d: (typeof DEMO.tenants)[TenantKey];
  admin: string;
  id: (kind: number, n: number) => string;
}

function refsOf(t: TenantSpec): TenantRefs {
  const d = DEMO.tenants[t.key];
  return { d, admin: d.users.admin.id, id: (kind: number, n: number) => demoId(t.uuidPrefix, kind, n) };
}

/** Two monthly invoices of the tenant's plan: January's paid, February's due. */
function billingRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  const tier = t.key === 'acme' ? 'Enterprise' : 'Growth';
  const monthly = t.key === 'acme' ? 1200 : 750;
  return [
    [
      str(id(KIND.billing, 1)),
      str(d.id),
      str(tier),
      num(0, 2),
      num(monthly, 2),
      num(monthly, 2),
      ts(utc('2026-02-01')),
      ts(utc('2026-02-01')),
      ts(utc('2026-02-03')),
    ],
    [
      str(id(KIND.billing, 2)),
      str(d.id),
      str(tier),
      num(monthly, 2),
      num(monthly, 2),
      num(monthly, 2),
      ts(utc('2026-03-01')),
      ts(utc('2026-03-01')),
      ts(utc('2026-03-01')),
    ],
  ];
}

function billingUsageRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  const usage: Cell[][] = [];
  for (const [month, date] of [
    ['2026-01', '2026-01-31'],
    ['2026-02', '2026-02-28'],
  ] as const) {
    for (const a of t.accounts) {
      if (a.key === 'azure') continue;
      const units = DEMO.perTenant.resourcesPerAccount + (a.cluster ? DEMO.perTenant.k8sWorkloadsPerAccount : 0);
      const perUnit = a.key === 'aws' ? 2.5 : 2;
      usage.push([
        str(id(KIND.billingUsageCost, usage.length + 1)),
        str(d.id),
        str(d.cloudAccounts[a.key]),
        ts(utc(date)),
        str(`Managed resources ${month}`),
        str('resource_management'),
        num(units),
        num(perUnit, 2),
        num(cents(units * perUnit), 2),
        ts(utc(date) + HOUR_MS),
        ts(utc(date) + HOUR_MS),
      ]);
    }
  }
  return usage;
}

function fundingSources(t: TenantSpec): { name: string; description: string; amount: number }[] {
  return [
    {
      name: 'FY2026 Cloud Budget',
      description: 'Yearly budget for cloud infrastructure',
      amount: t.key === 'acme' ? 480000 : 600000,
    },
    { name: 'Innovation Fund', description: 'Experiments and new products', amount: t.key === 'acme' ? 60000 : 90000 },
  ];
}

const FUNDING_CREATED = utc('2025-12-15') + 10 * HOUR_MS;

function fundingSourceRows(t: TenantSpec): Cell[][] {
  const { d, admin, id } = refsOf(t);
  return fundingSources(t).map((f, i) => [
    str(id(KIND.fundingSource, i + 1)),
    str(d.id),
    str(f.name),
    str(f.description),
    num(f.amount, 2),
    num(cents(f.amount * 0.9), 2),
    ts(utc('2026-01-01')),
    ts(utc('2026-12-31')),
    str(admin),
    str(null),
    ts(FUNDING_CREATED),
    str(admin),
    ts(FUNDING_CREATED),
    str(admin),
  ]);
}

/** Shares of the funding sources given to the business units. */
function businessUnitFundingRows(t: TenantSpec): Cell[][] {
  const { d, admin, id } = refsOf(t);
  const sources = fundingSources(t);
  const units = [
    { unit: 1, source: 1, share: 0.5 },
    { unit: 2, source: 1, share: 0.3 },
    { unit: 2, source: 2, share: 0.6 },
  ];
  return units.map((u, i) => {
    const amount = cents(sources[u.source - 1]!.amount * u.share);
    return [
      str(id(KIND.businessunitFunding, i + 1)),
      str(d.id),
      str(id(KIND.businessUnit, u.unit)),
      str(id(KIND.fundingSource, u.source)),
      num(amount, 2),
      num(amount, 2),
      ts(utc('2026-01-01')),
      ts(utc('2026-12-31')),
      ts(FUNDING_CREATED),
      str(admin),
      ts(FUNDING_CREATED),
      str(admin),
    ];
  });
}

function costManagementSection(t: TenantSpec): string {
  return [
    insert('billing', COLUMNS.billing, billingRows(t)),
    insert('billing_usage_cost', COLUMNS.billing_usage_cost, billingUsageRows(t)),
    insert('funding_sources', COLUMNS.funding_sources, fundingSourceRows(t)),
    insert('businessunit_funding', COLUMNS.businessunit_funding, businessUnitFundingRows(t)),
  ].join('\n');
}

const ANOMALY_CONFIGS = [
  { account: 'aws' as const, anomalyType: 'CPU', op: 'GT', buffer: 20 },
  { account: 'gcp' as const, anomalyType: 'Memory', op: 'GT', buffer: 25 },
  { account: 'aws' as const, anomalyType: 'ErrorRate', op: 'GTE', buffer: 50 },
];

/** What the anomaly configs found: `config` is the number of the config (1-based). */
const ANOMALIES = [
  {
    config: 1,
    name: 'api-server',
    namespace: 'production',
    pod: 'api-server-7c9f8b6d4-x2k9p',
    current: 0.92,
    mean: 0.41,
    anomaly: true,
    day: '2026-02-11',
  },
  {
    config: 1,
    name: 'payments-worker',
    namespace: 'production',
    pod: 'payments-worker-5d8c7f9b8-q4m2t',
    current: 1.6,
    mean: 0.7,
    anomaly: true,
    day: '2026-02-19',
  },
  {
    config: 2,
    name: 'ml-inference',
    namespace: 'production',
    pod: 'ml-inference-6b7d9c5f4-h8r3w',
    current: 7168,
    mean: 5200,
    anomaly: true,
    day: '2026-02-22',
  },
  {
    config: 3,
    name: 'web-frontend',
    namespace: 'production',
    pod: null,
    current: 0.8,
    mean: 0.6,
    anomaly: false,
    day: '2026-02-25',
  },
];

function anomalyConfigRows(t: TenantSpec): Cell[][] {
  const { d, admin, id } = refsOf(t);
  const created = utc('2026-01-10') + 9 * HOUR_MS;
  return ANOMALY_CONFIGS.map((c, i) => [
    str(id(KIND.anomalyConfig, i + 1)),
    str(d.id),
    str(d.cloudAccounts[c.account]),
    str('Metric'),
    str(c.anomalyType),
    str(c.op),
    num(c.buffer),
    str('7'),
    str('days'),
    ts(created + i * HOUR_MS),
    str(admin),
    ts(created + i * HOUR_MS),
    str(admin),
  ]);
}

function anomalyRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return ANOMALIES.map((a, i) => {
    const c = ANOMALY_CONFIGS[a.config - 1]!;
    const evaluated = utc(a.day) + (8 + i) * HOUR_MS;
    const reference = { mean: a.mean, upper_bound: cents(a.mean * (1 + c.buffer / 100) * 100) / 100, period: '7d' };
    return [
      str(id(KIND.anomaly, i + 1)),
      str(d.id),
      str(d.cloudAccounts[c.account]),
      str(id(KIND.anomalyConfig, a.config)),
      str(c.anomalyType),
      str(a.name),
      str(a.namespace),
      str(a.pod),
      num(a.current),
      json(reference),
      bool(a.anomaly),
      ts(evaluated),
      ts(evaluated - 7 * DAY_MS),
      ts(evaluated),
      ts(evaluated),
    ];
  });
}

function anomalySection(t: TenantSpec): string {
  return [
    insert('anomaly_config', COLUMNS.anomaly_config, anomalyConfigRows(t)),
    insert('anomaly', COLUMNS.anomaly, anomalyRows(t)),
  ].join('\n');
}

/** What the rows of the event family share: the tenant, its refs, its resources and its events. */
interface EventContext extends TenantRefs {
  t: TenantSpec;
  resources: readonly Resource[];
  events: DemoEvent[];
}

function acct(c: EventContext, e: DemoEvent): Cell {
  return str(c.d.cloudAccounts[e.account]);
}

const EVENT_RULES_CREATED = utc('2026-01-04') + 11 * HOUR_MS;

const EVENT_RULES = [
  {
    account: 'aws' as const,
    name: 'High error rate',
    alert: 'HighErrorRate',
    expr: 'sum(rate(http_requests_total{code=~"5.."}[5m])) / sum(rate(http_requests_total[5m])) > 0.05',
    duration: '5m',
    group: 'slo',
    namespace: 'production',
    category: 'Reliability',
    severity: 'critical',
    source: 'prometheus',
  },
  {
    account: 'gcp' as const,
    name: 'Pod memory near limit',
    alert: 'PodMemoryHigh',
    expr: 'container_memory_working_set_bytes / container_spec_memory_limit_bytes > 0.9',
    duration: '10m',
    group: 'resources',
    namespace: null,
    category: 'Resources',
    severity: 'warning',
    source: 'prometheus',
  },
  {
    account: 'aws' as const,
    name: 'EC2 CPU high',
    alert: 'EC2CPUHigh',
    expr: 'CPUUtilization > 85',
    duration: '15m',
    group: null,
    namespace: null,
    category: 'Performance',
    severity: 'warning',
    source: 'AWS_CloudWatch_Alarm',
  },
];

function eventRuleRows(c: EventContext): Cell[][] {
  const { d, admin, id } = c;
  return EVENT_RULES.map((r, i) => [
    str(id(KIND.eventRule, i + 1)),
    str(d.id),
    str(d.cloudAccounts[r.account]),
    str(r.name),
    str(r.alert),
    str(r.expr),
    str(r.duration),
    str(r.group),
    str(r.namespace),
    str(r.category),
    str(r.severity),
    str(r.source),
    json({ severity: r.severity, team: 'platform' }),
    json({ summary: `${r.name} on {{ $labels.instance }}` }),
    bool(true),
    bool(true),
    ts(EVENT_RULES_CREATED + i * HOUR_MS),
    str(admin),
    ts(EVENT_RULES_CREATED + i * HOUR_MS),
    str(admin),
  ]);
}

const EVENT_TRIAGE_RULES = [
  {
    name: 'Drop debug traces',
    description: 'Debug events never page anyone.',
    ruleType: 'suppress',
    action: 'set_priority',
    value: { priority: 'DEBUG' },
    priority: 10,
    matchSource: 'manual',
    matchPriority: 'DEBUG',
    matchNamespace: null,
    override: null as number | null,
  },
  {
    name: 'Escalate payments',
    description: 'Anything about payments in production is urgent.',
    ruleType: 'escalate',
    action: 'set_priority',
    value: { priority: 'HIGH' },
    priority: 20,
    matchSource: null,
    matchPriority: null,
    matchNamespace: 'production',
    override: null,
  },
  {
    name: 'Quiet staging at night',
    description: 'Staging alerts wait for the morning.',
    ruleType: 'snooze',
    action: 'snooze',
    value: { hours: 8 },
    priority: 5,
    matchSource: null,
    matchPriority: null,
    matchNamespace: 'staging',
    override: 2,
  },
];

function eventTriageRuleRows(c: EventContext): Cell[][] {
  const { d, admin, id } = c;
  return EVENT_TRIAGE_RULES.map((r, i) => [
    str(id(KIND.eventTriageRule, i + 1)),
    str(d.id),
    str(d.cloudAccounts.aws),
    str(r.name),
    str(r.description),
    str(r.ruleType),
    str(r.action),
    json(r.value),
    num(r.priority),
    str(r.description),
    bool(true),
    bool(true),
    bool(r.override === null),
    str(r.override === null ? null : id(KIND.eventTriageRule, r.override)),
    str(r.matchSource),
    str(r.matchPriority),
    str(r.matchNamespace),
    num(3 + i * 4),
    ts(utc('2026-02-20') + i * HOUR_MS),
    ts(utc('2026-01-01')),
    ts(EVENT_RULES_CREATED + i * HOUR_MS),
    str(admin),
    ts(EVENT_RULES_CREATED + i * HOUR_MS),
    str(admin),
  ]);
}

/** History: the status change of each of the first four events. */
function eventHistoryRows(c: EventContext): Cell[][] {
  const { d, admin, id, events } = c;
  return events.slice(0, 4).map((e, i) => {
    const at = e.created + 30 * 60_000;
    const firing = e.status === 'FIRING';
    return [
      str(id(KIND.eventHistory, i + 1)),
      str(d.id),
      acct(c, e),
      str(e.id),
      str(firing ? 'nb_status' : 'status'),
      str(firing ? 'Acknowledged by the on-call engineer' : 'Alert cleared at the source'),
      json(firing ? { nb_status: null } : { status: 'FIRING' }),
      json(firing ? { nb_status: 'acknowledged' } : { status: e.status }),
      json({ via: firing ? 'ui' : e.source }),
      ts(at),
      str(firing ? admin : null),
    ];
  });
}

/** How the second, fifth and eighth events were classified. */
const EVENT_CLASSIFICATIONS = [
  {
    classification: 'actionable',
    reason: 'customer_impact',
    text: 'Users saw errors',
    direction: 'up',
    corrected: 'HIGH',
  },
  {
    classification: 'noise',
    reason: 'expected_behaviour',
    text: 'Planned maintenance window',
    direction: 'down',
    corrected: 'LOW',
  },
  {
    classification: 'duplicate',
    reason: 'same_root_cause',
    text: 'Same incident as the earlier event',
    direction: null,
    corrected: null,
  },
];

function eventClassificationRows(c: EventContext): Cell[][] {
  const { d, admin, id, events } = c;
  const classified = [events[1]!, events[4]!, events[7]!];
  const classificationRows = classified.map((e, i) => {
    const cls = EVENT_CLASSIFICATIONS[i]!;
    const at = e.created + HOUR_MS;
    return [
      str(id(KIND.eventClassification, i + 1)),
      str(d.id),
      acct(c, e),
      str(e.id),
      str(cls.classification === 'duplicate' ? events[0]!.id : null),
      str(i === 1 ? id(KIND.eventTriageRule, 1) : null),
      str(cls.classification),
      str(cls.reason),
      str(cls.text),
      str(i === 1 ? 'fingerprint' : 'event'),
      ts(i === 1 ? at + 30 * DAY_MS : null),
      str(e.severity),
      num(40 + i * 15),
      str(cls.corrected),
      str(cls.direction),
      json({ source: e.source, finding_type: e.findingType }),
      ts(at),
      str(admin),
      ts(at),
      ts(at),
    ];
  });
  return classificationRows;
}

const EVENT_BULK_OPERATIONS = [
  {
    classification: 2,
    target: 'CLOSED',
    status: 'COMPLETED',
    total: 3,
    processed: 3,
    error: null as string | null,
    day: '2026-02-05',
  },
  {
    classification: null as number | null,
    target: 'RESOLVED',
    status: 'FAILED',
    total: 5,
    processed: 2,
    error: 'Event update timed out after 2 of 5 events',
    day: '2026-02-24',
  },
];

function eventBulkOperationRows(c: EventContext): Cell[][] {
  const { d, admin, id, events } = c;
  return EVENT_BULK_OPERATIONS.map((b, i) => {
    const at = utc(b.day) + 15 * HOUR_MS;
    return [
      str(id(KIND.eventBulkOperation, i + 1)),
      str(d.id),
      str(d.cloudAccounts.aws),
      str(b.classification === null ? null : id(KIND.eventClassification, b.classification)),
      str(b.classification === null ? id(KIND.eventTriageRule, 2) : null),
      str('status_change'),
      str(events[i]!.fingerprint),
      str(b.target),
      str(b.status),
      num(b.total),
      num(b.processed),
      str(b.error),
      ts(at),
      str(admin),
      ts(at + 2 * 60_000),
    ];
  });
}

/** Duplicates: later events with the fingerprint of an earlier one. */
function eventDuplicateRows(c: EventContext): Cell[][] {
  const { d, id, events } = c;
  const duplicateRows: Cell[][] = [];
  const byFingerprint = new Map<string, DemoEvent[]>();
  for (const e of events) byFingerprint.set(e.fingerprint, [...(byFingerprint.get(e.fingerprint) ?? []), e]);
  for (const group of byFingerprint.values()) {
    group.forEach((e, i) => {
      if (i === 0 || duplicateRows.length >= 4) return;
      const first = group[0]!;
      const previous = group[i - 1]!;
      duplicateRows.push([
        str(id(KIND.eventDuplicate, duplicateRows.length + 1)),
        str(d.id),
        acct(c, e),
        str(e.id),
        str(first.id),
        str(previous.id),
        str(e.fingerprint),
        num(i + 1),
        num((e.created - first.created) / 1000),
        num((e.created - previous.created) / 1000),
        ts(first.created),
        ts(e.created),
      ]);
    });
  }
  return duplicateRows;
}

/** Correlations: consecutive events in the same account. */
function eventCorrelationRows(c: EventContext): Cell[][] {
  const { d, id, events } = c;
  const correlationRows: Cell[][] = [];
  for (let i = 1; i < events.length && correlationRows.length < 3; i++) {
    const e = events[i]!;
    const prev = events[i - 1]!;
    if (e.account !== prev.account) continue;
    const minutes = Math.round((e.created - prev.created) / 60_000);
    correlationRows.push([
      str(id(KIND.eventCorrelation, correlationRows.length + 1)),
      str(d.id),
      acct(c, e),
      str(e.id),
      str(prev.id),
      str(e.namespace && e.namespace === prev.namespace ? 'topology' : 'temporal'),
      str(`${e.subjectName} and ${prev.subjectName} in the same account`),
      num(0.6 + 0.1 * correlationRows.length, 2),
      num(e.namespace && e.namespace === prev.namespace ? 1 : 0),
      num(minutes),
      ts(e.created + 5 * 60_000),
    ]);
  }
  return correlationRows;
}

const EVENT_WEBHOOKS = [
  {
    type: 'pagerduty',
    hook: 'pd-hook-01',
    ext: 'Q1A2B3C4D5',
    eventType: 'incident.triggered',
    title: 'Checkout latency above SLO',
    priority: 'P2',
    status: 'triggered',
    day: '2026-02-14',
  },
  {
    type: 'datadog',
    hook: 'dd-hook-01',
    ext: '7712345678901234567',
    eventType: 'monitor.alert',
    title: 'Disk usage above 90% on db host',
    priority: 'P3',
    status: 'alert',
    day: '2026-02-21',
  },
];

function eventWebhookRows(c: EventContext): Cell[][] {
  const { t, d, id } = c;
  return EVENT_WEBHOOKS.map((w, i) => {
    const at = utc(w.day) + (9 + i) * HOUR_MS;
    return [
      str(id(KIND.eventIncomingWebhook, i + 1)),
      str(d.id),
      str(d.cloudAccounts.aws),
      str(d.integrationId),
      str(w.type),
      str(w.hook),
      str(w.ext),
      str(w.eventType),
      str(w.title),
      str(`${w.title}. Sent by ${w.type}.`),
      str(w.priority),
      str(w.status),
      str(`https://${w.type}.example.com/${t.key}/${w.ext}`),
      ts(at),
      str(JSON.stringify({ id: w.ext, title: w.title, status: w.status })),
    ];
  });
}

function eventLogAnalysisRows(c: EventContext): Cell[][] {
  const { d, id, events } = c;
  const workloadEvents = events.filter((e) => e.namespace !== null).slice(0, 3);
  const analysisStatus = ['COMPLETED', 'FAILED', 'IN_PROGRESS'] as const;
  const analysisRows = workloadEvents.map((e, i) => {
    const status = analysisStatus[i]!;
    const at = e.created + 10 * 60_000;
    return [
      str(id(KIND.eventLogAnalysis, i + 1)),
      str(d.id),
      acct(c, e),
      str(e.id),
      str(e.aggregationKey),
      str(e.fingerprint),
      str('log_summary'),
      str(status),
      str(status === 'FAILED' ? 'No log lines in the event window' : null),
      str(
        status === 'COMPLETED'
          ? `Errors in ${e.subjectName} start right after a deployment; most lines are connection refusals to a dependency.`
          : null,
      ),
      str(status === 'COMPLETED' ? `${e.subjectName}: connection errors after deployment` : null),
      ts(at),
      ts(status === 'IN_PROGRESS' ? null : at + 2 * 60_000),
    ];
  });
  return analysisRows;
}

function eventResolutionRows(c: EventContext): Cell[][] {
  const { t, d, admin, id, events } = c;
  const resolved = events.filter((e) => e.status !== 'FIRING').slice(0, 2);
  const resolutionRows = resolved.map((e, i) => {
    const at = e.created + 2 * HOUR_MS;
    const ticket = i === 0;
    return [
      str(id(KIND.eventResolution, i + 1)),
      str(d.id),
      str(e.id),
      str(ticket ? 'ticket' : 'runbook'),
      str(ticket ? `${t.projectKey}-101` : 'restart-workload'),
      str(ticket ? 'user' : 'auto_pilot'),
      str(ticket ? admin : demoId(t.uuidPrefix, KIND.autoPilot, 1)),
      str('Completed'),
      str(ticket ? 'Ticket raised and closed' : 'Workload restarted'),
      json({ event_status: e.status }),
      ts(at),
      ts(at + HOUR_MS),
    ];
  });
  return resolutionRows;
}

const INSIGHTS = [
  {
    account: 'aws' as const,
    resource: 4,
    title: 'Bucket readable by anyone',
    type: 'security',
    source: 'aws_config',
    status: 'Open',
    severity: 'Critical',
  },
  {
    account: 'aws' as const,
    resource: 3,
    title: 'Database storage grows 4% a week',
    type: 'capacity',
    source: 'nudgebee',
    status: 'Open',
    severity: 'High',
  },
  {
    account: 'gcp' as const,
    resource: 5,
    title: 'Warehouse queries scan whole tables',
    type: 'cost',
    source: 'nudgebee',
    status: 'Resolved',
    severity: 'Medium',
  },
];

function insightRows(c: EventContext): Cell[][] {
  const { t, d, id, resources } = c;
  return INSIGHTS.map((x, i) => {
    const r = resourceOf(t, resources, x.account, x.resource);
    const at = utc('2026-02-02') + i * 3 * DAY_MS + 13 * HOUR_MS;
    return [
      str(id(KIND.insight, i + 1)),
      str(d.id),
      str(d.cloudAccounts[x.account]),
      str(r.id),
      str(`${x.type}:${r.name}`),
      str(x.title),
      str(x.type),
      str(x.source),
      str(x.status),
      str(x.severity),
      json([r.name]),
      json({ check: `${x.type}_${r.template.type}` }),
      ts(at),
      ts(at + DAY_MS),
    ];
  });
}

function eventFamilySection(t: TenantSpec, resources: readonly Resource[]): string {
  const c: EventContext = { ...refsOf(t), t, resources, events: buildEvents(t, resources).events };
  const duplicateRows = eventDuplicateRows(c);
  return [
    insert('event_rules', COLUMNS.event_rules, eventRuleRows(c)),
    insert('event_triage_rules', COLUMNS.event_triage_rules, eventTriageRuleRows(c)),
    insert('event_history', COLUMNS.event_history, eventHistoryRows(c)),
    insert('event_classification', COLUMNS.event_classification, eventClassificationRows(c)),
    insert('event_bulk_operations', COLUMNS.event_bulk_operations, eventBulkOperationRows(c)),
    duplicateRows.length ? insert('event_duplicates', COLUMNS.event_duplicates, duplicateRows) : '',
    insert('event_correlations', COLUMNS.event_correlations, eventCorrelationRows(c)),
    insert('event_incoming_webhooks', COLUMNS.event_incoming_webhooks, eventWebhookRows(c)),
    insert('event_log_analysis', COLUMNS.event_log_analysis, eventLogAnalysisRows(c)),
    insert('event_resolution', COLUMNS.event_resolution, eventResolutionRows(c)),
    insert('insight', COLUMNS.insight, insightRows(c)),
  ]
    .filter(Boolean)
    .join('\n');
}

function recommendationResolutionSection(t: TenantSpec): string {
  const d = DEMO.tenants[t.key];
  const offset = t.key === 'acme' ? 0 : 5;
  const rows: Cell[][] = [];
  RECOMMENDATIONS.forEach((rec, i) => {
    const status = RECOMMENDATION_STATUSES[(i + offset) % RECOMMENDATION_STATUSES.length]!;
    if ((status !== 'Assigned' && status !== 'Closed') || rows.length >= 3) return;
    const at = utc('2026-02-10') + rows.length * DAY_MS + 10 * HOUR_MS;
    const ticket = status === 'Assigned';
    rows.push([
      str(demoId(t.uuidPrefix, KIND.recommendationResolution, rows.length + 1)),
      str(d.id),
      str(demoId(t.uuidPrefix, KIND.recommendation, i + 1)),
      str(ticket ? 'ticket' : 'auto_pilot'),
      str(ticket ? `${t.projectKey}-102` : demoId(t.uuidPrefix, KIND.autoPilot, 1)),
      str(ticket ? 'user' : 'auto_pilot'),
      str(ticket ? d.users.admin.id : demoId(t.uuidPrefix, KIND.autoPilot, 1)),
      str(ticket ? 'InProgress' : 'Completed'),
      str(ticket ? `Ticket raised for ${rec.rule}` : `${rec.title}: applied`),
      json({ rule_name: rec.rule, category: rec.category }),
      ts(at),
      ts(at + (ticket ? 0 : 2 * HOUR_MS)),
    ]);
  });
  return insert('recommendation_resolution', COLUMNS.recommendation_resolution, rows);
}

function cloudAccountAttrRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  const attrs: Cell[][] = [];
  for (const a of t.accounts) {
    const created = utc(a.createdAt) + 9 * HOUR_MS;
    for (const [name, value] of [
      ['default_region', a.region],
      ['billing_currency', 'USD'],
    ] as const) {
      attrs.push([
        str(id(KIND.cloudAccountAttr, attrs.length + 1)),
        str(d.id),
        str(d.cloudAccounts[a.key]),
        str(name),
        str(value),
        ts(created),
        ts(created),
      ]);
    }
  }
  return attrs;
}

function cloudAccountScoreRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return t.accounts.map((a, i) => {
    const score = a.status === 'active' ? (a.syncStatus === 'Completed' ? 86 : 74) : 41;
    return [
      str(id(KIND.cloudAccountScore, i + 1)),
      str(d.id),
      str(d.cloudAccounts[a.key]),
      num(score),
      str('well_architected'),
      str(`Well-architected score of ${a.name}`),
      ts(utc('2026-02-28') + 6 * HOUR_MS),
      ts(utc('2026-02-28') + 6 * HOUR_MS),
    ];
  });
}

/** Accounts whose onboarding failed: they never became cloud accounts. */
function onboardingErrorRows(t: TenantSpec): Cell[][] {
  const { d, admin, id } = refsOf(t);
  const onboarding = [
    {
      name: `${t.key}-aws-sandbox`,
      config: { provider: 'AWS', role: 'arn:aws:iam::000000000000:role/ReadOnly' },
      error: 'AccessDenied: the role cannot be assumed by the platform account',
      day: '2026-01-20',
    },
    {
      name: `${t.key}-gcp-playground`,
      config: { provider: 'GCP', project: `${t.key}-playground` },
      error: 'The billing export dataset was not found',
      day: '2026-02-06',
    },
  ];
  return onboarding.map((o, i) => [
    str(id(KIND.onboardingError, i + 1)),
    str(d.id),
    str(o.name),
    str(JSON.stringify(o.config)),
    str(o.error),
    ts(utc(o.day) + 16 * HOUR_MS),
    str(admin),
  ]);
}

function apiPermissionErrors(t: TenantSpec) {
  const aws = accountOf(t, 'aws');
  const azure = accountOf(t, 'azure');
  return [
    {
      account: aws,
      provider: 'AWS',
      region: aws.region,
      service: 'ce',
      op: 'GetCostAndUsage',
      method: 'CostExplorer.getCostAndUsage',
      code: 'AccessDeniedException',
      count: 12,
      resolved: true,
    },
    {
      account: azure,
      provider: 'Azure',
      region: azure.region,
      service: 'Microsoft.Insights',
      op: 'metrics/read',
      method: 'MonitorClient.listMetrics',
      code: 'AuthorizationFailed',
      count: 48,
      resolved: false,
    },
  ];
}

function apiPermissionErrorRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return apiPermissionErrors(t).map((p, i) => {
    const first = utc('2026-02-01') + i * 5 * DAY_MS + 3 * HOUR_MS;
    const last = first + (p.count - 1) * 6 * HOUR_MS;
    return [
      str(id(KIND.apiPermissionError, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account.key]),
      str(p.account.number),
      str(p.provider),
      str(p.region),
      str(p.service),
      str(p.op),
      str(p.method),
      str(p.code),
      str(`${p.code}: not authorized to perform ${p.op}`),
      num(p.count),
      str(new Date(first).toISOString()),
      str(new Date(last).toISOString()),
      bool(p.resolved),
      str(p.resolved ? new Date(last + HOUR_MS).toISOString() : null),
    ];
  });
}

/** The resources (account and index) that have attributes and metrics. */
const DETAILED_RESOURCES = [
  ['aws', 0],
  ['aws', 1],
  ['aws', 3],
  ['gcp', 0],
] as const;

function resourceAttributeRows(t: TenantSpec, resources: readonly Resource[]): Cell[][] {
  const { d, id } = refsOf(t);
  return DETAILED_RESOURCES.map(([key, index], i) => {
    const r = resourceOf(t, resources, key, index);
    const seen = utc('2026-02-28') + 5 * HOUR_MS;
    return [
      str(id(KIND.resourceAttribute, i + 1)),
      str(d.id),
      str(d.cloudAccounts[key]),
      str(r.id),
      str('size'),
      str(r.template.size ?? null),
      json({ team: r.account.prefix }),
      ts(seen),
      ts(seen - 30 * DAY_MS),
    ];
  });
}

/** Four CPU readings, six hours apart, of each detailed resource. */
function resourceMetricRows(t: TenantSpec, resources: readonly Resource[]): Cell[][] {
  const { d, id } = refsOf(t);
  const metricRows: Cell[][] = [];
  const rng = rngFor(t.seed, 8);
  for (const [key, index] of DETAILED_RESOURCES) {
    const r = resourceOf(t, resources, key, index);
    for (let h = 0; h < 4; h++) {
      const at = utc('2026-02-27') + h * 6 * HOUR_MS;
      metricRows.push([
        str(id(KIND.resourceMetric, metricRows.length + 1)),
        str(d.id),
        str(d.cloudAccounts[key]),
        str(r.id),
        str('cpu_utilization'),
        str('percent'),
        json({ region: r.region }),
        ts(at),
        num(cents(15 + 60 * rng()), 2),
      ]);
    }
  }
  return metricRows;
}

function activeResourceRows(t: TenantSpec, resources: readonly Resource[]): Cell[][] {
  const { d } = refsOf(t);
  const activeRows: Cell[][] = [];
  for (const key of ['aws', 'gcp'] as const) {
    for (const index of [0, 1, 3]) {
      const r = resourceOf(t, resources, key, index);
      activeRows.push([
        str(d.id),
        str(d.cloudAccounts[key]),
        str(r.template.type),
        str(resourceExternalId(r.account, r.template, r.name, r.region)),
        str(r.name),
        ts(utc('2026-02-28') + 5 * HOUR_MS),
      ]);
    }
  }
  return activeRows;
}

function cloudInfrastructureSection(t: TenantSpec, resources: readonly Resource[]): string {
  return [
    insert('cloud_account_attrs', COLUMNS.cloud_account_attrs, cloudAccountAttrRows(t)),
    insert('cloud_account_onboarding_errors', COLUMNS.cloud_account_onboarding_errors, onboardingErrorRows(t)),
    insert('cloud_account_score', COLUMNS.cloud_account_score, cloudAccountScoreRows(t)),
    insert('cloud_api_permission_errors', COLUMNS.cloud_api_permission_errors, apiPermissionErrorRows(t)),
    insert('cloud_resource_attributes', COLUMNS.cloud_resource_attributes, resourceAttributeRows(t, resources)),
    insert('cloud_resource_metrics', COLUMNS.cloud_resource_metrics, resourceMetricRows(t, resources)),
    insert('active_resources', COLUMNS.active_resources, activeResourceRows(t, resources)),
  ].join('\n');
}

function k8sNodeName(t: TenantSpec, key: 'aws' | 'gcp', i: number): string {
  const account = accountOf(t, key);
  return key === 'aws'
    ? `ip-10-${t.key === 'acme' ? 0 : 1}-${i + 1}-${20 + i * 7}.${account.region}.compute.internal`
    : `gke-${account.cluster}-default-pool-${(0x1a2b + i).toString(16)}`;
}

function k8sNodeRows(t: TenantSpec, rng: () => number): Cell[][] {
  const { d, id } = refsOf(t);
  const nodes: Cell[][] = [];
  for (const key of ['aws', 'gcp'] as const) {
    const account = accountOf(t, key);
    for (let i = 0; i < DEMO.perTenant.k8sNodesPerAccount; i++) {
      const flavor = key === 'aws' ? 'm5.2xlarge' : 'n2-standard-8';
      const created = utc(account.createdAt) + (20 + i * 30) * DAY_MS;
      nodes.push([
        str(d.id),
        str(d.cloudAccounts[key]),
        str(id(KIND.k8sNode, nodes.length + 1)),
        str(k8sNodeName(t, key, i)),
        str(i === 2 ? 'spot' : 'on_demand'),
        str(flavor),
        str(account.region),
        str(`${account.region}-${'abc'[i]}`),
        str(`10.${t.key === 'acme' ? 0 : 1}.${i + 1}.${20 + i * 7}`),
        str(null),
        num(8),
        num(7.91, 2),
        num(cents(4 + 3 * rng()), 2),
        num(32768),
        num(31200),
        num(Math.round(16000 + 8000 * rng())),
        num(cents((key === 'aws' ? 9.2 : 9.3) * (i === 2 ? 0.35 : 1)), 2),
        str('Ready'),
        str(i === 2 ? 'spot=true:NoSchedule' : null),
        json({
          'node.kubernetes.io/instance-type': flavor,
          'topology.kubernetes.io/zone': `${account.region}-${'abc'[i]}`,
        }),
        json({ kubelet_version: 'v1.29.6' }),
        bool(true),
        ts(created),
        ts(utc('2026-02-28') + 23 * HOUR_MS),
      ]);
    }
  }
  return nodes;
}

/** One pod per demo workload, on the nodes of its account in turn (none for a pending pod). */
function k8sPodRows(t: TenantSpec, rng: () => number): Cell[][] {
  const { d, id } = refsOf(t);
  return demoWorkloads(t).map((wl, i) => {
    const account = accountOf(t, wl.account);
    const suffix = Math.floor(rng() * 0xfffff)
      .toString(16)
      .padStart(5, '0');
    const name = `${wl.w.name}-${suffix}`;
    const status = wl.w.status === 'Degraded' ? 'Running' : wl.w.status;
    const restarts = wl.w.status === 'Degraded' ? 7 + Math.floor(rng() * 20) : 0;
    const created = utc('2026-02-20') + Math.floor(rng() * 7 * 24) * HOUR_MS;
    return [
      str(d.id),
      str(d.cloudAccounts[wl.account]),
      str(id(KIND.k8sPod, i + 1)),
      str(`${account.cluster}/${wl.w.namespace}/pod/${name}`),
      str(name),
      str(wl.w.namespace),
      str(status === 'Pending' ? null : k8sNodeName(t, wl.account, i % DEMO.perTenant.k8sNodesPerAccount)),
      str(wl.w.name),
      str(wl.w.type),
      str(status),
      json({ [wl.w.name]: restarts }),
      json({ app: wl.w.name }),
      json({ qos_class: 'Burstable' }),
      bool(true),
      ts(created),
      ts(utc('2026-02-28') + 23 * HOUR_MS),
      ts(utc('2026-02-28') + 23 * HOUR_MS),
    ];
  });
}

function k8sNamespaceRows(t: TenantSpec): Cell[][] {
  const { d } = refsOf(t);
  const namespaces: Cell[][] = [];
  for (const key of ['aws', 'gcp'] as const) {
    const account = accountOf(t, key);
    const names = [...new Set(WORKLOADS[key].map((w) => w.namespace))].sort();
    for (const ns of names) {
      const inNs = WORKLOADS[key].filter((w) => w.namespace === ns);
      namespaces.push([
        str(d.id),
        str(d.cloudAccounts[key]),
        str(ns),
        num(inNs.length),
        num(inNs.length),
        bool(true),
        ts(utc(account.createdAt) + 10 * DAY_MS),
        ts(utc('2026-02-28') + 23 * HOUR_MS),
      ]);
    }
  }
  return namespaces;
}

function k8sUsageRows(t: TenantSpec, rng: () => number): Cell[][] {
  const { d } = refsOf(t);
  return (['aws', 'gcp'] as const).map((key) => [
    str(d.id),
    str(d.cloudAccounts[key]),
    num(cents(6 + 4 * rng()), 2),
    num(cents(3 + 3 * rng()), 2),
    num(Math.round(12_000 + 6_000 * rng())),
    num(Math.round(8_000 + 5_000 * rng())),
    num(cents(20 + 30 * rng()), 2),
    num(cents(10 + 20 * rng()), 2),
  ]);
}

function kubernetesSection(t: TenantSpec): string {
  // One stream for the section, drawn by the nodes, then the pods, then the usage: keep that order.
  const rng = rngFor(t.seed, 9);
  const nodes = k8sNodeRows(t, rng);
  const pods = k8sPodRows(t, rng);
  const usage = k8sUsageRows(t, rng);
  return [
    insert('k8s_nodes', COLUMNS.k8s_nodes, nodes),
    insert('k8s_pods', COLUMNS.k8s_pods, pods),
    insert('k8s_namespaces', COLUMNS.k8s_namespaces, k8sNamespaceRows(t)),
    usageSql(usage),
  ].join('\n');
}

/** k8s_account_resource_usage has no key to conflict on: a NOT EXISTS guard per account keeps a second run harmless. */
function usageSql(rows: readonly Cell[][]): string {
  const columns = COLUMNS.k8s_account_resource_usage;
  return [
    `INSERT INTO k8s_account_resource_usage (${columns.join(', ')})`,
    `SELECT v.tenant_id::uuid, v.cloud_account_id::uuid, ${columns
      .slice(2)
      .map((c) => `v.${c}::double precision`)
      .join(', ')}`,
    'FROM (VALUES',
    rows.map((r) => `  (${r.join(', ')})`).join(',\n'),
    `) AS v (${columns.join(', ')})`,
    'WHERE NOT EXISTS (',
    '  SELECT 1 FROM k8s_account_resource_usage u',
    '  WHERE u.tenant_id = v.tenant_id::uuid AND u.cloud_account_id = v.cloud_account_id::uuid',
    ');',
    '',
  ].join('\n');
}

type DemoWorkload = ReturnType<typeof demoWorkloads>[number];

/** What the rows of the automation family share. */
interface AutomationContext extends TenantRefs {
  viewer: string;
  pilot: (n: number) => string;
  policy: (n: number) => string;
  /** Globex's automations run two hours after Acme's. */
  shift: number;
  idle: Resource;
  inference: DemoWorkload;
  payments: DemoWorkload;
}

function automationContext(t: TenantSpec, resources: readonly Resource[]): AutomationContext {
  const refs = refsOf(t);
  const workloads = demoWorkloads(t);
  return {
    ...refs,
    viewer: refs.d.users.readonly.id,
    pilot: (n: number) => refs.id(KIND.autoPilot, n),
    policy: (n: number) => refs.id(KIND.approvalPolicy, n),
    shift: t.key === 'acme' ? 0 : 2 * HOUR_MS,
    // Auto-pilot 1 (aws, Active) stops idle instances; auto-pilot 2 (gcp, Dryrun) rightsizes workloads.
    idle: resourceOf(t, resources, 'aws', 2),
    inference: workloads.find((w) => w.w.name === 'ml-inference')!,
    payments: workloads.find((w) => w.w.name === 'payments-worker')!,
  };
}

function autoPilotTasks({ idle, inference }: AutomationContext) {
  return [
    {
      pilot: 1,
      account: 'aws' as const,
      name: `Stop ${idle.name}`,
      command: 'ec2:StopInstances',
      status: 'Executed',
      rec: null as number | null,
      day: '2026-02-26',
    },
    {
      pilot: 1,
      account: 'aws' as const,
      name: `Stop ${idle.name}`,
      command: 'ec2:StopInstances',
      status: 'Complete',
      rec: null,
      day: '2026-02-27',
    },
    {
      pilot: 2,
      account: 'gcp' as const,
      name: `Rightsize ${inference.w.name}`,
      command: 'kubectl set resources',
      status: 'Dryrun',
      rec: 8,
      day: '2026-02-26',
    },
    {
      pilot: 2,
      account: 'gcp' as const,
      name: `Rightsize ${inference.w.name}`,
      command: 'kubectl set resources',
      status: 'Scheduled',
      rec: 8,
      day: '2026-03-01',
    },
  ];
}

function autoPilotTaskRows(c: AutomationContext): Cell[][] {
  const { d, id, pilot, shift, idle, inference } = c;
  return autoPilotTasks(c).map((k, i) => {
    const at = utc(k.day) + 20 * HOUR_MS + shift;
    return [
      str(id(KIND.autoPilotTask, i + 1)),
      str(d.id),
      str(d.cloudAccounts[k.account]),
      str(pilot(k.pilot)),
      str(k.rec === null ? null : id(KIND.recommendation, k.rec)),
      str(null),
      str(k.name),
      str(k.command),
      str(k.status),
      json({ dry_run: k.status === 'Dryrun' }),
      json({ resource: k.pilot === 1 ? idle.name : inference.w.name }),
      json(k.pilot === 1 ? { tags: { env: 'dev' } } : { namespace: inference.w.namespace }),
      str(null),
      str(k.status === 'Dryrun' ? 'Dry run: no change applied' : null),
      ts(at),
      ts(at - HOUR_MS),
      ts(k.status === 'Scheduled' ? at - HOUR_MS : at + 5 * 60_000),
    ];
  });
}

function autoOptimizeResourceRows({ d, id, pilot, idle, inference }: AutomationContext): Cell[][] {
  return [
    [
      str(id(KIND.autoOptimizeResource, 1)),
      str(d.id),
      str(d.cloudAccounts.aws),
      str(pilot(1)),
      str('resource'),
      json({ resource_id: idle.id, name: idle.name }),
    ],
    [
      str(id(KIND.autoOptimizeResource, 2)),
      str(d.id),
      str(d.cloudAccounts.gcp),
      str(pilot(2)),
      str('workload'),
      json({ workload_id: inference.id, name: inference.w.name, namespace: inference.w.namespace }),
    ],
  ];
}

// Policies 2 and 3 need a manual approval (see AUTO_PILOTS): the admin reviews, the viewer asks.
const REVIEWED_POLICIES = [2, 3];

function reviewerRows({ d, admin, id, policy, shift }: AutomationContext): Cell[][] {
  return REVIEWED_POLICIES.map((n, i) => {
    const p = AUTO_PILOTS[n - 1]!;
    const at = utc(p.created) + 10 * HOUR_MS + shift;
    return [
      str(id(KIND.reviewer, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(policy(n)),
      str(admin),
      ts(at),
    ];
  });
}

function revieweeRows({ d, viewer, id, policy, shift }: AutomationContext): Cell[][] {
  return REVIEWED_POLICIES.map((n, i) => {
    const p = AUTO_PILOTS[n - 1]!;
    const at = utc(p.created) + 10 * HOUR_MS + shift;
    return [
      str(id(KIND.reviewee, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(policy(n)),
      str(viewer),
      ts(at),
    ];
  });
}

const APPROVALS = [
  { n: 2, status: 'Approved', comment: 'Dry run results look right', day: '2026-02-26' },
  { n: 3, status: 'Pending', comment: null as string | null, day: '2026-02-27' },
];

function approvalRows({ d, admin, viewer, id, pilot, policy, shift }: AutomationContext): Cell[][] {
  return APPROVALS.map((a, i) => {
    const p = AUTO_PILOTS[a.n - 1]!;
    const at = utc(a.day) + 9 * HOUR_MS + shift;
    return [
      str(id(KIND.approval, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(policy(a.n)),
      str(pilot(a.n)),
      str(p.category),
      str(admin),
      str(a.comment),
      str(a.status),
      json({ requested_by: viewer }),
      ts(at),
      ts(a.status === 'Pending' ? at : at + 2 * HOUR_MS),
    ];
  });
}

const PLAYBOOKS = [
  {
    account: 'aws' as const,
    name: 'Restart pods after OOMKilled',
    status: 'ACTIVE',
    execution: 'Completed',
    trigger: { event: 'Container OOMKilled' },
    created: '2026-01-15',
  },
  {
    account: 'gcp' as const,
    name: 'Collect diagnostics on degraded workloads',
    status: 'DISABLED',
    execution: 'Skipped',
    trigger: { event: 'Replicas mismatch' },
    created: '2026-02-03',
  },
];

function playbookRows({ d, admin, id, shift }: AutomationContext): Cell[][] {
  return PLAYBOOKS.map((p, i) => {
    const at = utc(p.created) + 11 * HOUR_MS + shift;
    return [
      str(id(KIND.autoPlaybook, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(p.name),
      str(p.status),
      str(p.execution),
      json(p.trigger),
      json({ namespaces: ['production'] }),
      json([{ action: i === 0 ? 'restart_pod' : 'collect_logs' }, { action: 'notify_slack' }]),
      json({ max_parallel: 1 }),
      json({ channels: ['slack'] }),
      ts(at),
      ts(null),
      ts(utc('2026-02-25') + 4 * HOUR_MS),
      ts(utc('2026-02-25') + 4 * HOUR_MS),
      ts(at),
      str(admin),
      ts(at),
      str(admin),
    ];
  });
}

const PLAYBOOK_EXECUTIONS = [
  { playbook: 1, status: 'Completed', day: '2026-02-18' },
  { playbook: 1, status: 'Failed', day: '2026-02-25' },
  { playbook: 2, status: 'Skipped', day: '2026-02-21' },
];

function playbookExecutionRows({ d, admin, id, shift }: AutomationContext): Cell[][] {
  return PLAYBOOK_EXECUTIONS.map((e, i) => {
    const p = PLAYBOOKS[e.playbook - 1]!;
    const at = utc(e.day) + 4 * HOUR_MS + shift;
    return [
      str(id(KIND.playbookExecution, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.account]),
      str(id(KIND.autoPlaybook, e.playbook)),
      str(e.status),
      json({ trigger: p.trigger }),
      json(e.status === 'Failed' ? { failed_task: 2 } : null),
      ts(at),
      str(e.status === 'Skipped' ? admin : null),
      ts(at),
      ts(at + 10 * 60_000),
    ];
  });
}

/** The tasks of the first playbook's two executions: `action` numbers the shared playbook actions. */
const PLAYBOOK_TASKS = [
  {
    execution: 1,
    name: 'Restart payments-worker pod',
    action: 1,
    status: 'Complete',
    result: 'pod restarted',
    error: null as string | null,
  },
  {
    execution: 1,
    name: 'Notify #payments-oncall',
    action: 3,
    status: 'Complete',
    result: 'message sent',
    error: null,
  },
  {
    execution: 2,
    name: 'Restart payments-worker pod',
    action: 1,
    status: 'Complete',
    result: 'pod restarted',
    error: null,
  },
  {
    execution: 2,
    name: 'Notify #payments-oncall',
    action: 3,
    status: 'Failed',
    result: null,
    error: 'Slack webhook answered 404',
  },
];

function playbookTaskRows({ d, id, shift, payments }: AutomationContext): Cell[][] {
  return PLAYBOOK_TASKS.map((k, i) => {
    const e = PLAYBOOK_EXECUTIONS[k.execution - 1]!;
    const at = utc(e.day) + 4 * HOUR_MS + shift + (i % 2) * 60_000;
    return [
      str(id(KIND.playbookTask, i + 1)),
      str(d.id),
      str(d.cloudAccounts.aws),
      str(id(KIND.autoPlaybook, 1)),
      str(id(KIND.playbookExecution, k.execution)),
      str(demoId(GLOBAL_PREFIX, KIND.playbookAction, k.action)),
      str(k.name),
      str(k.action === 1 ? 'kubernetes' : 'notification'),
      str('action'),
      str(k.status),
      json({ order: (i % 2) + 1 }),
      json({ workload: payments.w.name }),
      json({ namespace: payments.w.namespace, name: payments.w.name }),
      str(k.result),
      str(k.error),
      str(null),
      ts(at),
      ts(at),
      ts(at + 30_000),
    ];
  });
}

function automationFamilySection(t: TenantSpec, resources: readonly Resource[]): string {
  const c = automationContext(t, resources);
  return [
    insert('auto_pilot_task', COLUMNS.auto_pilot_task, autoPilotTaskRows(c)),
    insert('auto_optimize_resource_map', COLUMNS.auto_optimize_resource_map, autoOptimizeResourceRows(c)),
    insert('auto_pilot_reviewers', COLUMNS.auto_pilot_reviewers, reviewerRows(c)),
    insert('auto_pilot_reviewee', COLUMNS.auto_pilot_reviewee, revieweeRows(c)),
    insert('auto_pilot_approvals', COLUMNS.auto_pilot_approvals, approvalRows(c)),
    insert('auto_playbook', COLUMNS.auto_playbook, playbookRows(c)),
    insert('auto_playbook_executions', COLUMNS.auto_playbook_executions, playbookExecutionRows(c)),
    insert('auto_playbook_task', COLUMNS.auto_playbook_task, playbookTaskRows(c)),
  ].join('\n');
}

/** Agent n runs in the cluster of AGENT_ACCOUNTS[n - 1]. */
const AGENT_ACCOUNTS = ['aws', 'gcp'] as const;

function agentRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return AGENT_ACCOUNTS.map((key, i) => {
    const account = accountOf(t, key);
    const connected = i === 0 || t.key === 'acme';
    const seen = utc('2026-02-28') + (connected ? 23 : 2) * HOUR_MS;
    return [
      str(id(KIND.agent, i + 1)),
      str(d.id),
      str(d.cloudAccounts[key]),
      str('kubernetes'),
      str(connected ? 'connected' : 'disconnected'),
      str(connected ? null : 'No heartbeat for 21 hours'),
      str('2.14.1'),
      str(key === 'aws' ? 'eks' : 'gke'),
      str('1.29'),
      str(`agk_${t.key}_${key}`),
      str(null),
      str(null),
      json({ cluster: account.cluster, heartbeat: connected ? 'ok' : 'missed' }),
      ts(seen),
      ts(seen),
      ts(utc(account.createdAt) + 12 * DAY_MS),
      ts(seen),
    ];
  });
}

const AGENT_TASKS = [
  {
    agent: 1,
    action: 'restart_pod',
    workload: 'payments-worker',
    status: 'completed',
    source: 'auto_playbook',
    day: '2026-02-18',
  },
  { agent: 1, action: 'collect_logs', workload: 'api-server', status: 'completed', source: 'ai', day: '2026-02-22' },
  {
    agent: 2,
    action: 'scale_workload',
    workload: 'ml-inference',
    status: 'pending',
    source: 'auto_pilot',
    day: '2026-02-27',
  },
];

function agentTaskRows(t: TenantSpec): Cell[][] {
  const { d, admin, id } = refsOf(t);
  const workloads = demoWorkloads(t);
  return AGENT_TASKS.map((k, i) => {
    const key = AGENT_ACCOUNTS[k.agent - 1]!;
    const wl = workloads.find((w) => w.account === key && w.w.name === k.workload)!;
    const at = utc(k.day) + 4 * HOUR_MS;
    return [
      str(id(KIND.agentTask, i + 1)),
      str(d.id),
      str(d.cloudAccounts[key]),
      str(id(KIND.agent, k.agent)),
      str(k.action),
      json({ namespace: wl.w.namespace, workload: wl.w.name }),
      json(k.status === 'completed' ? { ok: true } : null),
      str(wl.resourceId),
      str(k.source),
      str(k.source === 'auto_playbook' ? id(KIND.playbookExecution, 1) : null),
      str(k.status),
      str(new Date(at).toISOString()),
      str(admin),
      str(new Date(at + (k.status === 'completed' ? 90_000 : 0)).toISOString()),
    ];
  });
}

/** Calls the agents made to the platform's API. */
const AGENT_CALLS = [
  { agent: 1, method: 'POST', url: '/api/agent/v1/sync', status: 200, ms: 184 },
  { agent: 1, method: 'GET', url: '/api/agent/v1/tasks', status: 200, ms: 32 },
  { agent: 2, method: 'POST', url: '/api/agent/v1/sync', status: 401, ms: 12 },
];

function agentAuditLogRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return AGENT_CALLS.map((c, i) => {
    const at = utc('2026-02-28') + (2 + i) * HOUR_MS;
    return [
      str(id(KIND.agentAuditLog, i + 1)),
      str(d.id),
      str(d.cloudAccounts[AGENT_ACCOUNTS[c.agent - 1]!]),
      str(id(KIND.agent, c.agent)),
      str(`10.${t.key === 'acme' ? 0 : 1}.${c.agent}.${10 + i}`),
      str(c.method),
      str(c.url),
      num(c.status),
      num(c.ms),
      json({ 'user-agent': 'platform-agent/2.14.1' }),
      str(new Date(at).toISOString()),
      ts(at),
    ];
  });
}

const AGENT_PLAYBOOKS = [
  {
    key: 'aws' as const,
    alert: 'KubePodCrashLooping',
    source: 'user',
    processor: 'pod_events',
    trigger: { on: 'prometheus_alert' },
    action: { action: 'logs_enricher' },
  },
  {
    key: 'gcp' as const,
    alert: 'KubeDeploymentReplicasMismatch',
    source: 'agent',
    processor: 'deployment_status',
    trigger: { on: 'prometheus_alert' },
    action: { action: 'deployment_events_enricher' },
  },
];

function agentPlaybookRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return AGENT_PLAYBOOKS.map((p, i) => {
    const at = utc('2026-01-20') + i * DAY_MS + 10 * HOUR_MS;
    return [
      str(id(KIND.agentPlaybook, i + 1)),
      str(d.id),
      str(d.cloudAccounts[p.key]),
      str(p.alert),
      str(p.source),
      str(p.processor),
      json(p.trigger),
      json(p.action),
      str(new Date(at).toISOString()),
      str(new Date(at).toISOString()),
    ];
  });
}

function agentSection(t: TenantSpec): string {
  return [
    insert('agent', COLUMNS.agent, agentRows(t)),
    insert('agent_task', COLUMNS.agent_task, agentTaskRows(t)),
    insert('agent_audit_log', COLUMNS.agent_audit_log, agentAuditLogRows(t)),
    insert('agent_playbook', COLUMNS.agent_playbook, agentPlaybookRows(t)),
  ].join('\n');
}

const KG_SYNCED = utc('2026-02-28') + 4 * HOUR_MS;

/** The graph of the aws account's cluster: the cluster, its production namespace and two of its workloads. */
function knowledgeGraphNodes(t: TenantSpec) {
  const account = accountOf(t, 'aws');
  const production = WORKLOADS.aws.filter((w) => w.namespace === 'production').slice(0, 2);
  return [
    {
      key: `cluster:${account.cluster}`,
      type: 'Cluster',
      level: 'cluster',
      labels: { cluster: account.cluster } as Record<string, string | null>,
    },
    {
      key: `namespace:${account.cluster}/production`,
      type: 'Namespace',
      level: 'namespace',
      labels: { cluster: account.cluster, namespace: 'production' },
    },
    ...production.map((w) => ({
      key: `workload:${account.cluster}/production/${w.name}`,
      type: w.type,
      level: 'workload',
      labels: { cluster: account.cluster, namespace: 'production', app: w.name },
    })),
  ];
}

function knowledgeGraphNodeRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  return knowledgeGraphNodes(t).map((n, i) => [
    str(id(KIND.kgNode, i + 1)),
    str(d.id),
    str(d.cloudAccounts.aws),
    str(n.key),
    str(n.type),
    str(n.level),
    json(n.labels),
    json({
      name: n.key
        .split('/')
        .pop()!
        .replace(/^[a-z]+:/, ''),
    }),
    json({ kind: n.type }),
    bool(true),
    num(42),
    ts(KG_SYNCED - 30 * DAY_MS),
    ts(KG_SYNCED),
  ]);
}

/** From and to are numbers of the nodes of knowledgeGraphNodes (1-based). */
const KG_EDGES = [
  [1, 2, 'CONTAINS'],
  [2, 3, 'CONTAINS'],
  [2, 4, 'CONTAINS'],
  [3, 4, 'CALLS'],
] as const;

function knowledgeGraphEdgeRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  const nodes = knowledgeGraphNodes(t);
  return KG_EDGES.map(([from, to, type], i) => [
    str(id(KIND.kgEdge, i + 1)),
    str(d.id),
    str(d.cloudAccounts.aws),
    str(id(KIND.kgNode, from)),
    str(id(KIND.kgNode, to)),
    str(type),
    str(nodes[to - 1]!.level),
    json(type === 'CALLS' ? { protocol: 'http', port: 8080 } : {}),
    ts(KG_SYNCED - 30 * DAY_MS),
    ts(KG_SYNCED),
  ]);
}

function knowledgeGraphMetadataRows(t: TenantSpec): Cell[][] {
  const { d, id } = refsOf(t);
  const nodes = knowledgeGraphNodes(t);
  const metadata = [
    { key: 'namespace', type: 'label', value: [...new Set(WORKLOADS.aws.map((w) => w.namespace))].sort() },
    { key: 'node_type', type: 'attribute', value: [...new Set(nodes.map((n) => n.type))].sort() },
  ];
  return metadata.map((m, i) => [
    str(id(KIND.kgMetadata, i + 1)),
    str(d.id),
    str(d.cloudAccounts.aws),
    str(m.key),
    str(m.type),
    json(m.value),
    json({ source: 'knowledge_graph_sync' }),
    ts(KG_SYNCED),
  ]);
}

function knowledgeGraphSection(t: TenantSpec): string {
  return [
    insert('knowledge_graph_node', COLUMNS.knowledge_graph_node, knowledgeGraphNodeRows(t)),
    insert('knowledge_graph_edge', COLUMNS.knowledge_graph_edge, knowledgeGraphEdgeRows(t)),
    insert('knowledge_graph_metadata', COLUMNS.knowledge_graph_metadata, knowledgeGraphMetadataRows(t)),
  ].join('\n');
}

function catalogueId(kind: number, n: number): string {
  return demoId(GLOBAL_PREFIX, kind, n);
}

const CATALOGUE_AT = ts(utc('2025-12-01'));
const CATALOGUE_ATZ = str('2025-12-01T00:00:00Z');

/** On-demand prices of the instance types the demo resources use. */
const PRICE_LIST = [
  {
    provider: 'AWS',
    service: 'Amazon EC2',
    type: 'm5.xlarge',
    region: 'us-east-1',
    capacity: { vcpu: 4, memory_gib: 16 },
    cost: 0.192,
    spot: { price: 0.071 },
  },
  {
    provider: 'AWS',
    service: 'Amazon EC2',
    type: 'c5.xlarge',
    region: 'us-east-1',
    capacity: { vcpu: 4, memory_gib: 8 },
    cost: 0.17,
    spot: { price: 0.064 },
  },
  {
    provider: 'AWS',
    service: 'Amazon RDS',
    type: 'db.r6g.large',
    region: 'us-east-1',
    capacity: { vcpu: 2, memory_gib: 16 },
    cost: 0.258,
    spot: null,
  },
  {
    provider: 'GCP',
    service: 'Compute Engine',
    type: 'n2-standard-4',
    region: 'us-central1',
    capacity: { vcpu: 4, memory_gib: 16 },
    cost: 0.194,
    spot: { price: 0.047 },
  },
];

function priceListRows(): Cell[][] {
  return PRICE_LIST.map((p, i) => [
    str(catalogueId(KIND.resourceDetail, i + 1)),
    str(p.provider),
    str(p.service),
    str(p.service === 'Amazon RDS' ? 'database' : 'compute'),
    str(p.type),
    str(p.region),
    json(p.capacity),
    num(p.cost),
    str('Hrs'),
    str('OnDemand'),
    json(p.spot),
    str(p.service === 'Amazon RDS' ? 'Single-AZ' : 'NA'),
    str(p.service === 'Amazon RDS' ? 'PostgreSQL' : 'NA'),
    str('Linux'),
    str(p.type.startsWith('db.r6g') ? 'arm64' : 'x86_64'),
    str('EBS only'),
    str('Up to 10 Gigabit'),
    str('Shared'),
    num(0),
    bool(true),
    json({ family: p.type.split(/[.-]/)[0] }),
    CATALOGUE_ATZ,
    CATALOGUE_ATZ,
  ]);
}

const AUTOPILOT_ATTRIBUTES = [
  ['category', 'Cost'],
  ['category', 'RightSizing'],
  ['trigger_type', 'event'],
  ['trigger_type', 'recommendation'],
  ['trigger_type', 'schedule'],
];

function autopilotAttributeRows(): Cell[][] {
  return AUTOPILOT_ATTRIBUTES.map(([key, value], i) => [
    str(catalogueId(KIND.autopilotAttribute, i + 1)),
    str(key!),
    str(value!),
  ]);
}

const PLAYBOOK_ACTIONS = [
  {
    name: 'restart_pod',
    source: 'kubernetes',
    category: 'remediation',
    description: 'Deletes a pod so that its controller starts a new one',
    config: { params: ['namespace', 'name'] },
  },
  {
    name: 'collect_logs',
    source: 'kubernetes',
    category: 'diagnostics',
    description: "Collects the last lines of a workload's logs",
    config: { params: ['namespace', 'name', 'lines'] },
  },
  {
    name: 'notify_slack',
    source: 'slack',
    category: 'notification',
    description: 'Posts a message to a Slack channel',
    config: { params: ['channel', 'message'] },
  },
];

function playbookActionRows(): Cell[][] {
  return PLAYBOOK_ACTIONS.map((a, i) => [
    str(catalogueId(KIND.playbookAction, i + 1)),
    str(a.name),
    str(a.source),
    str(a.category),
    str(a.description),
    json(a.config),
    CATALOGUE_AT,
    CATALOGUE_AT,
  ]);
}

const AGENT_PLAYBOOK_ACTIONS = [
  { name: 'logs_enricher', display: 'Attach pod logs', category: 'enricher', mode: 'sync', params: { lines: 200 } },
  {
    name: 'deployment_events_enricher',
    display: 'Attach deployment events',
    category: 'enricher',
    mode: 'sync',
    params: {},
  },
  {
    name: 'delete_pod',
    display: 'Delete pod',
    category: 'remediation',
    mode: 'async',
    params: { grace_period_seconds: 30 },
  },
];

function agentPlaybookActionRows(): Cell[][] {
  return AGENT_PLAYBOOK_ACTIONS.map((a) => [
    str(a.name),
    str(a.display),
    str(a.name),
    str(a.category),
    str(`${a.display} to the alert`),
    str(a.mode),
    str('agent'),
    json(a.params),
  ]);
}

const AGENT_PLAYBOOK_PROCESSORS = [
  ['deployment_status', 'Reads the status of the deployment the alert names'],
  ['pod_events', 'Reads the events of the pod the alert names'],
];

const AGENT_PLAYBOOK_TRIGGERS = [
  ['on_prometheus_alert', { status: 'firing' }],
  ['on_pod_crash_loop', { restart_count: 3 }],
] as const;

const KNOWLEDGE_BASE = [
  {
    rule: 'ec2_idle_instance',
    description: 'An EC2 instance has had almost no CPU or network use for 30 days.',
    diagnosis: 'Check CloudWatch CPUUtilization and NetworkIn/Out over 30 days.',
    impact: 'You pay for capacity nobody uses.',
    mitigation: 'Stop or terminate the instance; snapshot its volumes first if needed.',
  },
  {
    rule: 'rds_rightsizing',
    description: 'An RDS instance is larger than its load needs.',
    diagnosis: 'Compare CPU, memory and connections with the instance class.',
    impact: 'Part of the database spend buys idle capacity.',
    mitigation: 'Move to the next smaller instance class in a maintenance window.',
  },
  {
    rule: 's3_bucket_public_access',
    description: 'A bucket policy or ACL lets anyone read objects.',
    diagnosis: 'Review the bucket policy, ACLs and Block Public Access settings.',
    impact: 'Data can leak to the internet.',
    mitigation: 'Turn on Block Public Access and remove public grants.',
  },
  {
    rule: 'cloudsql_public_ip',
    description: 'A Cloud SQL instance accepts connections from any address.',
    diagnosis: 'Look for 0.0.0.0/0 in the authorised networks.',
    impact: 'The database is exposed to brute-force attempts.',
    mitigation: 'Use private IP or restrict the authorised networks.',
  },
];

function knowledgeBaseRows(): Cell[][] {
  return KNOWLEDGE_BASE.map((k, i) => [
    str(catalogueId(KIND.knowledgeBase, i + 1)),
    str(k.rule),
    str(k.description),
    str(k.diagnosis),
    str(k.impact),
    str(k.mitigation),
    CATALOGUE_ATZ,
    CATALOGUE_ATZ,
  ]);
}

/** The shared catalogues: price list, auto-pilot attributes, playbook actions, agent playbook parts, knowledge base. */
function sharedCatalogueSection(): string {
  return [
    '-- Shared catalogues (no tenant)\n',
    insert('cloud_resource_details', COLUMNS.cloud_resource_details, priceListRows()),
    insert('autopilot_attributes', COLUMNS.autopilot_attributes, autopilotAttributeRows()),
    insert('auto_playbook_actions', COLUMNS.auto_playbook_actions, playbookActionRows()),
    insert('agent_playbook_action', COLUMNS.agent_playbook_action, agentPlaybookActionRows()),
    insert(
      'agent_playbook_processor',
      COLUMNS.agent_playbook_processor,
      AGENT_PLAYBOOK_PROCESSORS.map(([name, value]) => [str(name!), str(value!)]),
    ),
    insert(
      'agent_playbook_trigger',
      COLUMNS.agent_playbook_trigger,
      AGENT_PLAYBOOK_TRIGGERS.map(([name, params]) => [str(name), json(params)]),
    ),
    insert('knowledge_base', COLUMNS.knowledge_base, knowledgeBaseRows()),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

/** The whole demo script: identical text on every call. */
export function demoDataSql(): string {
  const parts: string[] = ['-- Demo data: tenants Acme Corp and Globex Industries (generated by demo/demo-data.ts).\n'];
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
  // The tables of the catalogue families (sql/0009 onwards) come after, so that the script above is unchanged.
  parts.push(sharedCatalogueSection());
  for (const t of TENANTS) {
    const resources = buildResources(t);
    parts.push(
      `-- ${DEMO.tenants[t.key].name}: catalogue families\n`,
      costManagementSection(t),
      anomalySection(t),
      eventFamilySection(t, resources),
      recommendationResolutionSection(t),
      cloudInfrastructureSection(t, resources),
      kubernetesSection(t),
      automationFamilySection(t, resources),
      agentSection(t),
      knowledgeGraphSection(t),
    );
  }
  return parts.join('\n');
}
