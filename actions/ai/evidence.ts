import { createHash } from 'node:crypto';
import { query, sql, type Queryable, type Sql } from '../api';
import type { LogsConfig } from '../logs/config';
import { queryLoki, type LogLine } from '../logs/loki';
import type { LogSelector } from '../logs/selector';
import type { Evidence, EventRow, EvidenceItem } from './types';

/**
 * Evidence gathering, shared by the built-in reasoner and the model: whatever answers an event sees
 * the same records. Every query filters by the caller's tenant (and the event's account), so nothing
 * of another tenant can reach an answer. Windows are around the event's start, since what caused it
 * happened shortly before and what it caused shortly after.
 */

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;
/** A `timestamp` column (named by code, stored as UTC) as ISO text; both drivers then return the same string. */
const isoTs = (col: string): Sql => sql.text(`to_char(${col}, ${ISO})`);
/** A `timestamptz` column (named by code) as ISO text in UTC. */
const isoTz = (col: string): Sql => sql.text(`to_char(${col} AT TIME ZONE 'UTC', ${ISO})`);

/** Limits that keep the evidence small enough for a model's context and a quick answer. */
const LIMITS = { related: 20, logs: 40, recommendations: 10, anomalies: 10, knowledge: 5 };

export async function loadEvent(db: Queryable, tenant: string, eventId: string): Promise<EventRow | null> {
  const [row] = await query(
    db,
    sql`SELECT id::text, cloud_account_id::text AS account_id, cloud_resource_id::text AS resource_id, title, description, failure,
            severity, status, source, category, finding_type, aggregation_key, cluster, subject_name, subject_namespace,
            subject_node, subject_owner, subject_type, labels, evidences, ${isoTs('coalesce(starts_at, created_at)')} AS created_at
       FROM events WHERE id = ${eventId}::uuid AND tenant = ${tenant}::uuid`,
  );
  return (row as unknown as EventRow) ?? null;
}

/** Everything the analysts read about one event of the tenant. */
export async function gatherEvidence(
  db: Queryable,
  tenant: string,
  event: EventRow,
  logsConfig?: LogsConfig,
): Promise<Evidence> {
  const account = event.account_id;
  const items: EvidenceItem[] = [eventItem(event, 'event')];
  const pod = await podOfEvent(db, tenant, event);
  const workload = workloadOf(event, pod?.workload_name as string | undefined);
  const node =
    event.subject_node ??
    (event.subject_type?.toLowerCase() === 'node' ? event.subject_name : null) ??
    (pod?.node_name as string | null) ??
    null;
  const ns = event.subject_namespace;
  const at = event.created_at;

  if (account) {
    items.push(...(await relatedEvents(db, tenant, account, event, workload, node)));
    // The log lines from where logs_query reads them: Loki when LOKI_URL is set, else the logs table.
    const subject: LogSubject = { account, at, ns, workload, subject: event.subject_name, node };
    items.push(...(await (logsConfig?.lokiUrl ? lokiLogs(logsConfig, subject) : logs(db, tenant, subject))));
    if (workload && ns) items.push(...(await workloadState(db, tenant, account, ns, workload, at)));
    if (node) items.push(...(await nodeState(db, tenant, account, node)));
    items.push(...(await history(db, tenant, event.id)));
    const resourceName = await resourceNameOf(db, tenant, event.resource_id);
    const names = [workload, event.subject_name, resourceName].filter((n): n is string => !!n);
    items.push(...(await recommendations(db, tenant, account, event.resource_id, names)));
    items.push(...(await anomalies(db, tenant, account, at, names, ns, workload)));
    if (event.resource_id)
      items.push(...(await spends(db, tenant, event.resource_id, at, resourceName ?? event.subject_name)));
  }
  items.push(...(await knowledge(db, tenant, account, event)));
  return { event, workload, items };
}

function eventItem(e: EventRow, role: 'event' | 'related_event' | 'change'): EvidenceItem {
  const parts = [
    e.title,
    e.description,
    e.failure,
    e.labels ? JSON.stringify(e.labels) : null,
    e.evidences ? JSON.stringify(e.evidences) : null,
  ];
  return {
    ref: { type: 'event', id: e.id, title: e.title },
    role,
    text: parts.filter(Boolean).join('\n'),
    at: e.created_at,
    facts: {
      severity: e.severity,
      status: e.status,
      category: e.category,
      finding_type: e.finding_type,
      source: e.source,
      subject: e.subject_name,
      namespace: e.subject_namespace,
    },
  };
}

/** The pod the event names, when it names one: it tells the workload and the node. */
async function podOfEvent(db: Queryable, tenant: string, e: EventRow) {
  if (!e.account_id || !e.subject_namespace) return null;
  const [row] = await query(
    db,
    sql`SELECT name, workload_name, node_name FROM k8s_pods
      WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${e.account_id}::uuid
        AND namespace = ${e.subject_namespace}::text AND name = ${e.subject_name}::text LIMIT 1`,
  );
  return row ?? null;
}

/** The workload an event is about: its owner, the workload of its pod, or the subject itself. */
function workloadOf(e: EventRow, podWorkload: string | undefined): string | null {
  if (e.subject_owner) return e.subject_owner;
  if (podWorkload) return podWorkload;
  const type = (e.subject_type ?? '').toLowerCase();
  if (type === 'node' || !e.subject_namespace) return null;
  // A pod name without a pod row: drop the ReplicaSet hash and pod suffix Kubernetes adds.
  if (type === 'pod') return e.subject_name.replace(/(-[a-z0-9]{8,10})?-[a-z0-9]{5}$/, '');
  return e.subject_name;
}

/** Events of the same account around the same time on the same workload, namespace, node or resource. */
async function relatedEvents(
  db: Queryable,
  tenant: string,
  account: string,
  e: EventRow,
  workload: string | null,
  node: string | null,
): Promise<EvidenceItem[]> {
  const at = e.created_at.replace('Z', '');
  const rows = await query(
    db,
    sql`SELECT id::text, cloud_account_id::text AS account_id, cloud_resource_id::text AS resource_id, title, description, failure, severity, status,
            source, category, finding_type, aggregation_key, cluster, subject_name, subject_namespace, subject_node, subject_owner, subject_type,
            labels, evidences, ${isoTs('coalesce(starts_at, created_at)')} AS created_at
       FROM events
      WHERE tenant = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND id <> ${e.id}::uuid
        AND coalesce(starts_at, created_at) BETWEEN ${at}::timestamp - interval '6 hours' AND ${at}::timestamp + interval '6 hours'
        AND ((cluster = ${e.cluster}::text AND subject_namespace = ${e.subject_namespace}::text
              AND (subject_name IN (${workload}::text, ${e.subject_name}::text) OR subject_owner = ${workload}::text OR ${workload}::text IS NULL))
          OR (cluster = ${e.cluster}::text AND ${node}::text IS NOT NULL AND (subject_node = ${node}::text OR subject_name = ${node}::text))
          OR (${e.resource_id}::uuid IS NOT NULL AND cloud_resource_id = ${e.resource_id}::uuid))
      ORDER BY abs(extract(epoch FROM coalesce(starts_at, created_at) - ${at}::timestamp)), id
      LIMIT ${LIMITS.related}::int`,
  );
  return rows.map((r) => {
    const ev = r as unknown as EventRow;
    // Rollouts, upgrades and config changes are the "recent changes" a cause often follows.
    const change = /deploy|rollout|helm|config|upgrade/i.test(`${ev.category} ${ev.finding_type}`);
    return eventItem(ev, change ? 'change' : 'related_event');
  });
}

/** Whose log lines: the event's workload in its namespace (or every line of the namespace without one), and its node. */
interface LogSubject {
  account: string;
  at: string;
  ns: string | null;
  workload: string | null;
  subject: string;
  node: string | null;
}

/** Warnings and errors first, then newest first: what the analysts read before the LIMITS.logs cut. */
const NOTABLE = ['error', 'fatal', 'critical', 'warn', 'warning'];

/** Log lines of the workload (or node) from two hours before the event to one hour after, errors first. */
async function logs(db: Queryable, tenant: string, q: LogSubject): Promise<EvidenceItem[]> {
  if (!q.ns && !q.node) return [];
  const rows = await query(
    db,
    sql`SELECT id::text, ${isoTz('ts')} AS at, severity, message, labels FROM logs
      WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${q.account}::uuid
        AND ts BETWEEN ${q.at}::timestamptz - interval '2 hours' AND ${q.at}::timestamptz + interval '1 hour'
        AND ((${q.ns}::text IS NOT NULL AND labels->>'namespace' = ${q.ns}::text
              AND (${q.workload}::text IS NULL OR labels->>'app' = ${q.workload}::text OR labels->>'workload' = ${q.workload}::text
                   OR labels->>'pod' LIKE ${q.workload}::text || '-%' OR labels->>'pod' = ${q.subject}::text))
          OR (${q.node}::text IS NOT NULL AND (labels->>'node' = ${q.node}::text OR labels->>'host' = ${q.node}::text)))
      ORDER BY (lower(severity) = ANY(${NOTABLE}::text[])) DESC, ts DESC, id DESC
      LIMIT ${LIMITS.logs}::int`,
  );
  return rows.map((r) => logItem(String(r.id), String(r.at), String(r.severity), String(r.message), r.labels));
}

function logItem(id: string, at: string, severity: string, message: string, labels: unknown): EvidenceItem {
  return {
    ref: { type: 'log', id, title: `${severity}: ${message.slice(0, 80)}` },
    role: 'log',
    text: message,
    at,
    facts: { severity, labels },
  };
}

const LOKI_LINES_PER_QUERY = 1000;

/**
 * The same lines from Loki: the namespace's streams and the node's (by its `node` or `host` label) in
 * the same window, each account-confined by queryLoki, then matched and ordered as the SQL above does.
 * Loki lines have no id: theirs is `loki:` and a hash of time, labels and text, the same on every read.
 * A Loki that fails leaves the evidence without log lines rather than failing the analysis.
 */
async function lokiLogs(config: LogsConfig, q: LogSubject): Promise<EvidenceItem[]> {
  if (!q.ns && !q.node) return [];
  const at = Date.parse(q.at);
  const window = { start: new Date(at - 2 * 3600_000).toISOString(), end: new Date(at + 3600_000).toISOString() };
  const by = (label: string, value: string): LogSelector => ({ matchers: [{ label, op: '=', value }], filters: [] });
  const selectors = [q.ns && by('namespace', q.ns), q.node && by('node', q.node), q.node && by('host', q.node)].filter(
    (x): x is LogSelector => !!x,
  );
  const settings = { lokiUrl: config.lokiUrl!, lokiTenant: config.lokiTenant, lokiTimeoutMs: config.lokiTimeoutMs };
  const answers = await Promise.all(
    selectors.map((selector) =>
      queryLoki(settings, { account: q.account, selector, ...window, limit: LOKI_LINES_PER_QUERY }).catch(
        () => [] as LogLine[],
      ),
    ),
  );
  const ofSubject = (l: LogLine) => {
    const { namespace, app, workload, pod, node, host } = l.labels;
    const inWorkload =
      !q.workload ||
      app === q.workload ||
      workload === q.workload ||
      (pod ?? '').startsWith(`${q.workload}-`) ||
      pod === q.subject;
    return (
      (q.ns !== null && namespace === q.ns && inWorkload) || (q.node !== null && (node === q.node || host === q.node))
    );
  };
  const byId = new Map<string, LogLine>();
  for (const line of answers.flat().filter(ofSubject)) byId.set(lokiLineId(line), line);
  const notable = (l: LogLine) => (NOTABLE.includes(l.severity.toLowerCase()) ? 1 : 0);
  return [...byId.entries()]
    .sort(([, a], [, b]) => notable(b) - notable(a) || Date.parse(b.timestamp) - Date.parse(a.timestamp))
    .slice(0, LIMITS.logs)
    .map(([id, l]) => logItem(id, l.timestamp.replace(/\.\d+Z$/, 'Z'), l.severity, l.message, l.labels));
}

export function lokiLineId(l: LogLine): string {
  const labels = Object.entries(l.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `loki:${createHash('sha256')
    .update(JSON.stringify([l.timestamp, labels, l.message]))
    .digest('hex')
    .slice(0, 24)}`;
}

/** Where a workload is: the tenant's account and the namespace. */
interface WorkloadPlace {
  tenant: string;
  account: string;
  ns: string;
}

/** The workload's state and its pods (status, restarts, last termination), and whether it changed lately. */
async function workloadState(
  db: Queryable,
  tenant: string,
  account: string,
  ns: string,
  workload: string,
  at: string,
): Promise<EvidenceItem[]> {
  const place = { tenant, account, ns };
  return [...(await workloadItems(db, place, workload, at)), ...(await podItems(db, place, workload))];
}

/** The workload row, and a change when it was updated within a day before the event. */
async function workloadItems(
  db: Queryable,
  { tenant, account, ns }: WorkloadPlace,
  workload: string,
  at: string,
): Promise<EvidenceItem[]> {
  const before = at.replace('Z', '');
  const [w] = await query(
    db,
    sql`SELECT id::text, name, namespace, kind, status, replicas, ready_pods, total_pods, cpu_request::float8, cpu_limit::float8,
            memory_request::float8, memory_limit::float8, meta, ${isoTs('updated_at')} AS updated_at,
            (updated_at BETWEEN ${before}::timestamp - interval '1 day' AND ${before}::timestamp) AS changed_before
       FROM k8s_workloads WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid
        AND namespace = ${ns}::text AND name = ${workload}::text LIMIT 1`,
  );
  if (!w) return [];
  const items: EvidenceItem[] = [
    {
      ref: { type: 'k8s_workload', id: String(w.id), title: `${w.kind} ${w.namespace}/${w.name}` },
      role: 'workload',
      text: `${w.kind} ${w.namespace}/${w.name} status ${w.status}, ${w.ready_pods}/${w.total_pods} pods ready; ${JSON.stringify(w.meta ?? {})}`,
      facts: {
        status: w.status,
        ready: w.ready_pods,
        total: w.total_pods,
        cpu_request: w.cpu_request,
        cpu_limit: w.cpu_limit,
        memory_request: w.memory_request,
        memory_limit: w.memory_limit,
      },
    },
  ];
  if (w.changed_before) {
    items.push({
      ref: { type: 'k8s_workload', id: String(w.id), title: `${w.kind} ${w.namespace}/${w.name} changed` },
      role: 'change',
      text: `${w.kind} ${w.namespace}/${w.name} was updated at ${w.updated_at}, within a day before the event`,
      at: String(w.updated_at),
    });
  }
  return items;
}

/** The workload's pods: status, restarts (summed over containers), node. */
async function podItems(
  db: Queryable,
  { tenant, account, ns }: WorkloadPlace,
  workload: string,
): Promise<EvidenceItem[]> {
  const pods = await query(
    db,
    sql`SELECT cloud_resource_id::text AS id, name, status, node_name, restart_count, meta FROM k8s_pods
      WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND namespace = ${ns}::text AND workload_name = ${workload}::text
      ORDER BY name LIMIT 10`,
  );
  return pods.map((p) => {
    const restarts = Object.values((p.restart_count ?? {}) as Record<string, number>).reduce(
      (a, b) => a + Number(b || 0),
      0,
    );
    return {
      ref: { type: 'k8s_pod', id: String(p.id), title: `pod ${ns}/${p.name}` },
      role: 'pod' as const,
      text: `pod ${ns}/${p.name} status ${p.status}, ${restarts} restarts, node ${p.node_name ?? 'none'}; ${JSON.stringify(p.meta ?? {})}`,
      facts: { status: p.status, restarts, node: p.node_name },
    };
  });
}

async function nodeState(db: Queryable, tenant: string, account: string, node: string): Promise<EvidenceItem[]> {
  const rows = await query(
    db,
    sql`SELECT cloud_resource_id::text AS id, name, conditions, taints, cpu_allocatable::float8, memory_allocatable FROM k8s_nodes
      WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND name = ${node}::text LIMIT 1`,
  );
  return rows.map((n) => ({
    ref: { type: 'k8s_node', id: String(n.id), title: `node ${n.name}` },
    role: 'node' as const,
    text: `node ${n.name} conditions: ${n.conditions ?? 'none'}; taints: ${n.taints ?? 'none'}`,
    facts: { conditions: n.conditions, taints: n.taints },
  }));
}

/** The event's own history (status changes): what changed on it, and when. */
async function history(db: Queryable, tenant: string, eventId: string): Promise<EvidenceItem[]> {
  const rows = await query(
    db,
    sql`SELECT id::text, change_type, change_reason, new_value, ${isoTz('changed_at')} AS at FROM event_history
      WHERE tenant_id = ${tenant}::uuid AND event_id = ${eventId}::uuid ORDER BY changed_at DESC LIMIT 5`,
  );
  return rows.map((h) => ({
    ref: { type: 'event_history', id: String(h.id), title: `${h.change_type}: ${h.change_reason}` },
    role: 'change' as const,
    text: `${h.change_type}: ${h.change_reason} ${JSON.stringify(h.new_value)}`,
    at: String(h.at),
  }));
}

async function resourceNameOf(db: Queryable, tenant: string, resourceId: string | null): Promise<string | null> {
  if (!resourceId) return null;
  const [r] = await query(
    db,
    sql`SELECT name FROM cloud_resourses WHERE id = ${resourceId}::uuid AND tenant = ${tenant}::uuid`,
  );
  return (r?.name as string) ?? null;
}

/** Open recommendations on the same resource or workload, the largest savings first. */
async function recommendations(
  db: Queryable,
  tenant: string,
  account: string,
  resourceId: string | null,
  names: string[],
): Promise<EvidenceItem[]> {
  const rows = await query(
    db,
    sql`SELECT id::text, rule_name, category, severity, status, estimated_savings::float8 AS savings, recommendation FROM recommendation
      WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND NOT is_dismissed
        AND coalesce(status, 'Open') NOT IN ('Closed', 'Dismissed', 'Archive')
        AND (resource_id = ${resourceId}::uuid OR account_object_id = ANY(${names}::text[]) OR recommendation->>'resource' = ANY(${names}::text[]))
      ORDER BY estimated_savings DESC NULLS LAST, id LIMIT ${LIMITS.recommendations}::int`,
  );
  return rows.map((r) => {
    const body = (r.recommendation ?? {}) as Record<string, unknown>;
    return {
      ref: { type: 'recommendation', id: String(r.id), title: String(body.title ?? r.rule_name ?? 'recommendation') },
      role: 'recommendation' as const,
      text: `${r.rule_name} (${r.category}, ${r.severity}): ${body.title ?? ''} ${body.description ?? ''}`,
      facts: { rule_name: r.rule_name, category: r.category, savings: r.savings, body },
    };
  });
}

/** Anomalies the detector flagged on the same workload or resource within a day of the event. */
async function anomalies(
  db: Queryable,
  tenant: string,
  account: string,
  at: string,
  names: string[],
  ns: string | null,
  workload: string | null,
): Promise<EvidenceItem[]> {
  if (!names.length) return [];
  const around = at.replace('Z', '');
  const rows = await query(
    db,
    sql`SELECT id::text, anomaly_type, name, namespace, pod_name, current_value::float8 AS current_value, reference_value, ${isoTs('evaluated_at')} AS at
       FROM anomaly
      WHERE tenant = ${tenant}::uuid AND account_id = ${account}::uuid AND is_anomaly
        AND evaluated_at BETWEEN ${around}::timestamp - interval '1 day' AND ${around}::timestamp + interval '1 day'
        AND (name = ANY(${names}::text[]) OR (${workload}::text IS NOT NULL AND pod_name LIKE ${workload}::text || '-%'))
        AND (${ns}::text IS NULL OR namespace IS NULL OR namespace = ${ns}::text)
      ORDER BY evaluated_at DESC, id LIMIT ${LIMITS.anomalies}::int`,
  );
  return rows.map((a) => ({
    ref: { type: 'anomaly', id: String(a.id), title: `${a.anomaly_type} anomaly on ${a.name}` },
    role: 'anomaly' as const,
    text: `${a.anomaly_type} anomaly on ${a.name}: current ${a.current_value}, reference ${JSON.stringify(a.reference_value)}`,
    at: String(a.at),
    facts: { anomaly_type: a.anomaly_type, current: a.current_value, reference: a.reference_value },
  }));
}

/** The resource's daily spend over the two weeks before the event: a spike shows against its baseline. */
async function spends(
  db: Queryable,
  tenant: string,
  resourceId: string,
  at: string,
  name: string,
): Promise<EvidenceItem[]> {
  const until = at.replace('Z', '');
  const rows = await query(
    db,
    sql`SELECT to_char(date_trunc('day', date), 'YYYY-MM-DD') AS day, sum(amount)::float8 AS amount, min(id::text) AS id FROM spends
      WHERE tenant = ${tenant}::uuid AND cloud_resource_id = ${resourceId}::uuid
        AND date BETWEEN ${until}::timestamp - interval '14 days' AND ${until}::timestamp
      GROUP BY 1 ORDER BY 1`,
  );
  if (!rows.length) return [];
  const series = rows.map((r) => ({ day: String(r.day), amount: Number(r.amount) }));
  const last = rows[rows.length - 1]!;
  return [
    {
      ref: { type: 'spend', id: String(last.id), title: `daily spend of ${name}` },
      role: 'spend',
      text: `daily spend of ${name}: ${series.map((s) => `${s.day} ${s.amount.toFixed(2)}`).join(', ')}`,
      facts: { series },
    },
  ];
}

/** The searchable text of a rule article (knowledge_base). */
const ARTICLE_TEXT = sql`to_tsvector('english', rule_name || ' ' || description || ' ' || diagnosis || ' ' || mitigation)`;

/** Rule articles (knowledge_base) and the tenant's own knowledge bases that speak of the event. */
async function knowledge(db: Queryable, tenant: string, account: string | null, e: EventRow): Promise<EvidenceItem[]> {
  const terms = orTerms(`${e.title} ${e.description ?? ''} ${e.failure ?? ''} ${e.finding_type}`);
  const items: EvidenceItem[] = [];
  const ruleNames = [e.finding_type, e.aggregation_key.split(':')[0] ?? ''].filter(Boolean);
  const kb = await query(
    db,
    sql`SELECT id::text, rule_name, description, diagnosis, mitigation,
            ts_rank(${ARTICLE_TEXT}, to_tsquery('english', ${terms}::text)) AS rank
       FROM knowledge_base
      WHERE rule_name = ANY(${ruleNames}::text[])
         OR (${terms}::text <> '' AND ${ARTICLE_TEXT} @@ to_tsquery('english', ${terms}::text))
      ORDER BY (rule_name = ANY(${ruleNames}::text[])) DESC, rank DESC, rule_name LIMIT ${LIMITS.knowledge}::int`,
  );
  for (const k of kb) {
    items.push({
      ref: { type: 'knowledge_base', id: String(k.id), title: String(k.rule_name) },
      role: 'knowledge',
      text: `${k.rule_name}: ${k.description} Diagnosis: ${k.diagnosis} Mitigation: ${k.mitigation}`,
      facts: { mitigation: k.mitigation },
    });
  }
  if (terms && account) {
    const docs = await query(
      db,
      sql`SELECT id::text, name, left(data, 600) AS excerpt, ts_rank(search, to_tsquery('english', ${terms}::text)) AS rank FROM ai_knowledgebase
        WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND status = 'active'
          AND search @@ to_tsquery('english', ${terms}::text)
        ORDER BY rank DESC, name LIMIT ${LIMITS.knowledge}::int`,
    );
    for (const d of docs) {
      items.push({
        ref: { type: 'ai_knowledgebase', id: String(d.id), title: String(d.name) },
        role: 'knowledge',
        text: `${d.name}: ${d.excerpt}`,
      });
    }
  }
  return items;
}

const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'from',
  'this',
  'that',
  'are',
  'was',
  'has',
  'have',
  'what',
  'which',
  'why',
  'how',
  'who',
  'does',
  'did',
  'not',
  'but',
  'you',
  'your',
  'our',
  'its',
  'into',
  'over',
  'than',
  'then',
  'there',
  'their',
  'about',
  'detected',
  'event',
]);

/**
 * The distinct words of a text as an OR query for to_tsquery: letters and digits only, so nothing
 * the user or an event wrote can break the query's syntax; OR so that any shared word matches and
 * ts_rank orders by how many do.
 */
export function orTerms(text: string, max = 16): string {
  const words = (text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []).filter((w) => !STOP.has(w));
  return [...new Set(words)].slice(0, max).join(' | ');
}
