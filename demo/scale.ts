/**
 * Generated demo data at a chosen scale, added on top of the fixed demo set of `demo-data.ts`.
 *
 * Scale N gives `14 × N` generated cloud accounts (rounded, at least one), dealt in turn to the
 * tenants (Acme, Globex and, when asked, more generated tenants with an admin and a read-only user
 * each). Every account has 40 resources over two or three regions and 180 days of daily spends per
 * resource (7,200 spend lines), so scale N holds about 100,800 × N spend lines: scale 100 is about
 * ten million. Every other account of a tenant runs a Kubernetes cluster (nodes, namespaces,
 * workloads, pods, an agent, playbooks); every account has recommendations tied to its resources,
 * events and anomalies spread over the 180 days, auto-pilots with their approval policy, and its
 * part of the knowledge graph. `SHAPE` holds the numbers and `expectedCounts` the row count of
 * every table.
 *
 * Deterministic: every value comes from a seeded PRNG whose seed is derived from the tenant, the
 * account's number and the table, so two runs give the same rows, a table's rows do not depend on
 * the other tables', and account n's rows do not depend on how many accounts there are. That makes
 * a larger scale a superset of a smaller one (same tenants): going from scale 1 to scale 10 adds
 * accounts 15 to 140 and nothing else.
 *
 * Ids: `<tenant>-<kind>-4000-9000-<account:6 hex><n:6 hex>`. <tenant> is the tenant's id prefix
 * (11111111 Acme, 22222222 Globex, a0000003... generated tenants), <kind> the same table numbers as
 * the fixed set; the fixed set's ids have 8000 where these have 9000, so the two never meet.
 *
 * Rows are arrays of plain values: strings (timestamps are already text), numbers, booleans, null,
 * and objects or arrays for json/jsonb columns. `load.ts` writes them with COPY or INSERT.
 */
import { COLUMNS } from './columns';
import { DEMO, KIND } from './demo-data';

export type Value = string | number | boolean | null | object;
export type Row = Value[];

export interface GeneratedTable {
  name: string;
  /** Column names as SQL (quoted where they must be). */
  columns: readonly string[];
  /** How many rows `batches` yields (the formula of `expectedCounts`). */
  count: number;
  /** The rows, one batch per account (or one batch for rows that belong to no account). */
  batches(): Iterable<Row[]>;
}

// ---------------------------------------------------------------------------------------------
// The shape

export const SHAPE = {
  accountsPerScale: 14,
  resourcesPerAccount: 40,
  spendDays: 180,
  /** The last spend day, the same as the fixed set's: the demo's "today" is 2026-03-01. */
  lastSpendDay: '2026-02-28',
  recommendationsPerAccount: 6,
  eventsPerAccount: 30,
  anomalyConfigsPerAccount: 2,
  anomaliesPerAccount: 10,
  autoPilotsPerAccount: 2,
  autoPilotTasksPerAutoPilot: 2,
  /** Accounts whose number within their tenant is odd run a cluster. */
  cluster: {
    nodes: 5,
    namespaces: 5,
    workloads: 12,
    /** The sum of the workloads' replicas: one pod per replica. */
    pods: 26,
    playbooks: 2,
    executionsPerPlaybook: 3,
    tasksPerExecution: 2,
    agentTasks: 3,
  },
  /** Knowledge graph: the account and its resources; clusters add namespaces, workloads and nodes. */
  graph: { nodesPerAccount: 41, edgesPerAccount: 40, nodesPerCluster: 22, edgesPerCluster: 28 },
} as const;

export interface ScaleOptions {
  /** Positive; 1 is about 100,000 spend lines. */
  scale: number;
  /** Tenants in all, at least 2: Acme and Globex, then generated ones. */
  tenants: number;
}

export interface ScalePlan {
  scale: number;
  tenants: SeedTenant[];
  /** Accounts 1..fromAccount are there already; this plan adds fromAccount+1..toAccount. */
  fromAccount: number;
  toAccount: number;
}

export function accountsForScale(scale: number): number {
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`scale must be a positive number, got ${scale}`);
  return Math.max(1, Math.round(SHAPE.accountsPerScale * scale));
}

/** What `scale` adds to a database that holds the generated accounts 1..`seededAccounts` already. */
export function planScale(opts: ScaleOptions, seededAccounts = 0): ScalePlan {
  if (!Number.isInteger(opts.tenants) || opts.tenants < 2)
    throw new Error(`tenants must be an integer of at least 2, got ${opts.tenants}`);
  const toAccount = Math.max(seededAccounts, accountsForScale(opts.scale));
  return { scale: opts.scale, tenants: seedTenants(opts.tenants), fromAccount: seededAccounts, toAccount };
}

// ---------------------------------------------------------------------------------------------
// Deterministic helpers

type Rng = () => number;

/** mulberry32: a small, fast seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a few integers (FNV-1a steps and a murmur3 finaliser): the seed of one stream. */
function seedOf(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

function weighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of items) total += w;
  let r = rng() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1]![0];
}

function between(rng: Rng, lo: number, hi: number): number {
  return lo + (hi - lo) * rng();
}

function cents(x: number): number {
  return Math.round(x * 100) / 100;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const LAST_DAY = Date.parse(`${SHAPE.lastSpendDay}T00:00:00Z`);
const FIRST_DAY = LAST_DAY - (SHAPE.spendDays - 1) * DAY_MS;
/** The demo's "now": the end of the last spend day. */
const NOW = LAST_DAY + DAY_MS - 1000;

/** `timestamp` text, second precision. */
function ts(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `timestamptz` text, in UTC. */
function tsz(ms: number): string {
  return `${ts(ms)}+00`;
}

/** Streams of random numbers, one per table, so that tables do not shift each other. */
const STREAM = {
  account: 1,
  resources: 2,
  spends: 3,
  recommendations: 4,
  k8s: 5,
  events: 6,
  anomalies: 7,
  autopilot: 8,
  playbooks: 9,
  agents: 10,
  graph: 11,
  usage: 12,
} as const;

/** The fixed set's playbook actions (shared catalogue): restart_pod, collect_logs, notify_slack. */
const PLAYBOOK_ACTION = {
  restart_pod: '00000000-0042-4000-8000-000000000001',
  collect_logs: '00000000-0042-4000-8000-000000000002',
  notify_slack: '00000000-0042-4000-8000-000000000003',
} as const;

// ---------------------------------------------------------------------------------------------
// Tenants

export interface SeedUser {
  id: string;
  username: string;
  displayName: string;
  role: 'tenant_admin' | 'tenant_admin_readonly';
}

export interface SeedTenant {
  /** 1-based; 1 and 2 are Acme and Globex. */
  n: number;
  id: string;
  /** The first group of every id of the tenant's rows. */
  prefix: string;
  slug: string;
  name: string;
  seed: number;
  admin: SeedUser;
  viewer: SeedUser;
  /** False for Acme and Globex, which the fixed set creates. */
  generated: boolean;
  createdAt: number;
}

const TENANT_NAMES = [
  'Initech',
  'Umbrella Health',
  'Stark Logistics',
  'Wayne Media',
  'Hooli',
  'Soylent Foods',
  'Tyrell Systems',
  'Cyberdyne Robotics',
  'Wonka Retail',
  'Vandelay Imports',
  'Massive Dynamic',
  'Oscorp Energy',
  'Pied Piper',
  'Gringotts Finance',
  'Monarch Airlines',
  'Duff Beverages',
  'Aperture Labs',
  'Black Mesa Research',
];

const FIRST_NAMES = [
  'Ada',
  'Bruno',
  'Chen',
  'Dana',
  'Emil',
  'Fatima',
  'Goran',
  'Hana',
  'Ivan',
  'Jade',
  'Kofi',
  'Lena',
  'Mateo',
  'Nora',
  'Omar',
  'Priya',
];

function seedTenants(count: number): SeedTenant[] {
  const out: SeedTenant[] = [];
  const fixed = [
    ['acme', DEMO.tenants.acme, '2025-03-10'],
    ['globex', DEMO.tenants.globex, '2025-04-22'],
  ] as const;
  fixed.forEach(([slug, t, created], i) => {
    out.push({
      n: i + 1,
      id: t.id,
      prefix: t.id.slice(0, 8),
      slug,
      name: t.name,
      seed: parseInt(t.id.slice(0, 8), 16),
      admin: { ...t.users.admin },
      viewer: { ...t.users.readonly },
      generated: false,
      createdAt: Date.parse(`${created}T00:00:00Z`),
    });
  });
  for (let n = 3; n <= count; n++) {
    const base = TENANT_NAMES[(n - 3) % TENANT_NAMES.length]!;
    const round = Math.floor((n - 3) / TENANT_NAMES.length);
    const name = round === 0 ? base : `${base} ${round + 1}`;
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const prefix = `a${hex(n, 7)}`;
    const rng = mulberry32(seedOf(n, 0x7e4a47));
    const first = (i: number) => FIRST_NAMES[(n * 2 + i) % FIRST_NAMES.length]!;
    const user = (i: number, role: SeedUser['role']): SeedUser => ({
      id: `${prefix}-${hex(KIND.user, 4)}-4000-9000-${hex(i, 12)}`,
      username: `${first(i).toLowerCase()}.${role === 'tenant_admin' ? 'admin' : 'viewer'}@${slug}.example.com`,
      displayName: `${first(i)} ${role === 'tenant_admin' ? 'Admin' : 'Viewer'}`,
      role,
    });
    out.push({
      n,
      id: `${prefix}-${hex(KIND.tenant, 4)}-4000-9000-${hex(1, 12)}`,
      prefix,
      slug,
      name,
      seed: parseInt(prefix, 16),
      admin: user(1, 'tenant_admin'),
      viewer: user(2, 'tenant_admin_readonly'),
      generated: true,
      createdAt: Date.parse('2025-02-01T00:00:00Z') + Math.floor(rng() * 150) * DAY_MS,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Accounts and resources

type Provider = 'AWS' | 'GCP' | 'Azure';
type ResourceClass =
  'compute' | 'disk' | 'database' | 'storage' | 'serverless' | 'network' | 'cache' | 'data' | 'cluster';

interface ResourceTemplate {
  cls: ResourceClass;
  type: string;
  service: string;
  /** Daily cost range before the environment's factor. */
  daily: readonly [number, number];
  weight: number;
  sizes?: readonly string[];
  /** Cost falls at weekends (autoscaled or scheduled compute). */
  weekendDip?: boolean;
}

const RESOURCE_TEMPLATES: Record<Provider, readonly ResourceTemplate[]> = {
  AWS: [
    {
      cls: 'compute',
      type: 'ec2_instance',
      service: 'Amazon EC2',
      daily: [2.2, 42],
      weight: 10,
      sizes: ['t3.large', 'm5.xlarge', 'm5.2xlarge', 'c5.2xlarge', 'r6g.xlarge', 'm6i.4xlarge'],
      weekendDip: true,
    },
    {
      cls: 'disk',
      type: 'ebs_volume',
      service: 'Amazon EBS',
      daily: [0.4, 6],
      weight: 5,
      sizes: ['gp3 100 GiB', 'gp3 500 GiB', 'gp2 1 TiB', 'io2 200 GiB'],
    },
    {
      cls: 'database',
      type: 'rds_instance',
      service: 'Amazon RDS',
      daily: [8, 65],
      weight: 3,
      sizes: ['db.t4g.large', 'db.r6g.large', 'db.r6g.xlarge', 'db.m6g.2xlarge'],
    },
    { cls: 'storage', type: 's3_bucket', service: 'Amazon S3', daily: [0.1, 14], weight: 4 },
    {
      cls: 'serverless',
      type: 'lambda_function',
      service: 'AWS Lambda',
      daily: [0.02, 4],
      weight: 4,
      weekendDip: true,
    },
    { cls: 'network', type: 'load_balancer', service: 'Elastic Load Balancing', daily: [0.6, 7], weight: 2 },
    {
      cls: 'cache',
      type: 'elasticache_cluster',
      service: 'Amazon ElastiCache',
      daily: [3, 16],
      weight: 1,
      sizes: ['cache.t4g.medium', 'cache.r6g.large'],
    },
    { cls: 'data', type: 'dynamodb_table', service: 'Amazon DynamoDB', daily: [0.3, 22], weight: 2 },
  ],
  GCP: [
    {
      cls: 'compute',
      type: 'compute_instance',
      service: 'Compute Engine',
      daily: [1.8, 38],
      weight: 10,
      sizes: ['e2-standard-4', 'n2-standard-4', 'n2-standard-8', 'c3-standard-8', 'n2-highmem-4'],
      weekendDip: true,
    },
    {
      cls: 'disk',
      type: 'persistent_disk',
      service: 'Persistent Disk',
      daily: [0.3, 5],
      weight: 5,
      sizes: ['pd-balanced 200 GiB', 'pd-ssd 500 GiB', 'pd-standard 1 TiB'],
    },
    {
      cls: 'database',
      type: 'sql_instance',
      service: 'Cloud SQL',
      daily: [6, 48],
      weight: 3,
      sizes: ['db-custom-2-8192', 'db-custom-4-16384', 'db-custom-8-32768'],
    },
    { cls: 'storage', type: 'storage_bucket', service: 'Cloud Storage', daily: [0.1, 11], weight: 4 },
    {
      cls: 'serverless',
      type: 'cloud_run_service',
      service: 'Cloud Run',
      daily: [0.05, 5],
      weight: 3,
      weekendDip: true,
    },
    { cls: 'network', type: 'load_balancer', service: 'Cloud Load Balancing', daily: [0.6, 5], weight: 2 },
    {
      cls: 'cache',
      type: 'redis_instance',
      service: 'Memorystore',
      daily: [2, 12],
      weight: 1,
      sizes: ['basic 5 GiB', 'standard 10 GiB'],
    },
    { cls: 'data', type: 'bigquery_dataset', service: 'BigQuery', daily: [1, 45], weight: 3 },
  ],
  Azure: [
    {
      cls: 'compute',
      type: 'virtual_machine',
      service: 'Virtual Machines',
      daily: [2, 36],
      weight: 10,
      sizes: ['Standard_B2ms', 'Standard_D4s_v5', 'Standard_D8s_v5', 'Standard_E4s_v5'],
      weekendDip: true,
    },
    {
      cls: 'disk',
      type: 'managed_disk',
      service: 'Managed Disks',
      daily: [0.3, 5],
      weight: 5,
      sizes: ['P10', 'P20', 'P30', 'E20'],
    },
    {
      cls: 'database',
      type: 'sql_database',
      service: 'Azure SQL Database',
      daily: [5, 40],
      weight: 3,
      sizes: ['S3', 'P1', 'GP_Gen5_4'],
    },
    { cls: 'storage', type: 'storage_account', service: 'Storage Accounts', daily: [0.1, 9], weight: 4 },
    {
      cls: 'serverless',
      type: 'function_app',
      service: 'Azure Functions',
      daily: [0.02, 3],
      weight: 3,
      weekendDip: true,
    },
    { cls: 'network', type: 'load_balancer', service: 'Load Balancer', daily: [0.5, 4], weight: 2 },
    {
      cls: 'cache',
      type: 'redis_cache',
      service: 'Azure Cache for Redis',
      daily: [1.5, 11],
      weight: 1,
      sizes: ['C1', 'C2', 'P1'],
    },
    { cls: 'data', type: 'cosmosdb_account', service: 'Azure Cosmos DB', daily: [1, 30], weight: 2 },
  ],
};

const CLUSTER_TEMPLATE: Record<Provider, ResourceTemplate> = {
  AWS: { cls: 'cluster', type: 'eks_cluster', service: 'Amazon EKS', daily: [2.4, 2.4], weight: 0 },
  GCP: { cls: 'cluster', type: 'gke_cluster', service: 'Kubernetes Engine', daily: [2.4, 2.4], weight: 0 },
  Azure: { cls: 'cluster', type: 'aks_cluster', service: 'Azure Kubernetes Service', daily: [2.4, 2.4], weight: 0 },
};

const REGIONS: Record<Provider, readonly string[]> = {
  AWS: ['us-east-1', 'us-east-2', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1'],
  GCP: ['us-central1', 'us-east1', 'europe-west1', 'europe-west4', 'asia-southeast1'],
  Azure: ['eastus', 'westus2', 'westeurope', 'northeurope', 'southeastasia'],
};

/** Short provider-side names of each class, for resource names and rule names. */
const SHORT: Record<Provider, Record<ResourceClass, string>> = {
  AWS: {
    compute: 'ec2',
    disk: 'ebs',
    database: 'rds',
    storage: 's3',
    serverless: 'lambda',
    network: 'elb',
    cache: 'elasticache',
    data: 'dynamodb',
    cluster: 'eks',
  },
  GCP: {
    compute: 'gce',
    disk: 'pd',
    database: 'cloudsql',
    storage: 'gcs',
    serverless: 'cloudrun',
    network: 'glb',
    cache: 'memorystore',
    data: 'bigquery',
    cluster: 'gke',
  },
  Azure: {
    compute: 'vm',
    disk: 'disk',
    database: 'sqldb',
    storage: 'storage',
    serverless: 'functions',
    network: 'lb',
    cache: 'redis',
    data: 'cosmos',
    cluster: 'aks',
  },
};

/** A tenant's accounts cycle through these providers. */
const PROVIDER_CYCLE: readonly Provider[] = ['AWS', 'GCP', 'AWS', 'Azure', 'AWS', 'GCP', 'AWS', 'Azure', 'GCP', 'AWS'];

const APPS = [
  'checkout',
  'orders',
  'payments',
  'search',
  'catalog',
  'auth',
  'billing',
  'reporting',
  'ingest',
  'analytics',
  'notifications',
  'inventory',
  'shipping',
  'recommender',
  'media',
  'gateway',
];

interface Account {
  /** The account's number among all generated accounts (1-based). */
  g: number;
  /** Its number within its tenant (1-based). */
  k: number;
  tenant: SeedTenant;
  id: string;
  provider: Provider;
  name: string;
  number: string;
  env: 'prod' | 'non_prod';
  envName: string;
  status: 'active' | 'disabled' | 'inactive';
  syncStatus: 'Completed' | 'Error' | 'Queued' | 'Running';
  syncMessage: string | null;
  region: string;
  regions: string[];
  created: number;
  /** Kubernetes cluster name, when the account runs one (its first resource). */
  cluster: string | null;
  approvalType: 'auto' | 'manual' | 'multi_level';
  budget: number;
  resources: Resource[];
}

interface Resource {
  j: number;
  id: string;
  name: string;
  tpl: ResourceTemplate;
  app: string;
  region: string;
  zone: string;
  size: string | null;
  status: 'Active' | 'Inactive' | 'Unknown';
  /** Typical daily cost. */
  daily: number;
  /** Daily growth of the cost, a fraction. */
  trend: number;
  firstSeen: number;
}

/** Availability zone `i` (0-2) of a region, as the provider names it. */
function zoneName(provider: Provider, region: string, i: number): string {
  return provider === 'Azure'
    ? `${region}-${i + 1}`
    : provider === 'GCP'
      ? `${region}-${'abc'[i]}`
      : `${region}${'abc'[i]}`;
}

function tenantOf(tenants: readonly SeedTenant[], g: number): { tenant: SeedTenant; k: number } {
  return { tenant: tenants[(g - 1) % tenants.length]!, k: Math.floor((g - 1) / tenants.length) + 1 };
}

function hasCluster(k: number): boolean {
  return k % 2 === 1;
}

function approvalTypeOf(k: number): Account['approvalType'] {
  return (['multi_level', 'auto', 'manual'] as const)[k % 3]!;
}

/** An id of one of the generated rows. */
function gid(tenant: SeedTenant, kind: number, g: number, n: number): string {
  return `${tenant.prefix}-${hex(kind, 4)}-4000-9000-${hex(g, 6)}${hex(n, 6)}`;
}

function externalId(a: Account, tpl: ResourceTemplate, name: string, region: string): string {
  switch (a.provider) {
    case 'AWS':
      return `arn:aws:${SHORT.AWS[tpl.cls]}:${region}:${a.number}:${tpl.type}/${name}`;
    case 'GCP':
      return `//${SHORT.GCP[tpl.cls]}.googleapis.com/projects/${a.number}/locations/${region}/${tpl.type}s/${name}`;
    case 'Azure':
      return `/subscriptions/${a.number}/resourceGroups/rg-${a.envName}-${a.k}/providers/${tpl.type}/${name}`;
  }
}

function accountSyncStatus(rng: Rng, status: Account['status']): Account['syncStatus'] {
  return status === 'inactive'
    ? 'Error'
    : status === 'disabled'
      ? 'Completed'
      : weighted(rng, [
          ['Completed', 80],
          ['Running', 10],
          ['Queued', 10],
        ] as const);
}

function accountSyncMessage(rng: Rng, syncStatus: Account['syncStatus']): string | null {
  return syncStatus === 'Error'
    ? pick(rng, [
        'Access denied: the role cannot be assumed',
        'Credentials expired; update the access key',
        'Billing export not found',
      ])
    : null;
}

/** Two or three of the provider's regions, every other one from a random start; the first is the account's. */
function accountRegionsOf(rng: Rng, provider: Provider): string[] {
  const regions = REGIONS[provider];
  const first = Math.floor(rng() * regions.length);
  const extra = 1 + Math.floor(rng() * 2);
  return Array.from({ length: extra + 1 }, (_, i) => regions[(first + i * 2) % regions.length]!);
}

/** An account number in the provider's form: 12 digits (AWS), a project id (GCP), a subscription uuid (Azure). */
function accountNumber(rng: Rng, provider: Provider, tenant: SeedTenant, app: string): string {
  return provider === 'AWS'
    ? String(100_000_000_000 + Math.floor(rng() * 899_999_999_999))
    : provider === 'GCP'
      ? `${tenant.slug}-${app}-${hex(Math.floor(rng() * 0xffff), 4)}`
      : `${hex(Math.floor(rng() * 0xffffffff), 8)}-${hex(Math.floor(rng() * 0xffff), 4)}-4${hex(Math.floor(rng() * 0xfff), 3)}-8${hex(Math.floor(rng() * 0xfff), 3)}-${hex(Math.floor(rng() * 0xffffff), 6)}${hex(Math.floor(rng() * 0xffffff), 6)}`;
}

/** Resource `j` of `account`, drawn from the account's resource stream `rr`. */
function buildResource(
  rr: Rng,
  account: Account,
  j: number,
  weights: readonly (readonly [ResourceTemplate, number])[],
): Resource {
  const { provider, cluster, tenant } = account;
  const envFactor = account.env === 'prod' ? 1.3 : 0.7;
  const tpl = j === 1 && cluster ? CLUSTER_TEMPLATE[provider] : weighted(rr, weights);
  const resourceApp = pick(rr, APPS);
  const region = rr() < 0.7 ? account.region : pick(rr, account.regions);
  const name =
    tpl.cls === 'cluster' ? cluster! : `${resourceApp}-${SHORT[provider][tpl.cls]}-${String(j).padStart(2, '0')}`;
  const status =
    tpl.cls === 'cluster'
      ? 'Active'
      : weighted(rr, [
          ['Active', 90],
          ['Inactive', 7],
          ['Unknown', 3],
        ] as const);
  const daily =
    between(rr, tpl.daily[0], tpl.daily[1]) *
    (tpl.cls === 'cluster' ? 1 : envFactor) *
    (status === 'Inactive' ? 0.04 : 1);
  const zone = zoneName(provider, region, Math.floor(rr() * 3));
  return {
    j,
    id: gid(tenant, KIND.resource, account.g, j),
    name,
    tpl,
    app: resourceApp,
    region,
    zone,
    size: tpl.sizes ? pick(rr, tpl.sizes) : null,
    status,
    daily,
    trend: between(rr, -0.0015, 0.004),
    firstSeen: account.created + Math.floor(rr() * 20) * DAY_MS + 10 * HOUR_MS,
  };
}

/** Fills `account.resources`; returns their monthly spend. */
function addResources(account: Account): number {
  // Resources: the cluster first (when there is one), then a weighted mix of the provider's kinds.
  const rr = mulberry32(seedOf(account.tenant.seed, account.g, STREAM.resources));
  const weights = RESOURCE_TEMPLATES[account.provider].map((t) => [t, t.weight] as const);
  let monthly = 0;
  for (let j = 1; j <= SHAPE.resourcesPerAccount; j++) {
    const resource = buildResource(rr, account, j, weights);
    account.resources.push(resource);
    monthly += resource.daily * 30;
  }
  return monthly;
}

function buildAccount(tenants: readonly SeedTenant[], g: number): Account {
  const { tenant, k } = tenantOf(tenants, g);
  const rng = mulberry32(seedOf(tenant.seed, g, STREAM.account));
  const provider = PROVIDER_CYCLE[(k - 1) % PROVIDER_CYCLE.length]!;
  const env = rng() < 0.45 ? 'prod' : 'non_prod';
  const envName = env === 'prod' ? 'prod' : pick(rng, ['dev', 'staging', 'sandbox', 'qa']);
  const status = weighted(rng, [
    ['active', 88],
    ['disabled', 6],
    ['inactive', 6],
  ] as const);
  const syncStatus = accountSyncStatus(rng, status);
  const accountRegions = accountRegionsOf(rng, provider);
  const app = pick(rng, APPS);
  const number = accountNumber(rng, provider, tenant, app);
  const short = provider.toLowerCase();
  const cluster = hasCluster(k)
    ? `${tenant.slug}-${envName}-${String(k).padStart(3, '0')}-${SHORT[provider].cluster}`
    : null;
  const created =
    Math.max(tenant.createdAt + DAY_MS, FIRST_DAY - (30 + Math.floor(rng() * 180)) * DAY_MS) + 9 * HOUR_MS;
  const account: Account = {
    g,
    k,
    tenant,
    id: gid(tenant, KIND.account, g, 0),
    provider,
    name: `${tenant.slug}-${short}-${envName}-${String(k).padStart(3, '0')}`,
    number,
    env,
    envName,
    status,
    syncStatus,
    syncMessage: accountSyncMessage(rng, syncStatus),
    region: accountRegions[0]!,
    regions: accountRegions,
    created,
    cluster,
    approvalType: approvalTypeOf(k),
    budget: 0,
    resources: [],
  };
  const monthly = addResources(account);
  account.budget = Math.ceil((monthly * between(rng, 1.05, 1.4)) / 100) * 100;
  return account;
}

function accountsOf(plan: ScalePlan): Iterable<Account> {
  return {
    *[Symbol.iterator]() {
      for (let g = plan.fromAccount + 1; g <= plan.toAccount; g++) yield buildAccount(plan.tenants, g);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Kubernetes templates

interface WorkloadTemplate {
  name: string;
  namespace: string;
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'CronJob';
  replicas: number;
  cpu: readonly [number, number];
  memMi: readonly [number, number];
}

const NAMESPACES = ['production', 'staging', 'data', 'monitoring', 'kube-system'] as const;

const WORKLOADS: readonly WorkloadTemplate[] = [
  { name: 'api-server', namespace: 'production', kind: 'Deployment', replicas: 4, cpu: [0.5, 1], memMi: [512, 1024] },
  {
    name: 'web-frontend',
    namespace: 'production',
    kind: 'Deployment',
    replicas: 3,
    cpu: [0.25, 0.5],
    memMi: [256, 512],
  },
  {
    name: 'payments-worker',
    namespace: 'production',
    kind: 'Deployment',
    replicas: 2,
    cpu: [0.5, 2],
    memMi: [1024, 2048],
  },
  { name: 'checkout', namespace: 'production', kind: 'Deployment', replicas: 3, cpu: [0.25, 1], memMi: [512, 1024] },
  { name: 'postgres', namespace: 'production', kind: 'StatefulSet', replicas: 1, cpu: [1, 2], memMi: [2048, 4096] },
  { name: 'api-server', namespace: 'staging', kind: 'Deployment', replicas: 1, cpu: [0.25, 0.5], memMi: [256, 512] },
  { name: 'web-frontend', namespace: 'staging', kind: 'Deployment', replicas: 1, cpu: [0.1, 0.25], memMi: [128, 256] },
  { name: 'nightly-etl', namespace: 'data', kind: 'CronJob', replicas: 1, cpu: [1, 2], memMi: [2048, 4096] },
  { name: 'kafka', namespace: 'data', kind: 'StatefulSet', replicas: 3, cpu: [1, 2], memMi: [4096, 8192] },
  {
    name: 'prometheus-server',
    namespace: 'monitoring',
    kind: 'StatefulSet',
    replicas: 1,
    cpu: [0.5, 1],
    memMi: [2048, 4096],
  },
  { name: 'grafana', namespace: 'monitoring', kind: 'Deployment', replicas: 1, cpu: [0.1, 0.25], memMi: [256, 512] },
  {
    name: 'fluent-bit',
    namespace: 'kube-system',
    kind: 'DaemonSet',
    replicas: SHAPE.cluster.nodes,
    cpu: [0.1, 0.2],
    memMi: [128, 256],
  },
];

const NODE_FLAVORS: Record<Provider, readonly [string, number, number, number][]> = {
  // flavor, vCPU, memory MiB, daily cost
  AWS: [
    ['m5.2xlarge', 8, 32768, 9.22],
    ['m6i.4xlarge', 16, 65536, 18.43],
    ['c6i.2xlarge', 8, 16384, 8.16],
  ],
  GCP: [
    ['n2-standard-8', 8, 32768, 9.33],
    ['e2-standard-16', 16, 65536, 12.86],
    ['c3-standard-8', 8, 32768, 10.02],
  ],
  Azure: [
    ['Standard_D8s_v5', 8, 32768, 9.22],
    ['Standard_D16s_v5', 16, 65536, 18.43],
    ['Standard_F8s_v2', 8, 16384, 8.12],
  ],
};

interface Workload {
  n: number;
  id: string;
  resourceId: string;
  tpl: WorkloadTemplate;
  ready: number;
  status: 'Running' | 'Degraded' | 'Pending' | 'Succeeded';
  created: number;
}

function nodeName(a: Account, i: number): string {
  switch (a.provider) {
    case 'AWS':
      return `ip-10-${a.k % 256}-${i + 1}-${10 + i * 13}.${a.region}.compute.internal`;
    case 'GCP':
      return `gke-${a.cluster}-default-pool-${hex(0x3c00 + a.g * 8 + i, 4)}`;
    case 'Azure':
      return `aks-nodepool1-${hex(a.g * 97 + 1000, 8)}-vmss00000${i}`;
  }
}

/** The workloads of an account's cluster: the same templates everywhere, with their own state. */
function clusterWorkloads(a: Account): Workload[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.k8s, 1));
  return WORKLOADS.map((tpl, i) => {
    const roll = rng();
    const status: Workload['status'] =
      tpl.kind === 'CronJob' ? 'Succeeded' : roll < 0.12 ? 'Degraded' : roll < 0.16 ? 'Pending' : 'Running';
    const ready =
      status === 'Running'
        ? tpl.replicas
        : status === 'Degraded'
          ? Math.max(0, tpl.replicas - 1 - Math.floor(rng() * 2))
          : 0;
    return {
      n: i + 1,
      id: gid(a.tenant, KIND.workload, a.g, i + 1),
      resourceId: gid(a.tenant, KIND.workloadResource, a.g, i + 1),
      tpl,
      ready,
      status,
      created: a.created + (10 + Math.floor(rng() * 90)) * DAY_MS + Math.floor(rng() * 86_400) * 1000,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Recommendation rules and the knowledge base

interface Rule {
  rule: string;
  category: string;
  action: 'Create' | 'Delete' | 'Modify';
  severity: 'Critical' | 'High' | 'Info' | 'Low' | 'Medium';
  title: string;
  description: string;
  /** Share of the resource's monthly cost the change saves (0: not a cost finding). */
  savings: number;
}

const RULES: Record<ResourceClass, readonly Rule[]> = {
  compute: [
    {
      rule: 'idle_instance',
      category: 'Cost',
      action: 'Delete',
      severity: 'High',
      title: 'Terminate idle instance',
      description: 'CPU below 2% and almost no network traffic for 30 days.',
      savings: 1,
    },
    {
      rule: 'rightsizing',
      category: 'RightSizing',
      action: 'Modify',
      severity: 'Medium',
      title: 'Downsize over-provisioned instance',
      description: 'Peak CPU and memory stayed under 40% for 30 days.',
      savings: 0.45,
    },
    {
      rule: 'previous_generation',
      category: 'InfraUpgrade',
      action: 'Modify',
      severity: 'Low',
      title: 'Move to the current instance generation',
      description: 'A newer generation gives the same capacity for less.',
      savings: 0.1,
    },
    {
      rule: 'open_ssh_port',
      category: 'Security',
      action: 'Modify',
      severity: 'Critical',
      title: 'Close SSH to the internet',
      description: 'Port 22 is open to 0.0.0.0/0.',
      savings: 0,
    },
  ],
  disk: [
    {
      rule: 'unattached_volume',
      category: 'Cost',
      action: 'Delete',
      severity: 'Low',
      title: 'Delete unattached volume',
      description: 'The volume has not been attached for 21 days.',
      savings: 1,
    },
    {
      rule: 'volume_type_upgrade',
      category: 'Cost',
      action: 'Modify',
      severity: 'Low',
      title: 'Switch to a cheaper volume type',
      description: 'The same IOPS are available on a cheaper type.',
      savings: 0.2,
    },
  ],
  database: [
    {
      rule: 'rightsizing',
      category: 'RightSizing',
      action: 'Modify',
      severity: 'High',
      title: 'Downsize database instance',
      description: 'Average CPU 12% with ample free memory.',
      savings: 0.45,
    },
    {
      rule: 'public_access',
      category: 'Security',
      action: 'Modify',
      severity: 'High',
      title: 'Remove public access from database',
      description: 'The instance accepts connections from any address.',
      savings: 0,
    },
    {
      rule: 'reserved_capacity',
      category: 'Cost',
      action: 'Create',
      severity: 'Medium',
      title: 'Reserve database capacity',
      description: 'The instance has run steadily for 6 months.',
      savings: 0.3,
    },
    {
      rule: 'backup_retention',
      category: 'Configuration',
      action: 'Modify',
      severity: 'Info',
      title: 'Keep backups for 7 days',
      description: 'Point-in-time restore keeps only 1 day.',
      savings: 0,
    },
  ],
  storage: [
    {
      rule: 'bucket_public_access',
      category: 'Security',
      action: 'Modify',
      severity: 'Critical',
      title: 'Block public access to storage',
      description: 'The bucket policy allows public reads.',
      savings: 0,
    },
    {
      rule: 'lifecycle_policy',
      category: 'Cost',
      action: 'Create',
      severity: 'Low',
      title: 'Add a lifecycle policy',
      description: 'Most objects have not been read for 90 days.',
      savings: 0.3,
    },
  ],
  serverless: [
    {
      rule: 'memory_rightsizing',
      category: 'RightSizing',
      action: 'Modify',
      severity: 'Low',
      title: 'Lower the function memory',
      description: 'Peak memory is a third of the configured size.',
      savings: 0.25,
    },
  ],
  network: [
    {
      rule: 'idle_load_balancer',
      category: 'Cost',
      action: 'Delete',
      severity: 'Medium',
      title: 'Delete idle load balancer',
      description: 'No healthy targets and no requests for 14 days.',
      savings: 1,
    },
  ],
  cache: [
    {
      rule: 'reserved_nodes',
      category: 'Cost',
      action: 'Create',
      severity: 'Medium',
      title: 'Reserve cache nodes',
      description: 'The cache has run steadily for 6 months.',
      savings: 0.3,
    },
  ],
  data: [
    {
      rule: 'capacity_mode',
      category: 'Cost',
      action: 'Modify',
      severity: 'Medium',
      title: 'Change the capacity mode',
      description: 'Provisioned capacity is idle most of the day.',
      savings: 0.35,
    },
  ],
  cluster: [
    {
      rule: 'version_upgrade',
      category: 'K8sVersionUpgrade',
      action: 'Modify',
      severity: 'Medium',
      title: 'Upgrade the Kubernetes control plane',
      description: 'Kubernetes 1.28 leaves standard support soon.',
      savings: 0,
    },
    {
      rule: 'spot_node_pool',
      category: 'K8sSpotRecommendation',
      action: 'Create',
      severity: 'Low',
      title: 'Move batch workloads to spot nodes',
      description: 'Interruptible workloads run on on-demand nodes.',
      savings: 0.6,
    },
  ],
};

function ruleName(provider: Provider, cls: ResourceClass, rule: string): string {
  return `${SHORT[provider][cls]}_${rule}`;
}

/** Rule names the fixed set's knowledge base already explains. */
const FIXED_KB_RULES = new Set([
  'ec2_idle_instance',
  'rds_rightsizing',
  's3_bucket_public_access',
  'cloudsql_public_ip',
]);

function knowledgeBaseRows(): Row[] {
  const rows: Row[] = [];
  const at = tsz(Date.parse('2025-12-01T00:00:00Z'));
  for (const provider of ['AWS', 'GCP', 'Azure'] as const) {
    for (const cls of Object.keys(RULES) as ResourceClass[]) {
      for (const r of RULES[cls]) {
        const name = ruleName(provider, cls, r.rule);
        if (FIXED_KB_RULES.has(name)) continue;
        const what =
          CLUSTER_TEMPLATE[provider].cls === cls
            ? CLUSTER_TEMPLATE[provider].service
            : RESOURCE_TEMPLATES[provider].find((t) => t.cls === cls)!.service;
        rows.push([
          `00000000-${hex(KIND.knowledgeBase, 4)}-4000-9000-${hex(rows.length + 1, 12)}`,
          name,
          `${what}: ${r.description}`,
          `Open the resource in the ${provider} console and check the last 30 days of metrics and configuration behind "${r.title.toLowerCase()}".`,
          r.savings > 0
            ? `About ${Math.round(r.savings * 100)}% of the resource's monthly cost can be saved.`
            : r.category === 'Security'
              ? 'The resource is exposed to attacks or data leaks.'
              : 'The resource runs with a risky or outdated configuration.',
          `${r.title} (${what}), in a maintenance window; apply it with an auto-pilot or a playbook once reviewed.`,
          at,
          at,
        ]);
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Events and anomalies

type EventSeverity = 'DEBUG' | 'HIGH' | 'INFO' | 'LOW' | 'MEDIUM';

const SEVERITY_ORDER: readonly EventSeverity[] = ['DEBUG', 'INFO', 'LOW', 'MEDIUM', 'HIGH'];

interface EventTemplate {
  title: string;
  severity: EventSeverity;
  source: string;
  findingType: string;
  category: string;
}

const WORKLOAD_EVENTS: readonly EventTemplate[] = [
  {
    title: 'Pod CrashLoopBackOff in {s}',
    severity: 'HIGH',
    source: 'kubernetes_api_server',
    findingType: 'issue',
    category: 'Availability',
  },
  {
    title: 'Container OOMKilled in {s}',
    severity: 'MEDIUM',
    source: 'kubernetes_api_server',
    findingType: 'issue',
    category: 'Resources',
  },
  {
    title: 'Replicas mismatch for {s}',
    severity: 'MEDIUM',
    source: 'prometheus',
    findingType: 'prometheus_alert',
    category: 'Availability',
  },
  {
    title: 'Helm release upgrade failed for {s}',
    severity: 'HIGH',
    source: 'helm_release',
    findingType: 'helm_release',
    category: 'Deployment',
  },
  {
    title: 'Error rate above 5% on {s}',
    severity: 'HIGH',
    source: 'slo',
    findingType: 'slo_breach',
    category: 'Reliability',
  },
  {
    title: 'Rollout completed for {s}',
    severity: 'INFO',
    source: 'kubernetes_api_server',
    findingType: 'rollout',
    category: 'Deployment',
  },
  {
    title: 'CPU throttling above 25% for {s}',
    severity: 'LOW',
    source: 'prometheus',
    findingType: 'prometheus_alert',
    category: 'Performance',
  },
  {
    title: 'Debug trace captured for {s}',
    severity: 'DEBUG',
    source: 'manual',
    findingType: 'trace',
    category: 'Operations',
  },
];

const RESOURCE_EVENTS: Record<Provider, readonly EventTemplate[]> = {
  AWS: [
    {
      title: 'High CPU usage on {s}',
      severity: 'HIGH',
      source: 'AWS_CloudWatch_Alarm',
      findingType: 'metric_alert',
      category: 'Performance',
    },
    {
      title: 'Instance state changed for {s}',
      severity: 'INFO',
      source: 'AWS_EventBridge',
      findingType: 'state_change',
      category: 'Operations',
    },
    {
      title: 'Security group opened on {s}',
      severity: 'MEDIUM',
      source: 'AWS_CloudTrail',
      findingType: 'audit',
      category: 'Security',
    },
  ],
  GCP: [
    {
      title: 'High CPU usage on {s}',
      severity: 'HIGH',
      source: 'prometheus',
      findingType: 'metric_alert',
      category: 'Performance',
    },
    {
      title: 'Latency SLO at risk for {s}',
      severity: 'MEDIUM',
      source: 'slo',
      findingType: 'slo_breach',
      category: 'Reliability',
    },
  ],
  Azure: [
    {
      title: 'High DTU consumption on {s}',
      severity: 'MEDIUM',
      source: 'Azure_Monitor_Alert',
      findingType: 'metric_alert',
      category: 'Performance',
    },
    {
      title: 'Metric alert fired for {s}',
      severity: 'LOW',
      source: 'Azure_MetricAlert',
      findingType: 'metric_alert',
      category: 'Performance',
    },
  ],
};

const COMMON_EVENTS: readonly EventTemplate[] = [
  {
    title: 'Cost anomaly: {s} spend above forecast',
    severity: 'MEDIUM',
    source: 'anomaly',
    findingType: 'cost_anomaly',
    category: 'Cost',
  },
  {
    title: 'Budget 80% threshold reached for {s}',
    severity: 'LOW',
    source: 'scheduler',
    findingType: 'budget_alert',
    category: 'Cost',
  },
];

// ---------------------------------------------------------------------------------------------
// Auto-pilots and playbooks

interface AutoPilotTemplate {
  name: string;
  description: string;
  category: 'Cost' | 'Remediation' | 'RightSizing' | 'Schedule' | 'Security';
  trigger: 'schedule' | 'recommendation' | 'event';
  schedule: string | null;
  command: string;
  clusterOnly?: boolean;
}

const AUTO_PILOTS: readonly AutoPilotTemplate[] = [
  {
    name: 'Stop idle non-production instances at night',
    description: 'Stops instances tagged env=dev outside working hours.',
    category: 'Schedule',
    trigger: 'schedule',
    schedule: '0 20 * * 1-5',
    command: 'stop_instances',
  },
  {
    name: 'Apply rightsizing recommendations',
    description: 'Applies open RightSizing recommendations after review.',
    category: 'RightSizing',
    trigger: 'recommendation',
    schedule: null,
    command: 'resize_resource',
  },
  {
    name: 'Delete unattached volumes',
    description: 'Deletes volumes unattached for 30 days, after a snapshot.',
    category: 'Cost',
    trigger: 'recommendation',
    schedule: null,
    command: 'delete_volume',
  },
  {
    name: 'Block public storage access',
    description: 'Turns on public access blocks when a bucket becomes public.',
    category: 'Security',
    trigger: 'event',
    schedule: null,
    command: 'block_public_access',
  },
  {
    name: 'Restart crash-looping pods',
    description: 'Restarts pods after a CrashLoopBackOff event, at most once an hour.',
    category: 'Remediation',
    trigger: 'event',
    schedule: null,
    command: 'kubectl rollout restart',
    clusterOnly: true,
  },
  {
    name: 'Scale down staging at weekends',
    description: 'Scales staging workloads to zero from Friday night to Monday morning.',
    category: 'Schedule',
    trigger: 'schedule',
    schedule: '0 22 * * 5',
    command: 'kubectl scale --replicas=0',
    clusterOnly: true,
  },
];

const PLAYBOOKS = [
  {
    name: 'Restart pods after OOMKilled',
    trigger: { event: 'Container OOMKilled' },
    actions: ['restart_pod', 'notify_slack'] as const,
  },
  {
    name: 'Collect diagnostics on degraded workloads',
    trigger: { event: 'Replicas mismatch' },
    actions: ['collect_logs', 'notify_slack'] as const,
  },
] as const;

// ---------------------------------------------------------------------------------------------
// Counts

function countAccounts(plan: ScalePlan, pred: (k: number) => boolean): number {
  let n = 0;
  for (let g = plan.fromAccount + 1; g <= plan.toAccount; g++) if (pred(tenantOf(plan.tenants, g).k)) n++;
  return n;
}

/** The number of rows each table gets from `plan`, by the shape's formula. */
export function expectedCounts(plan: ScalePlan): Record<string, number> {
  const initial = plan.fromAccount === 0;
  const newTenants = initial ? plan.tenants.filter((t) => t.generated).length : 0;
  const m = plan.toAccount - plan.fromAccount;
  const c = countAccounts(plan, hasCluster);
  const reviewed = countAccounts(plan, (k) => approvalTypeOf(k) !== 'auto');
  const s = SHAPE;
  return {
    tenant: newTenants,
    users: 2 * newTenants,
    user_roles: 2 * newTenants,
    tenant_users: 2 * newTenants,
    knowledge_base: initial ? knowledgeBaseRows().length : 0,
    cloud_accounts: m,
    cloud_resourses: m * s.resourcesPerAccount,
    spends: m * s.resourcesPerAccount * s.spendDays,
    recommendation: m * s.recommendationsPerAccount,
    k8s_nodes: c * s.cluster.nodes,
    k8s_namespaces: c * s.cluster.namespaces,
    k8s_workloads: c * s.cluster.workloads,
    k8s_pods: c * s.cluster.pods,
    k8s_account_resource_usage: c,
    events: m * s.eventsPerAccount,
    anomaly_config: m * s.anomalyConfigsPerAccount,
    anomaly: m * s.anomaliesPerAccount,
    auto_pilot_approval_policy: m,
    auto_pilot: m * s.autoPilotsPerAccount,
    auto_pilot_reviewers: reviewed,
    auto_pilot_reviewee: reviewed,
    auto_pilot_approvals: reviewed * s.autoPilotsPerAccount,
    auto_pilot_task: m * s.autoPilotsPerAccount * s.autoPilotTasksPerAutoPilot,
    auto_playbook: c * s.cluster.playbooks,
    auto_playbook_executions: c * s.cluster.playbooks * s.cluster.executionsPerPlaybook,
    auto_playbook_task: c * s.cluster.playbooks * s.cluster.executionsPerPlaybook * s.cluster.tasksPerExecution,
    agent: c,
    agent_task: c * s.cluster.agentTasks,
    knowledge_graph_node: m * s.graph.nodesPerAccount + c * s.graph.nodesPerCluster,
    knowledge_graph_edge: m * s.graph.edgesPerAccount + c * s.graph.edgesPerCluster,
  };
}

// ---------------------------------------------------------------------------------------------
// The tables, in an order that satisfies every foreign key

type PerAccount = (a: Account) => Row[];

/**
 * Tables whose generated rows write other columns than the fixed set's: a few left to their
 * defaults, and the events' computed priority and score filled in.
 */
const GENERATED_COLUMNS = {
  events: [
    'id',
    'tenant',
    'cloud_account_id',
    'cloud_resource_id',
    'title',
    'description',
    'severity',
    'priority',
    'urgency',
    'computed_priority',
    'computed_score',
    'source',
    'status',
    'category',
    'aggregation_key',
    'fingerprint',
    'finding_id',
    'finding_type',
    'cluster',
    'subject_name',
    'subject_namespace',
    'subject_type',
    'labels',
    'evidences',
    'starts_at',
    'ends_at',
    'created_at',
    'updated_at',
  ],
  auto_pilot_task: [
    'id',
    'tenant_id',
    'account_id',
    'auto_pilot_id',
    'recommendation_id',
    'name',
    'command',
    'status',
    'attributes',
    'meta',
    'resource_filter',
    'error',
    'reason',
    'scheduled_time',
    'created_at',
    'updated_at',
  ],
  auto_playbook: [
    'id',
    'tenant_id',
    'account_id',
    'name',
    'status',
    'execution_status',
    'trigger',
    'resource_filter',
    'tasks',
    'attributes',
    'notification',
    'start_at',
    'last_executed_time',
    'last_schedule_time',
    'created_at',
    'created_by',
    'update_at',
    'updated_by',
  ],
  auto_playbook_task: [
    'id',
    'tenant_id',
    'account_id',
    'auto_playbook_id',
    'execution_id',
    'action_id',
    'name',
    'action_type',
    'task_type',
    'status',
    'attributes',
    'meta_data',
    'resource',
    'result',
    'error',
    'scheduled_time',
    'created_at',
    'updated_at',
  ],
  agent: [
    'id',
    'tenant',
    'cloud_account_id',
    'type',
    'status',
    'status_message',
    'version',
    'k8s_provider',
    'k8s_version',
    'access_key',
    'connection_status',
    'last_connected_at',
    'last_synced_at',
    'created_at',
    'updated_at',
  ],
} satisfies Partial<Record<keyof typeof COLUMNS, readonly string[]>>;

/** The tables' makers for one plan: `once` for rows of no account, `perAccount` for a batch per account. */
function tableMakers(plan: ScalePlan) {
  const counts = expectedCounts(plan);
  const once = (name: string, columns: readonly string[], rows: () => Row[]): GeneratedTable => ({
    name,
    columns,
    count: counts[name]!,
    *batches() {
      const r = rows();
      if (r.length) yield r;
    },
  });
  const perAccount = (
    name: string,
    columns: readonly string[],
    fn: PerAccount,
    onlyClusters = false,
  ): GeneratedTable => ({
    name,
    columns,
    count: counts[name]!,
    *batches() {
      for (const a of accountsOf(plan)) {
        if (onlyClusters && !a.cluster) continue;
        yield fn(a);
      }
    },
  });
  return { once, perAccount };
}

type TableMakers = ReturnType<typeof tableMakers>;

function tenantRows(tenants: readonly SeedTenant[]): Row[] {
  return tenants.map((t) => [t.id, t.name, 'Demo', ts(t.createdAt), t.admin.id, ts(t.createdAt), t.admin.id]);
}

function userRows(tenants: readonly SeedTenant[]): Row[] {
  return tenants.flatMap((t) =>
    [t.admin, t.viewer].map((u, i) => [
      u.id,
      u.username,
      u.displayName,
      'active',
      ts(t.createdAt + HOUR_MS + i * MINUTE_MS),
      t.admin.id,
      ts(t.createdAt + HOUR_MS + i * MINUTE_MS),
      t.admin.id,
    ]),
  );
}

function userRoleRows(tenants: readonly SeedTenant[]): Row[] {
  return tenants.flatMap((t) =>
    [t.admin, t.viewer].map((u, i) => [
      gid(t, KIND.userRole, 0, i + 1),
      u.id,
      u.role,
      'tenant',
      t.id,
      t.id,
      ts(t.createdAt + HOUR_MS),
      t.admin.id,
      ts(t.createdAt + HOUR_MS),
    ]),
  );
}

function tenantUserRows(tenants: readonly SeedTenant[]): Row[] {
  return tenants.flatMap((t) =>
    [t.admin, t.viewer].map((u, i) => [
      gid(t, KIND.tenantUser, 0, i + 1),
      t.id,
      u.id,
      true,
      i === 0,
      ts(t.createdAt + HOUR_MS),
      t.admin.id,
      ts(t.createdAt + HOUR_MS),
      t.admin.id,
    ]),
  );
}

/** The generated tenants with their users, and the knowledge base: only on the first run. */
function tenantTables(plan: ScalePlan, { once }: TableMakers): GeneratedTable[] {
  const initial = plan.fromAccount === 0;
  const newTenants = initial ? plan.tenants.filter((t) => t.generated) : [];
  return [
    once('tenant', COLUMNS.tenant, () => tenantRows(newTenants)),
    once('users', COLUMNS.users, () => userRows(newTenants)),
    once('user_roles', COLUMNS.user_roles, () => userRoleRows(newTenants)),
    once('tenant_users', COLUMNS.tenant_users, () => tenantUserRows(newTenants)),
    once('knowledge_base', COLUMNS.knowledge_base, () => (initial ? knowledgeBaseRows() : [])),
  ];
}

function accountTables({ perAccount }: TableMakers): GeneratedTable[] {
  return [
    perAccount('cloud_accounts', COLUMNS.cloud_accounts, accountRows),
    perAccount('cloud_resourses', COLUMNS.cloud_resourses, resourceRows),
    perAccount('spends', COLUMNS.spends, spendRows),
    perAccount('recommendation', COLUMNS.recommendation, (a) => recommendations(a).map((r) => r.row)),
    perAccount('k8s_nodes', COLUMNS.k8s_nodes, nodeRows, true),
    perAccount('k8s_namespaces', COLUMNS.k8s_namespaces, namespaceRows, true),
    perAccount('k8s_workloads', COLUMNS.k8s_workloads, workloadRows, true),
    perAccount('k8s_pods', COLUMNS.k8s_pods, podRows, true),
    perAccount('k8s_account_resource_usage', COLUMNS.k8s_account_resource_usage, usageRows, true),
    perAccount('events', GENERATED_COLUMNS.events, eventRows),
    perAccount('anomaly_config', COLUMNS.anomaly_config, anomalyConfigRows),
    perAccount('anomaly', COLUMNS.anomaly, anomalyRows),
    perAccount('auto_pilot_approval_policy', COLUMNS.auto_pilot_approval_policy, policyRows),
    perAccount('auto_pilot', COLUMNS.auto_pilot, (a) => autoPilots(a).map((p) => p.row)),
    perAccount('auto_pilot_reviewers', COLUMNS.auto_pilot_reviewers, (a) =>
      reviewRows(a, KIND.reviewer, a.tenant.admin.id),
    ),
    perAccount('auto_pilot_reviewee', COLUMNS.auto_pilot_reviewee, (a) =>
      reviewRows(a, KIND.reviewee, a.tenant.viewer.id),
    ),
    perAccount('auto_pilot_approvals', COLUMNS.auto_pilot_approvals, approvalRows),
    perAccount('auto_pilot_task', GENERATED_COLUMNS.auto_pilot_task, autoPilotTaskRows),
    perAccount('auto_playbook', GENERATED_COLUMNS.auto_playbook, (a) => playbooks(a).playbooks, true),
    perAccount('auto_playbook_executions', COLUMNS.auto_playbook_executions, (a) => playbooks(a).executions, true),
    perAccount('auto_playbook_task', GENERATED_COLUMNS.auto_playbook_task, (a) => playbooks(a).tasks, true),
    perAccount('agent', GENERATED_COLUMNS.agent, (a) => agents(a).agent, true),
    perAccount('agent_task', COLUMNS.agent_task, (a) => agents(a).tasks, true),
    perAccount('knowledge_graph_node', COLUMNS.knowledge_graph_node, (a) => graph(a).nodes),
    perAccount('knowledge_graph_edge', COLUMNS.knowledge_graph_edge, (a) => graph(a).edges),
  ];
}

/** All the generated tables of `plan`, each streaming its rows one account at a time. */
export function generatedTables(plan: ScalePlan): GeneratedTable[] {
  const make = tableMakers(plan);
  return [...tenantTables(plan, make), ...accountTables(make)];
}

// ---------------------------------------------------------------------------------------------
// Rows per account

function accountRows(a: Account): Row[] {
  const purpose =
    a.env === 'prod' ? 'Production workloads' : `${a.envName[0]!.toUpperCase()}${a.envName.slice(1)} environment`;
  const synced = a.syncStatus === 'Queued' ? null : ts(LAST_DAY + 6 * HOUR_MS + (a.g % 60) * MINUTE_MS);
  const data = { regions: a.regions, currency: 'USD', ...(a.cluster ? { kubernetes_cluster: a.cluster } : {}) };
  return [
    [
      a.id,
      a.tenant.id,
      a.name,
      a.number,
      a.env === 'prod' ? 'Production' : 'Development',
      a.env,
      purpose,
      a.provider,
      a.status,
      a.syncStatus,
      a.syncMessage,
      synced,
      a.budget,
      a.region,
      ts(a.created - 9 * HOUR_MS),
      a.provider === 'AWS' ? 'cur' : a.provider === 'GCP' ? 'bigquery_export' : 'cost_management_export',
      data,
      a.syncStatus === 'Error' ? 3 : 0,
      ts(a.created),
      a.tenant.admin.id,
      ts(a.created),
      a.tenant.admin.id,
    ],
  ];
}

function resourceRows(a: Account): Row[] {
  const lastSeen = ts(LAST_DAY + 5 * HOUR_MS);
  return a.resources.map((r) => {
    const ext = externalId(a, r.tpl, r.name, r.region);
    const meta = r.size ? { size: r.size, zone: r.zone } : { zone: r.zone };
    const tags = {
      env: a.envName,
      app: r.app,
      team: APPS.indexOf(r.app) % 2 === 0 ? 'platform' : 'product',
      'cost-center': `cc-${100 + (APPS.indexOf(r.app) % 7)}`,
    };
    return [
      r.id,
      a.tenant.id,
      a.id,
      a.provider,
      r.name,
      r.tpl.type,
      r.tpl.service,
      r.region,
      a.provider === 'AWS' ? ext : null,
      ext,
      r.name,
      r.status,
      r.status === 'Active',
      ts(r.firstSeen),
      lastSeen,
      ts(r.firstSeen - DAY_MS),
      meta,
      tags,
      ts(r.firstSeen),
      lastSeen,
    ];
  });
}

/** The 180 spend days as text, and whether each is a Saturday or a Sunday. */
const SPEND_DAYS = Array.from({ length: SHAPE.spendDays }, (_, d) => {
  const ms = FIRST_DAY + d * DAY_MS;
  const wd = new Date(ms).getUTCDay();
  return { text: ts(ms), weekend: wd === 0 || wd === 6 };
});

function spendRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.spends));
  const prefix = `${a.tenant.prefix}-${hex(KIND.spend, 4)}-4000-9000-${hex(a.g, 6)}`;
  const tenant = a.tenant.id;
  const rows: Row[] = new Array(SHAPE.spendDays * a.resources.length);
  let n = 0;
  for (let d = 0; d < SHAPE.spendDays; d++) {
    const day = SPEND_DAYS[d]!;
    for (const r of a.resources) {
      const dip = day.weekend && r.tpl.weekendDip ? 0.72 : 1;
      const noise = 0.88 + 0.24 * rng();
      // A rare spike (a runaway job, a traffic surge): what the cost anomalies point at.
      const spike = rng() < 0.002 ? 2 + 2.5 * rng() : 1;
      const amount = Math.max(0.01, cents(r.daily * dip * (1 + r.trend * d) * noise * spike));
      n++;
      rows[n - 1] = [`${prefix}${hex(n, 6)}`, tenant, a.id, r.id, day.text, amount, 'USD', false];
    }
  }
  return rows;
}

interface Recommendation {
  id: string;
  rule: string;
  category: string;
  resource: Resource;
  row: Row;
}

const RECOMMENDATION_STATUS = [
  ['Open', 40],
  ['Assigned', 15],
  ['InProgress', 10],
  ['Closed', 15],
  ['Dismissed', 10],
  ['Archive', 10],
] as const;

function recommendations(a: Account): Recommendation[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.recommendations));
  const used = new Set<number>();
  const out: Recommendation[] = [];
  for (let i = 1; i <= SHAPE.recommendationsPerAccount; i++) {
    let r: Resource;
    do r = a.resources[Math.floor(rng() * a.resources.length)]!;
    while (used.has(r.j));
    used.add(r.j);
    const rule = pick(rng, RULES[r.tpl.cls]);
    const name = ruleName(a.provider, r.tpl.cls, rule.rule);
    const status = weighted(rng, RECOMMENDATION_STATUS);
    const monthly = r.daily * 30;
    const savings = rule.savings > 0 ? cents(monthly * rule.savings * between(rng, 0.85, 1.1)) : 0;
    const created =
      FIRST_DAY + Math.floor(rng() * (SHAPE.spendDays - 2) * 24) * HOUR_MS + Math.floor(rng() * 3600) * 1000;
    const updated = status === 'Open' ? created : Math.min(NOW, created + (1 + Math.floor(rng() * 10)) * DAY_MS);
    const id = gid(a.tenant, KIND.recommendation, a.g, i);
    const body = {
      title: rule.title,
      description: rule.description,
      resource: r.name,
      ...(r.size ? { current: { size: r.size } } : {}),
      monthly_cost: cents(monthly),
    };
    out.push({
      id,
      rule: name,
      category: rule.category,
      resource: r,
      row: [
        id,
        a.tenant.id,
        a.id,
        r.id,
        r.name,
        name,
        rule.category,
        rule.action,
        rule.severity,
        status,
        body,
        savings,
        status === 'Dismissed',
        status === 'Dismissed'
          ? pick(rng, [
              'Accepted risk: the resource is being decommissioned',
              'Needed for the quarterly batch',
              'Handled outside the platform',
            ])
          : null,
        status === 'Assigned' || status === 'InProgress' ? `Assigned to ${a.tenant.admin.displayName}` : null,
        ts(created),
        ts(updated),
        status === 'Open' ? null : a.tenant.admin.id,
      ],
    });
  }
  return out;
}

function nodeRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.k8s, 2));
  const flavor = pick(rng, NODE_FLAVORS[a.provider]);
  const seen = ts(LAST_DAY + 23 * HOUR_MS);
  const out: Row[] = [];
  for (let i = 0; i < SHAPE.cluster.nodes; i++) {
    const spot = i === SHAPE.cluster.nodes - 1;
    const zone = zoneName(a.provider, a.region, i % 3);
    const [name, cpu, mem, cost] = flavor;
    const ready = rng() < 0.96;
    out.push([
      a.tenant.id,
      a.id,
      gid(a.tenant, KIND.k8sNode, a.g, i + 1),
      nodeName(a, i),
      spot ? 'spot' : 'on_demand',
      name,
      a.region,
      zone,
      `10.${a.k % 256}.${i + 1}.${10 + i * 13}`,
      null,
      cpu,
      cpu - 0.09,
      cents(cpu * between(rng, 0.4, 0.9)),
      mem,
      mem - 1568,
      Math.round(mem * between(rng, 0.4, 0.85)),
      cents(cost * (spot ? 0.35 : 1)),
      ready ? 'Ready' : 'NotReady',
      spot ? 'spot=true:NoSchedule' : null,
      {
        'node.kubernetes.io/instance-type': name,
        'topology.kubernetes.io/zone': zone,
        ...(spot ? { lifecycle: 'spot' } : {}),
      },
      { kubelet_version: pick(rng, ['v1.28.9', 'v1.29.6', 'v1.30.2']) },
      true,
      ts(a.created + (20 + i * 25) * DAY_MS),
      seen,
    ]);
  }
  return out;
}

function namespaceRows(a: Account): Row[] {
  return NAMESPACES.map((ns) => {
    const inNs = WORKLOADS.filter((w) => w.namespace === ns);
    return [
      a.tenant.id,
      a.id,
      ns,
      inNs.reduce((s, w) => s + w.replicas, 0),
      inNs.length,
      true,
      ts(a.created + 10 * DAY_MS),
      ts(LAST_DAY + 23 * HOUR_MS),
    ];
  });
}

const MI = 1024 * 1024;

function workloadRows(a: Account): Row[] {
  const seen = ts(LAST_DAY + 23 * HOUR_MS);
  return clusterWorkloads(a).map((w) => [
    w.id,
    a.tenant.id,
    a.id,
    w.resourceId,
    `${a.cluster}/${w.tpl.namespace}/${w.tpl.kind.toLowerCase()}/${w.tpl.name}`,
    w.tpl.name,
    w.tpl.namespace,
    w.tpl.kind,
    w.tpl.kind,
    w.tpl.replicas,
    w.status,
    w.ready,
    w.tpl.replicas,
    w.tpl.cpu[0],
    w.tpl.cpu[1],
    w.tpl.memMi[0] * MI,
    w.tpl.memMi[1] * MI,
    { app: w.tpl.name, 'app.kubernetes.io/part-of': w.tpl.namespace },
    { cluster: a.cluster, images: [`registry.example.com/${w.tpl.name}:${1 + (w.n % 4)}.${a.g % 20}.0`] },
    true,
    ts(w.created),
    seen,
    seen,
  ]);
}

function podRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.k8s, 3));
  const seen = ts(LAST_DAY + 23 * HOUR_MS);
  const out: Row[] = [];
  for (const w of clusterWorkloads(a)) {
    // Pod names as the controllers make them: <deployment>-<replica set>-<5>, <statefulset>-<n>, <daemonset>-<5>, <cronjob>-<job>-<5>.
    const replicaSet = hex(Math.floor(rng() * 0xfffffffff), 9);
    const job = 29_000_000 + Math.floor(rng() * 900_000);
    for (let r = 0; r < w.tpl.replicas; r++) {
      const suffix = hex(Math.floor(rng() * 0xfffff), 5);
      const name =
        w.tpl.kind === 'StatefulSet'
          ? `${w.tpl.name}-${r}`
          : w.tpl.kind === 'Deployment'
            ? `${w.tpl.name}-${replicaSet}-${suffix}`
            : w.tpl.kind === 'CronJob'
              ? `${w.tpl.name}-${job}-${suffix}`
              : `${w.tpl.name}-${suffix}`;
      const status =
        w.status === 'Succeeded'
          ? 'Succeeded'
          : r < w.ready
            ? 'Running'
            : w.status === 'Pending'
              ? 'Pending'
              : pick(rng, ['CrashLoopBackOff', 'Pending', 'Failed']);
      const restarts =
        status === 'CrashLoopBackOff' ? 5 + Math.floor(rng() * 40) : rng() < 0.1 ? 1 + Math.floor(rng() * 3) : 0;
      const node =
        status === 'Pending'
          ? null
          : nodeName(a, w.tpl.kind === 'DaemonSet' ? r : Math.floor(rng() * SHAPE.cluster.nodes));
      out.push([
        a.tenant.id,
        a.id,
        gid(a.tenant, KIND.k8sPod, a.g, out.length + 1),
        `${a.cluster}/${w.tpl.namespace}/pod/${name}`,
        name,
        w.tpl.namespace,
        node,
        w.tpl.name,
        w.tpl.kind,
        status,
        { [w.tpl.name]: restarts },
        { app: w.tpl.name },
        { qos_class: w.tpl.namespace === 'production' ? 'Burstable' : 'BestEffort' },
        true,
        ts(LAST_DAY - Math.floor(rng() * 14 * 24) * HOUR_MS),
        seen,
        seen,
      ]);
    }
  }
  return out;
}

function usageRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.usage));
  const cpuRequest = cents(between(rng, 8, 24));
  const memRequest = Math.round(between(rng, 20_000, 60_000));
  return [
    [
      a.tenant.id,
      a.id,
      cpuRequest,
      cents(cpuRequest * between(rng, 0.25, 0.8)),
      memRequest,
      Math.round(memRequest * between(rng, 0.4, 0.9)),
      cents(between(rng, 20, 80)),
      cents(between(rng, 10, 50)),
    ],
  ];
}

interface EventSubject {
  subject: string;
  subjectType: string;
  namespace: string | null;
  resourceId: string | null;
}

/** What an event is about: one of the cluster's workloads, the account (budget alerts) or one of its resources. */
function eventSubject(rng: Rng, a: Account, tpl: EventTemplate, workloads: readonly Workload[] | null): EventSubject {
  if (workloads) {
    const w = pick(rng, workloads);
    return { subject: w.tpl.name, subjectType: w.tpl.kind.toLowerCase(), namespace: w.tpl.namespace, resourceId: null };
  }
  if (tpl.findingType === 'budget_alert') {
    return { subject: a.name, subjectType: 'cloud_account', namespace: null, resourceId: null };
  }
  const r = pick(rng, a.resources);
  return { subject: r.name, subjectType: r.tpl.type, namespace: null, resourceId: r.id };
}

/** Event `i` of `a`, in its slot of the 180 days. */
function eventRow(a: Account, rng: Rng, i: number, workloads: readonly Workload[]): Row {
  const slot = (SHAPE.spendDays * DAY_MS) / SHAPE.eventsPerAccount;
  const created = FIRST_DAY + Math.floor((i * slot + rng() * (slot - MINUTE_MS)) / 1000) * 1000;
  const onWorkload = workloads.length > 0 && rng() < 0.6;
  const tpl = onWorkload
    ? pick(rng, WORKLOAD_EVENTS)
    : rng() < 0.25
      ? pick(rng, COMMON_EVENTS)
      : pick(rng, RESOURCE_EVENTS[a.provider]);
  const { subject, subjectType, namespace, resourceId } = eventSubject(rng, a, tpl, onWorkload ? workloads : null);
  // Older events are settled; the last three days still have firing ones.
  const recent = created >= NOW - 3 * DAY_MS;
  const status = recent && rng() < 0.7 ? 'FIRING' : rng() < 0.6 ? 'RESOLVED' : 'CLOSED';
  const severity = rng() < 0.2 ? pick(rng, SEVERITY_ORDER) : tpl.severity;
  const urgency = SEVERITY_ORDER[Math.max(0, SEVERITY_ORDER.indexOf(severity) - (rng() < 0.5 ? 1 : 0))]!;
  const title = tpl.title.replace('{s}', subject);
  const cluster = a.cluster ?? a.name;
  const aggregationKey = `${tpl.findingType}:${subject}`;
  const ends = status === 'FIRING' ? null : created + (10 + Math.floor(rng() * 600)) * MINUTE_MS;
  const score = Math.round(SEVERITY_ORDER.indexOf(severity) * 20 + rng() * 19);
  return [
    gid(a.tenant, KIND.event, a.g, i + 1),
    a.tenant.id,
    a.id,
    resourceId,
    title,
    `${title}. Detected by ${tpl.source} in ${a.name}.`,
    severity,
    severity,
    urgency,
    score >= 70 ? 'P1' : score >= 45 ? 'P2' : score >= 20 ? 'P3' : 'P4',
    score,
    tpl.source,
    status,
    tpl.category,
    aggregationKey,
    `${a.tenant.slug}-${a.k}-${aggregationKey}`.replace(/[^a-z0-9]+/gi, '-').toLowerCase(),
    `${tpl.findingType}-${hex(a.g, 6)}-${String(i + 1).padStart(3, '0')}`,
    tpl.findingType,
    cluster,
    subject,
    namespace,
    subjectType,
    { cluster, ...(namespace ? { namespace } : {}), alertname: tpl.findingType, severity: severity.toLowerCase() },
    [{ type: 'text', title: 'Summary', data: `${title} (${a.name})` }],
    ts(created),
    ends === null ? null : ts(ends),
    ts(created),
    ts(ends ?? created),
  ];
}

function eventRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.events));
  const workloads = a.cluster ? clusterWorkloads(a) : [];
  const out: Row[] = [];
  for (let i = 0; i < SHAPE.eventsPerAccount; i++) out.push(eventRow(a, rng, i, workloads));
  return out;
}

function anomalyTypes(a: Account): readonly ['CPU' | 'Latency', 'Memory' | 'Network' | 'ErrorRate'] {
  return a.cluster ? ['CPU', 'Memory'] : a.g % 2 === 0 ? ['CPU', 'Network'] : ['Latency', 'ErrorRate'];
}

function anomalyConfigRows(a: Account): Row[] {
  const types = anomalyTypes(a);
  const at = a.created + 30 * DAY_MS;
  return types.map((type, i) => [
    gid(a.tenant, KIND.anomalyConfig, a.g, i + 1),
    a.tenant.id,
    a.id,
    'Metric',
    type,
    i === 0 ? 'GT' : 'GTE',
    i === 0 ? 20 : 50,
    '7',
    'days',
    tsz(at + i * HOUR_MS),
    a.tenant.admin.id,
    tsz(at + i * HOUR_MS),
    a.tenant.admin.id,
  ]);
}

const ANOMALY_SCALE: Record<string, readonly [number, number]> = {
  CPU: [0.2, 1.6],
  Memory: [1024, 8192],
  Network: [50, 900],
  Latency: [40, 400],
  ErrorRate: [0.2, 4],
};

function anomalyRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.anomalies));
  const types = anomalyTypes(a);
  const workloads = a.cluster ? clusterWorkloads(a) : [];
  const out: Row[] = [];
  for (let i = 0; i < SHAPE.anomaliesPerAccount; i++) {
    const c = i % types.length;
    const type = types[c]!;
    const [lo, hi] = ANOMALY_SCALE[type]!;
    const mean = between(rng, lo, hi);
    const isAnomaly = rng() < 0.7;
    const current = mean * (isAnomaly ? between(rng, 1.6, 3.5) : between(rng, 0.9, 1.15));
    const evaluated = FIRST_DAY + Math.floor(rng() * SHAPE.spendDays * 24) * HOUR_MS;
    let name: string;
    let namespace: string | null = null;
    let pod: string | null = null;
    if (workloads.length) {
      const w = pick(rng, workloads);
      name = w.tpl.name;
      namespace = w.tpl.namespace;
      pod = rng() < 0.7 ? `${w.tpl.name}-${hex(Math.floor(rng() * 0xfffff), 5)}` : null;
    } else {
      name = pick(rng, a.resources).name;
    }
    const round = (x: number) => (hi > 10 ? Math.round(x) : Math.round(x * 1000) / 1000);
    out.push([
      gid(a.tenant, KIND.anomaly, a.g, i + 1),
      a.tenant.id,
      a.id,
      gid(a.tenant, KIND.anomalyConfig, a.g, c + 1),
      type,
      name,
      namespace,
      pod,
      round(current),
      { mean: round(mean), upper_bound: round(mean * (c === 0 ? 1.2 : 1.5)), period: '7d' },
      isAnomaly,
      ts(evaluated),
      ts(evaluated - HOUR_MS),
      ts(evaluated),
      ts(evaluated),
    ]);
  }
  return out;
}

function policyRows(a: Account): Row[] {
  const at = a.created + 40 * DAY_MS + 10 * HOUR_MS;
  const reviewers = a.approvalType === 'auto' ? [] : [a.tenant.admin.id];
  return [
    [
      gid(a.tenant, KIND.approvalPolicy, a.g, 1),
      a.tenant.id,
      a.id,
      a.approvalType,
      a.k % 5 === 0 ? 'draft' : 'active',
      { reviewers, min_approvals: reviewers.length, expire_after_hours: a.approvalType === 'multi_level' ? 48 : 24 },
      ts(at),
      a.tenant.admin.id,
      ts(at),
      a.tenant.admin.id,
    ],
  ];
}

interface AutoPilot {
  id: string;
  tpl: AutoPilotTemplate;
  status: string;
  row: Row;
}

function autoPilots(a: Account): AutoPilot[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.autopilot));
  const choices = AUTO_PILOTS.filter((p) => !p.clusterOnly || a.cluster);
  const first = Math.floor(rng() * choices.length);
  const out: AutoPilot[] = [];
  for (let i = 0; i < SHAPE.autoPilotsPerAccount; i++) {
    const tpl = choices[(first + i * 3) % choices.length]!;
    const status = weighted(rng, [
      ['Active', 45],
      ['Dryrun', 25],
      ['Disabled', 15],
      ['DRAFT', 15],
    ] as const);
    const created = a.created + (40 + Math.floor(rng() * 60)) * DAY_MS + 10 * HOUR_MS;
    const lastRun = status === 'DRAFT' ? null : LAST_DAY + (18 + i) * HOUR_MS;
    const id = gid(a.tenant, KIND.autoPilot, a.g, i + 1);
    out.push({
      id,
      tpl,
      status,
      row: [
        id,
        a.tenant.id,
        a.id,
        gid(a.tenant, KIND.approvalPolicy, a.g, 1),
        tpl.name,
        tpl.description,
        tpl.category,
        status,
        tpl.trigger,
        'ui',
        {
          trigger: tpl.trigger,
          ...(tpl.schedule ? { cron: tpl.schedule } : {}),
          category: tpl.category,
          env: a.envName,
        },
        { max_actions_per_run: 5, dry_run: status === 'Dryrun' },
        { channels: ['email'], recipients: [a.tenant.admin.username] },
        tpl.schedule,
        lastRun === null ? null : rng() < 0.85 ? 'Completed' : 'Failed',
        ts(created),
        lastRun === null ? null : ts(lastRun),
        lastRun === null ? null : ts(lastRun),
        lastRun === null ? null : ts(lastRun + DAY_MS),
        ts(created),
        a.tenant.admin.id,
        ts(created),
        a.tenant.admin.id,
        ts(created),
      ],
    });
  }
  return out;
}

function reviewRows(a: Account, kind: number, user: string): Row[] {
  if (a.approvalType === 'auto') return [];
  return [
    [
      gid(a.tenant, kind, a.g, 1),
      a.tenant.id,
      a.id,
      gid(a.tenant, KIND.approvalPolicy, a.g, 1),
      user,
      ts(a.created + 40 * DAY_MS + 10 * HOUR_MS),
    ],
  ];
}

function approvalRows(a: Account): Row[] {
  if (a.approvalType === 'auto') return [];
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.autopilot, 2));
  return autoPilots(a).map((p, i) => {
    const status = weighted(rng, [
      ['Approved', 50],
      ['Pending', 25],
      ['Rejected', 15],
      ['Expired', 10],
    ] as const);
    const at = LAST_DAY - Math.floor(rng() * 20) * DAY_MS + 9 * HOUR_MS;
    const comment =
      status === 'Approved' ? 'Looks right' : status === 'Rejected' ? 'Not during the release freeze' : null;
    return [
      gid(a.tenant, KIND.approval, a.g, i + 1),
      a.tenant.id,
      a.id,
      gid(a.tenant, KIND.approvalPolicy, a.g, 1),
      p.id,
      p.tpl.category,
      a.tenant.admin.id,
      comment,
      status,
      { requested_by: a.tenant.viewer.id },
      ts(at),
      ts(status === 'Pending' ? at : at + 2 * HOUR_MS),
    ];
  });
}

function autoPilotTaskRows(a: Account): Row[] {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.autopilot, 3));
  const recs = recommendations(a);
  const out: Row[] = [];
  for (const p of autoPilots(a)) {
    for (let i = 0; i < SHAPE.autoPilotTasksPerAutoPilot; i++) {
      const rec = p.tpl.trigger === 'recommendation' ? recs[(out.length + i) % recs.length]! : null;
      const target = rec ? rec.resource : pick(rng, a.resources);
      const status =
        p.status === 'Dryrun'
          ? 'Dryrun'
          : p.status === 'DRAFT'
            ? 'Skipped'
            : i === SHAPE.autoPilotTasksPerAutoPilot - 1
              ? 'Scheduled'
              : weighted(rng, [
                  ['Executed', 50],
                  ['Complete', 30],
                  ['Failed', 12],
                  ['In_Progress', 8],
                ] as const);
      const at =
        status === 'Scheduled'
          ? NOW + (1 + Math.floor(rng() * 48)) * HOUR_MS
          : LAST_DAY - Math.floor(rng() * 30) * DAY_MS + 20 * HOUR_MS;
      out.push([
        gid(a.tenant, KIND.autoPilotTask, a.g, out.length + 1),
        a.tenant.id,
        a.id,
        p.id,
        rec ? rec.id : null,
        `${p.tpl.command.split(' ')[0]} ${target.name}`,
        p.tpl.command,
        status,
        { dry_run: status === 'Dryrun' },
        { resource: target.name, resource_id: target.id },
        { tags: { env: a.envName } },
        status === 'Failed' ? 'Permission denied by the account role' : null,
        status === 'Skipped' ? 'The auto-pilot is a draft' : status === 'Dryrun' ? 'Dry run: no change applied' : null,
        ts(at),
        ts(at - HOUR_MS),
        ts(status === 'Scheduled' ? at - HOUR_MS : at + 5 * MINUTE_MS),
      ]);
    }
  }
  return out;
}

type PlaybookTemplate = (typeof PLAYBOOKS)[number];
type PlaybookAction = keyof typeof PLAYBOOK_ACTION;

interface PlaybookExecution {
  id: string;
  status: string;
  at: number;
}

/** The executions of a playbook, newest first, about eleven days apart; `before` executions of the account come first. */
function playbookExecutions(rng: Rng, a: Account, status: string, before: number): PlaybookExecution[] {
  const executions: PlaybookExecution[] = [];
  for (let e = 0; e < SHAPE.cluster.executionsPerPlaybook; e++) {
    const st =
      status !== 'ACTIVE'
        ? 'Skipped'
        : weighted(rng, [
            ['Completed', 70],
            ['Failed', 20],
            ['InProgress', 10],
          ] as const);
    executions.push({
      id: gid(a.tenant, KIND.playbookExecution, a.g, before + executions.length + 1),
      status: st,
      at: LAST_DAY - (e * 11 + Math.floor(rng() * 10)) * DAY_MS + 4 * HOUR_MS,
    });
  }
  return executions;
}

function playbookRow(
  a: Account,
  p: PlaybookTemplate,
  id: string,
  status: string,
  created: number,
  last: PlaybookExecution,
): Row {
  const admin = a.tenant.admin.id;
  return [
    id,
    a.tenant.id,
    a.id,
    p.name,
    status,
    last.status,
    p.trigger,
    { namespaces: ['production'] },
    p.actions.map((action) => ({ action })),
    { max_parallel: 1 },
    { channels: ['slack'] },
    ts(created),
    ts(last.at),
    ts(last.at),
    ts(created),
    admin,
    ts(last.at),
    admin,
  ];
}

function playbookExecutionRow(a: Account, p: PlaybookTemplate, playbookId: string, e: PlaybookExecution): Row {
  return [
    e.id,
    a.tenant.id,
    a.id,
    playbookId,
    e.status,
    { trigger: p.trigger },
    e.status === 'Failed' ? { failed_task: 2 } : null,
    ts(e.at),
    e.status === 'Skipped' ? a.tenant.admin.id : null,
    ts(e.at),
    ts(e.at + 10 * MINUTE_MS),
  ];
}

/** Task `t` of an execution: a failed execution failed at its second task, one in progress is at its first. */
function playbookTaskStatus(executionStatus: string, t: number): string {
  return executionStatus === 'Skipped'
    ? 'Skipped'
    : executionStatus === 'InProgress'
      ? t === 0
        ? 'In_Progress'
        : 'Scheduled'
      : executionStatus === 'Failed' && t === 1
        ? 'Failed'
        : 'Complete';
}

function playbookTaskRow(
  a: Account,
  n: number,
  playbookId: string,
  e: PlaybookExecution,
  action: PlaybookAction,
  t: number,
  w: Workload,
): Row {
  const status = playbookTaskStatus(e.status, t);
  const at = e.at + t * MINUTE_MS;
  return [
    gid(a.tenant, KIND.playbookTask, a.g, n),
    a.tenant.id,
    a.id,
    playbookId,
    e.id,
    PLAYBOOK_ACTION[action],
    action === 'notify_slack'
      ? 'Notify #oncall'
      : `${action === 'restart_pod' ? 'Restart' : 'Collect logs of'} ${w.tpl.name}`,
    action === 'notify_slack' ? 'notification' : 'kubernetes',
    'action',
    status,
    { order: t + 1 },
    { workload: w.tpl.name },
    { namespace: w.tpl.namespace, name: w.tpl.name },
    status === 'Complete'
      ? action === 'notify_slack'
        ? 'message sent'
        : action === 'restart_pod'
          ? 'pod restarted'
          : 'logs attached'
      : null,
    status === 'Failed' ? 'Slack webhook answered 404' : null,
    ts(at),
    ts(at),
    ts(at + 30_000),
  ];
}

function playbooks(a: Account): { playbooks: Row[]; executions: Row[]; tasks: Row[] } {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.playbooks));
  const workloads = clusterWorkloads(a);
  const out = { playbooks: [] as Row[], executions: [] as Row[], tasks: [] as Row[] };
  PLAYBOOKS.forEach((p, i) => {
    const id = gid(a.tenant, KIND.autoPlaybook, a.g, i + 1);
    const status = weighted(rng, [
      ['ACTIVE', 60],
      ['DISABLED', 25],
      ['DRAFT', 15],
    ] as const);
    const created = a.created + (50 + Math.floor(rng() * 40)) * DAY_MS + 11 * HOUR_MS;
    const executions = playbookExecutions(rng, a, status, out.executions.length);
    out.playbooks.push(playbookRow(a, p, id, status, created, executions[0]!));
    for (const e of executions) {
      out.executions.push(playbookExecutionRow(a, p, id, e));
      const w = pick(rng, workloads);
      p.actions.forEach((action, t) => out.tasks.push(playbookTaskRow(a, out.tasks.length + 1, id, e, action, t, w)));
    }
  });
  return out;
}

/** What the agent of a cluster was asked to do, and by whom. */
const AGENT_ACTIONS = [
  ['restart_pod', 'auto_playbook'],
  ['collect_logs', 'ai'],
  ['scale_workload', 'auto_pilot'],
] as const;

/** The agent's tasks; a disconnected agent's last task is still pending. */
function agentTaskRows(a: Account, rng: Rng, agentId: string, connected: boolean): Row[] {
  const workloads = clusterWorkloads(a);
  return AGENT_ACTIONS.map(([action, source], i) => {
    const w = pick(rng, workloads);
    const status =
      i === AGENT_ACTIONS.length - 1 && !connected
        ? 'pending'
        : weighted(rng, [
            ['completed', 80],
            ['failed', 10],
            ['pending', 10],
          ] as const);
    const at = LAST_DAY - Math.floor(rng() * 30) * DAY_MS + (4 + i) * HOUR_MS;
    return [
      gid(a.tenant, KIND.agentTask, a.g, i + 1),
      a.tenant.id,
      a.id,
      agentId,
      action,
      { namespace: w.tpl.namespace, workload: w.tpl.name },
      status === 'completed' ? { ok: true } : status === 'failed' ? { ok: false, error: 'forbidden' } : null,
      w.resourceId,
      source,
      source === 'auto_playbook' ? gid(a.tenant, KIND.playbookExecution, a.g, 1) : null,
      status,
      tsz(at),
      a.tenant.admin.id,
      tsz(at + (status === 'pending' ? 0 : 90_000)),
    ];
  });
}

function agents(a: Account): { agent: Row[]; tasks: Row[] } {
  const rng = mulberry32(seedOf(a.tenant.seed, a.g, STREAM.agents));
  const id = gid(a.tenant, KIND.agent, a.g, 1);
  const connected = rng() < 0.85;
  const seen = LAST_DAY + (connected ? 23 : 2) * HOUR_MS;
  const version = pick(rng, ['2.13.4', '2.14.0', '2.14.1']);
  const agent: Row[] = [
    [
      id,
      a.tenant.id,
      a.id,
      'kubernetes',
      connected ? 'connected' : 'disconnected',
      connected ? null : 'No heartbeat for 21 hours',
      version,
      SHORT[a.provider].cluster,
      pick(rng, ['1.28', '1.29', '1.30']),
      `agk_${a.tenant.slug}_${hex(a.g, 6)}`,
      { cluster: a.cluster, heartbeat: connected ? 'ok' : 'missed' },
      ts(seen),
      ts(seen),
      ts(a.created + 12 * DAY_MS),
      ts(seen),
    ],
  ];
  return { agent, tasks: agentTaskRows(a, rng, id, connected) };
}

/** Collects an account's knowledge-graph nodes and edges, numbering them in the order they are added. */
interface GraphBuilder {
  nodes: Row[];
  edges: Row[];
  /** Adds a node; returns its id. */
  node(
    key: string,
    type: string,
    level: string,
    labels: Record<string, string>,
    properties: Record<string, unknown>,
  ): string;
  edge(from: string, to: string, type: string, level: string, properties?: Record<string, unknown>): void;
}

function graphBuilder(a: Account): GraphBuilder {
  const at = LAST_DAY + 4 * HOUR_MS;
  const created = ts(at - 30 * DAY_MS);
  const updated = ts(at);
  const nodes: Row[] = [];
  const edges: Row[] = [];
  const node: GraphBuilder['node'] = (key, type, level, labels, properties) => {
    const id = gid(a.tenant, KIND.kgNode, a.g, nodes.length + 1);
    nodes.push([
      id,
      a.tenant.id,
      a.id,
      key,
      type,
      level,
      labels,
      properties,
      { kind: type },
      true,
      42,
      created,
      updated,
    ]);
    return id;
  };
  const edge: GraphBuilder['edge'] = (from, to, type, level, properties = {}) => {
    edges.push([
      gid(a.tenant, KIND.kgEdge, a.g, edges.length + 1),
      a.tenant.id,
      a.id,
      from,
      to,
      type,
      level,
      properties,
      created,
      updated,
    ]);
  };
  return { nodes, edges, node, edge };
}

/** Which workloads call which (namespace/name). */
const WORKLOAD_CALLS = [
  ['production/web-frontend', 'production/api-server'],
  ['production/api-server', 'production/postgres'],
  ['production/checkout', 'production/payments-worker'],
  ['production/api-server', 'data/kafka'],
  ['staging/web-frontend', 'staging/api-server'],
  ['monitoring/grafana', 'monitoring/prometheus-server'],
] as const;

/** The cluster's namespaces, their workloads (by namespace/name) and its nodes, under the cluster's resource node. */
function addClusterGraph(g: GraphBuilder, a: Account, cluster: string, clusterNode: string): void {
  const ns = new Map<string, string>();
  for (const name of NAMESPACES) {
    const id = g.node(`namespace:${cluster}/${name}`, 'Namespace', 'namespace', { cluster, namespace: name }, { name });
    ns.set(name, id);
    g.edge(clusterNode, id, 'CONTAINS', 'namespace');
  }
  const wl = new Map<string, string>();
  for (const w of WORKLOADS) {
    const id = g.node(
      `workload:${cluster}/${w.namespace}/${w.name}`,
      w.kind,
      'workload',
      { cluster, namespace: w.namespace, app: w.name },
      { name: w.name, replicas: w.replicas },
    );
    wl.set(`${w.namespace}/${w.name}`, id);
    g.edge(ns.get(w.namespace)!, id, 'CONTAINS', 'workload');
  }
  for (let i = 0; i < SHAPE.cluster.nodes; i++) {
    const id = g.node(`node:${cluster}/${nodeName(a, i)}`, 'Node', 'node', { cluster }, { name: nodeName(a, i) });
    g.edge(clusterNode, id, 'CONTAINS', 'node');
  }
  for (const [from, to] of WORKLOAD_CALLS)
    g.edge(wl.get(from)!, wl.get(to)!, 'CALLS', 'workload', {
      protocol: 'http',
      port: to.endsWith('postgres') ? 5432 : to.endsWith('kafka') ? 9092 : 8080,
    });
}

function graph(a: Account): { nodes: Row[]; edges: Row[] } {
  const g = graphBuilder(a);
  const root = g.node(
    `account:${a.id}`,
    'CloudAccount',
    'account',
    { provider: a.provider, env: a.envName },
    { name: a.name, region: a.region },
  );
  const resourceNode = new Map<number, string>();
  for (const r of a.resources) {
    const id = g.node(
      `resource:${r.id}`,
      r.tpl.type,
      'resource',
      { region: r.region, app: r.app },
      { name: r.name, service: r.tpl.service },
    );
    resourceNode.set(r.j, id);
    g.edge(root, id, 'CONTAINS', 'resource');
  }
  if (a.cluster) addClusterGraph(g, a, a.cluster, resourceNode.get(1)!);
  return { nodes: g.nodes, edges: g.edges };
}
