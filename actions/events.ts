import type { ActionContext } from './context';
import { analyticOperation } from './analytics/operation';
import { invalid, unknownName } from './analytics/errors';
import { query, sql, tenantOf, uuidArg, type Sql } from './api';
import { jsonbWhere, whereOf, type Dataset, type Field, uuidText } from './analytics/dataset';

/**
 * Events and Incidents. Each event row carries what its fingerprint's history says: when the
 * fingerprint was first seen, how many events carry it, and whether this event is that first one
 * (a new issue) or a repeat (recurring).
 */

/**
 * The tenant's events, each with its fingerprint's history. The tenant is compared inside the windowed
 * subquery (the statement compares it outside too), as hand-written SQL does: partitioned by tenant
 * and fingerprint over every tenant's rows, the sort under the window carried the tenant column too
 * and cost PostgreSQL about 4% more a statement at 10 connections (`bench/statement-ab.ts`).
 */
const EVENT_FROM = (tenant: Sql): Sql => sql`(SELECT ev.*,
    CASE WHEN ev.fingerprint IS NULL THEN ev.created_at ELSE min(ev.created_at) OVER (PARTITION BY ev.fingerprint) END AS fp_first_seen_at,
    CASE WHEN ev.fingerprint IS NULL THEN 1 ELSE count(*) OVER (PARTITION BY ev.fingerprint) END AS fp_event_count
  FROM events ev WHERE ev.tenant = ${tenant}) e`;

const common: Record<string, Field> = {
  account_id: uuidText('e.cloud_account_id'),
  aggregation_key: { sql: 'e.aggregation_key', type: 'string' },
  category: { sql: 'e.category', type: 'string' },
  cluster: { sql: 'e.cluster', type: 'string' },
  computed_priority: { sql: 'e.computed_priority', type: 'string' },
  computed_score: { sql: 'e.computed_score', type: 'int' },
  created_at: { sql: 'e.created_at', type: 'datetime' },
  finding_type: { sql: 'e.finding_type', type: 'string' },
  fingerprint: { sql: 'e.fingerprint', type: 'string' },
  fingerprint_first_seen_at: { sql: 'e.fp_first_seen_at', type: 'datetime' },
  is_new_issue: { sql: '(e.created_at = e.fp_first_seen_at)', type: 'boolean' },
  labels: { sql: 'e.labels::text', type: 'string' },
  nb_status: { sql: 'e.nb_status', type: 'string' },
  nb_status_changed_at: { sql: 'e.nb_status_changed_at', type: 'datetime' },
  nb_status_changed_by: uuidText('e.nb_status_changed_by'),
  principal: { sql: 'e.principal', type: 'string' },
  priority: { sql: 'e.priority', type: 'string' },
  resource_id: uuidText('e.cloud_resource_id'),
  score_confidence: { sql: 'e.score_confidence::float8', type: 'float' },
  score_factors: { sql: 'e.score_factors', type: 'json' },
  service_key: { sql: 'e.service_key', type: 'string' },
  source: { sql: 'e.source', type: 'string' },
  status: { sql: 'e.status', type: 'string' },
  subject_name: { sql: 'e.subject_name', type: 'string' },
  subject_namespace: { sql: 'e.subject_namespace', type: 'string' },
  subject_node: { sql: 'e.subject_node', type: 'string' },
  subject_owner: { sql: 'e.subject_owner', type: 'string' },
  subject_type: { sql: 'e.subject_type', type: 'string' },
  tenant_id: { ...uuidText('e.tenant'), constant: true },
  title: { sql: 'e.title', type: 'string' },
};

const commonWhere = [
  'account_id',
  'aggregation_key',
  'category',
  'cluster',
  'created_at',
  'finding_type',
  'fingerprint',
  'fingerprint_first_seen_at',
  'is_new_issue',
  'nb_status',
  'principal',
  'priority',
  'resource_id',
  'service_key',
  'source',
  'status',
  'subject_name',
  'subject_namespace',
  'subject_node',
  'subject_owner',
  'subject_type',
  'tenant_id',
  'title',
];

const extraWhere = {
  ends_at: { sql: 'e.ends_at', type: 'datetime' as const },
  finding_id: { sql: 'e.finding_id', type: 'string' as const },
  id: uuidText('e.id'),
  labels: jsonbWhere('e.labels'),
  starts_at: { sql: 'e.starts_at', type: 'datetime' as const },
};

/** The latest event of a group (by created_at, then id) says what `latest_*` are. */
const latest = (sql: string) => `(array_agg(${sql} ORDER BY e.created_at DESC, e.id DESC))[1]`;
const countWhere = (cond: string) => `count(*) FILTER (WHERE ${cond})::int`;
const distinct = (sql: string) => `coalesce(jsonb_agg(DISTINCT ${sql}) FILTER (WHERE ${sql} IS NOT NULL), '[]'::jsonb)`;

export const eventGroupings: Dataset = {
  name: 'event_groupings_v2',
  from: EVENT_FROM,
  tenant: { sql: 'e.tenant', cast: 'uuid' },
  fields: { ...common, fingerprint_event_count: { sql: 'e.fp_event_count::int', type: 'int' } },
  aggregates: {
    count_aggregation_key: { sql: 'count(DISTINCT e.aggregation_key)::int', type: 'int' },
    // Pod and node issues by subject type; application issues are the others.
    count_application_issues: {
      sql: countWhere(`coalesce(lower(e.subject_type), '') NOT IN ('pod', 'node')`),
      type: 'int',
    },
    count_new_issues: { sql: countWhere('e.created_at = e.fp_first_seen_at'), type: 'int' },
    count_node_issues: { sql: countWhere(`lower(e.subject_type) = 'node'`), type: 'int' },
    count_pod_issues: { sql: countWhere(`lower(e.subject_type) = 'pod'`), type: 'int' },
    count_priority_debug: { sql: countWhere(`upper(e.priority) = 'DEBUG'`), type: 'int' },
    count_priority_high: { sql: countWhere(`upper(e.priority) = 'HIGH'`), type: 'int' },
    count_priority_info: { sql: countWhere(`upper(e.priority) = 'INFO'`), type: 'int' },
    count_priority_low: { sql: countWhere(`upper(e.priority) = 'LOW'`), type: 'int' },
    count_priority_medium: { sql: countWhere(`upper(e.priority) = 'MEDIUM'`), type: 'int' },
    count_priority_p0: { sql: countWhere(`upper(e.computed_priority) = 'P0'`), type: 'int' },
    count_priority_p1: { sql: countWhere(`upper(e.computed_priority) = 'P1'`), type: 'int' },
    count_priority_p2: { sql: countWhere(`upper(e.computed_priority) = 'P2'`), type: 'int' },
    count_priority_p3: { sql: countWhere(`upper(e.computed_priority) = 'P3'`), type: 'int' },
    count_recurring_issues: { sql: countWhere('e.created_at > e.fp_first_seen_at'), type: 'int' },
    count_subject_name: { sql: 'count(DISTINCT e.subject_name)::int', type: 'int' },
    distinct_aggregation_key: { sql: distinct('e.aggregation_key'), type: 'json' },
    distinct_priority: { sql: distinct('e.priority'), type: 'json' },
    distinct_status: { sql: distinct('e.status'), type: 'json' },
    distinct_subject_name: { sql: distinct('e.subject_name'), type: 'json' },
    distinct_subject_namespace: { sql: distinct('e.subject_namespace'), type: 'json' },
    event_count: { sql: 'count(*)', type: 'float' },
    latest_computed_priority: { sql: latest('e.computed_priority'), type: 'string' },
    latest_computed_score: { sql: latest('e.computed_score'), type: 'int' },
    latest_event_id: { sql: latest('e.id::text'), type: 'string' },
    latest_nb_status: { sql: latest('e.nb_status'), type: 'string' },
    latest_score_confidence: { sql: latest('e.score_confidence::float8'), type: 'float' },
    latest_score_factors: { sql: latest('e.score_factors'), type: 'json' },
    latest_title: { sql: latest('e.title'), type: 'string' },
    max_computed_score: { sql: 'max(e.computed_score)', type: 'int' },
    max_created_at: { sql: 'max(e.created_at)', type: 'datetime' },
    min_created_at: { sql: 'min(e.created_at)', type: 'datetime' },
  },
  where: whereOf(common, commonWhere, {
    ...extraWhere,
    computed_priority: { sql: 'e.computed_priority', type: 'string' },
  }),
};

const eventFields: Record<string, Field> = {
  ...common,
  description: { sql: 'e.description', type: 'string' },
  ends_at: { sql: 'e.ends_at', type: 'datetime' },
  evidences: { sql: 'e.evidences::text', type: 'string' },
  failure: { sql: 'e.failure', type: 'string' },
  finding_id: { sql: 'e.finding_id', type: 'string' },
  id: uuidText('e.id'),
  // Pull requests are linked from the labels that the remediation workflows set.
  pr_title: { sql: `(e.labels ->> 'pr_title')`, type: 'string' },
  pr_url: { sql: `(e.labels ->> 'pr_url')`, type: 'string' },
  starts_at: { sql: 'e.starts_at', type: 'datetime' },
  updated_at: { sql: 'e.updated_at', type: 'datetime' },
  urgency: { sql: 'e.urgency', type: 'string' },
};

export const events: Dataset = {
  name: 'events_v2',
  from: EVENT_FROM,
  tenant: { sql: 'e.tenant', cast: 'uuid' },
  fields: eventFields,
  where: whereOf(eventFields, [...commonWhere, 'description', 'failure', 'updated_at'], {
    ...extraWhere,
    evidences: jsonbWhere('e.evidences'),
  }),
};

export const event_groupings_v2 = analyticOperation(eventGroupings);
export const events_v2 = analyticOperation(events);

/**
 * event_get_filter_values: for each requested filter type, the distinct values the caller's events
 * take in a time range (created_at from start_time to end_time, both inclusive, either optional),
 * optionally in one account, with the number of events of each value: the most frequent first (then
 * by value), at most `limit` (default 100, at most 1000) per type; `total` is the number of distinct
 * values before the limit. Empty and null values are left out. `label` needs label_key and gives
 * that label's values; `label_key` gives the label names.
 */
const WORKLOAD_KINDS = ['cronjob', 'daemonset', 'deployment', 'job', 'replicaset', 'rollout', 'statefulset'];
const FILTER_VALUE_SQL: Record<string, string> = {
  account_id: 'e.cloud_account_id::text',
  category: 'e.category',
  cluster: 'e.cluster',
  computed_priority: 'e.computed_priority',
  finding_type: 'e.finding_type',
  namespace: 'e.subject_namespace',
  nb_status: 'e.nb_status',
  node: 'e.subject_node',
  priority: 'e.priority',
  service_key: 'e.service_key',
  severity: 'e.severity',
  source: 'e.source',
  status: 'e.status',
  subject_name: 'e.subject_name',
  subject_type: 'e.subject_type',
  // The workload of the event: its subject's owner (a pod's workload), or the subject itself when
  // it is a workload.
  workload: `coalesce(e.subject_owner, CASE WHEN lower(e.subject_type) IN (${WORKLOAD_KINDS.map((k) => `'${k}'`).join(', ')}) THEN e.subject_name END)`,
};
const LABEL = 'label';
const LABEL_KEY = 'label_key';
const FILTER_TYPES = [...Object.keys(FILTER_VALUE_SQL), LABEL, LABEL_KEY];
export const FILTER_VALUES_DEFAULT_LIMIT = 100;
export const FILTER_VALUES_MAX_LIMIT = 1000;

interface EventFilterValuesRequest {
  account_id?: string | null;
  end_time?: string | null;
  filter_types: readonly string[];
  label_key?: string | null;
  limit?: number | null;
  start_time?: string | null;
}

export async function event_get_filter_values(args: { request: EventFilterValuesRequest }, ctx: ActionContext) {
  const tenant = tenantOf(ctx).toLowerCase();
  const req = args.request;
  const limit = checkedRequest(req);
  const account =
    req.account_id === null || req.account_id === undefined ? null : uuidArg(req.account_id, 'request.account_id');
  const types = filterTypesOf(req);
  const conditions = [sql`e.tenant = ${tenant}::uuid`];
  if (req.start_time) conditions.push(sql`e.created_at >= (${req.start_time}::timestamptz AT TIME ZONE 'UTC')`);
  if (req.end_time) conditions.push(sql`e.created_at <= (${req.end_time}::timestamptz AT TIME ZONE 'UTC')`);
  if (account) conditions.push(sql`e.cloud_account_id = ${account}::uuid`);
  const filters = [];
  for (const type of types) {
    const rows = await query(ctx.db, filterValuesSql(type, req, sql.join(conditions, ' AND '), limit));
    filters.push({
      filter_type: type,
      total: rows.length ? Number(rows[0].total) : 0,
      values: rows.map((r) => ({ value: String(r.value), count: Number(r.n) })),
    });
  }
  return { account_id: req.account_id ?? null, filters };
}

/** The limit of a request, with its time range checked. */
function checkedRequest(req: EventFilterValuesRequest): number {
  const limit = req.limit ?? FILTER_VALUES_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > FILTER_VALUES_MAX_LIMIT) {
    throw invalid(`limit must be an integer from 1 to ${FILTER_VALUES_MAX_LIMIT}`, '$.request.limit');
  }
  for (const key of ['start_time', 'end_time'] as const) {
    const v = req[key];
    if (v !== null && v !== undefined && Number.isNaN(Date.parse(v)))
      throw invalid(`${key} is not a date-time: ${JSON.stringify(v)}`, `$.request.${key}`);
  }
  if (req.start_time && req.end_time && Date.parse(req.start_time) > Date.parse(req.end_time)) {
    throw invalid('start_time is after end_time', '$.request.start_time');
  }
  return limit;
}

/** The filter types asked for, checked, once each. */
function filterTypesOf(req: EventFilterValuesRequest): string[] {
  return req.filter_types
    .map((t, i) => {
      if (!FILTER_TYPES.includes(t)) throw unknownName('filter type', t, FILTER_TYPES, `$.request.filter_types[${i}]`);
      if (t === LABEL && !req.label_key)
        throw invalid('filter type "label" needs label_key', `$.request.filter_types[${i}]`);
      return t;
    })
    .filter((t, i, all) => all.indexOf(t) === i);
}

/** The values of one filter type among the events meeting `conditions`, with their counts and total. */
function filterValuesSql(type: string, req: EventFilterValuesRequest, conditions: Sql, limit: number): Sql {
  const from =
    type === LABEL_KEY
      ? sql`events e CROSS JOIN LATERAL jsonb_object_keys(CASE WHEN jsonb_typeof(e.labels) = 'object' THEN e.labels ELSE '{}'::jsonb END) AS k(v)`
      : sql`events e`;
  const value =
    type === LABEL
      ? sql`(e.labels ->> ${req.label_key ?? null}::text)`
      : type === LABEL_KEY
        ? sql`k.v`
        : sql.text(FILTER_VALUE_SQL[type]);
  return sql`SELECT x.v AS value, count(*)::int AS n, (count(*) OVER ())::int AS total
      FROM (SELECT ${value} AS v FROM ${from} WHERE ${conditions}) x
      WHERE x.v IS NOT NULL AND x.v <> '' GROUP BY x.v ORDER BY n DESC, x.v LIMIT ${limit}::bigint`;
}
