import { analyticOperation } from './analytics/operation';
import { jsonbWhere, whereOf, type Dataset, type Field } from './analytics/dataset';

/**
 * Events and Incidents. Each event row carries what its fingerprint's history says: when the
 * fingerprint was first seen, how many events carry it, and whether this event is that first one
 * (a new issue) or a repeat (recurring).
 */

const EVENT_FROM = `(SELECT ev.*,
    CASE WHEN ev.fingerprint IS NULL THEN ev.created_at ELSE min(ev.created_at) OVER (PARTITION BY ev.tenant, ev.fingerprint) END AS fp_first_seen_at,
    CASE WHEN ev.fingerprint IS NULL THEN 1 ELSE count(*) OVER (PARTITION BY ev.tenant, ev.fingerprint) END AS fp_event_count
  FROM events ev) e`;

const common: Record<string, Field> = {
  account_id: { sql: 'e.cloud_account_id::text', type: 'string' },
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
  nb_status_changed_by: { sql: 'e.nb_status_changed_by::text', type: 'string' },
  principal: { sql: 'e.principal', type: 'string' },
  priority: { sql: 'e.priority', type: 'string' },
  resource_id: { sql: 'e.cloud_resource_id::text', type: 'string' },
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
  tenant_id: { sql: 'e.tenant::text', type: 'string', constant: true },
  title: { sql: 'e.title', type: 'string' },
};

const commonWhere = [
  'account_id', 'aggregation_key', 'category', 'cluster', 'created_at', 'finding_type', 'fingerprint',
  'fingerprint_first_seen_at', 'is_new_issue', 'nb_status', 'principal', 'priority', 'resource_id', 'service_key', 'source',
  'status', 'subject_name', 'subject_namespace', 'subject_node', 'subject_owner', 'subject_type', 'tenant_id', 'title',
];

const extraWhere = {
  ends_at: { sql: 'e.ends_at', type: 'datetime' as const },
  finding_id: { sql: 'e.finding_id', type: 'string' as const },
  id: { sql: 'e.id::text', type: 'string' as const },
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
    count_application_issues: { sql: countWhere(`coalesce(lower(e.subject_type), '') NOT IN ('pod', 'node')`), type: 'int' },
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
  where: whereOf(common, commonWhere, { ...extraWhere, computed_priority: { sql: 'e.computed_priority', type: 'string' } }),
};

const eventFields: Record<string, Field> = {
  ...common,
  description: { sql: 'e.description', type: 'string' },
  ends_at: { sql: 'e.ends_at', type: 'datetime' },
  evidences: { sql: 'e.evidences::text', type: 'string' },
  failure: { sql: 'e.failure', type: 'string' },
  finding_id: { sql: 'e.finding_id', type: 'string' },
  id: { sql: 'e.id::text', type: 'string' },
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
