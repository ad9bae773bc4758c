import { query, sql, type Queryable, type Sql } from '../api';
import type { Reference } from './types';

/**
 * Retrieval for conversations: the records of the tenant's account that a question is about, found
 * with PostgreSQL full-text search (English stemming, ranked by ts_rank) over events,
 * recommendations, knowledge bases and earlier messages, plus the structured look-ups that
 * full-text search cannot do (the top recommendations by savings, spend by service). Every query is
 * bound to the tenant and the account.
 */

export interface Found {
  ref: Reference;
  /** One line the offline answer can show. */
  line: string;
  /** Text the model reads. */
  text: string;
  facts?: Record<string, unknown>;
}

export interface Retrieved {
  intents: Set<Intent>;
  account: { id: string; name: string; provider: string | null };
  topRecommendations: Found[];
  recommendations: Found[];
  spendByService: Found[];
  spendPeriod: { from: string; to: string } | null;
  events: Found[];
  knowledge: Found[];
  earlier: Found[];
}

export type Intent = 'recommendations' | 'spend' | 'incident';

/** What a question asks about, from its words: decides which look-ups run beyond full-text search. */
export function intentsOf(message: string): Set<Intent> {
  const m = message.toLowerCase();
  const out = new Set<Intent>();
  if (/recommend|saving|\bsave\b|optimi[sz]|rightsiz|reduce (the )?(cost|spend|bill)|cheaper|waste/.test(m))
    out.add('recommendations');
  if (/\bspen[dt]|\bbill|how much|cost (by|per)|costs? of|top cost|biggest cost/.test(m)) out.add('spend');
  if (
    /\bwhy\b|cause|crash|fail|error|\boom|incident|event|alert|outage|\bdown\b|restart|pending|throttl|pull|evict|pressure|latency/.test(
      m,
    )
  )
    out.add('incident');
  return out;
}

/**
 * The distinct words of the message joined with "or" for websearch_to_tsquery: any shared word
 * matches (a question rarely repeats a record word for word), and ts_rank puts the records that
 * share the most words first. websearch_to_tsquery never fails on odd input; quotes and minus
 * signs are dropped so that the user cannot turn words into phrases or exclusions by accident.
 */
export function webOr(message: string): string {
  const words = (message.toLowerCase().match(/[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]/g) ?? []).filter(
    (w) => w.length > 2 && w !== 'or' && w !== 'and',
  );
  return [...new Set(words)].slice(0, 24).join(' or ');
}

/** The question's words as a full-text query (see webOr). */
const tsQuery = (q: string): Sql => sql`websearch_to_tsquery('english', ${q}::text)`;

/** The tenant's account a look-up is confined to. */
interface Scope {
  tenant: string;
  account: string;
}

export async function retrieve(
  db: Queryable,
  tenant: string,
  account: Retrieved['account'],
  message: string,
  conversationId: string,
  currentMessageId: string,
): Promise<Retrieved> {
  const intents = intentsOf(message);
  const q = webOr(message);
  const scope: Scope = { tenant, account: account.id };
  const out: Retrieved = {
    intents,
    account,
    topRecommendations: [],
    recommendations: [],
    spendByService: [],
    spendPeriod: null,
    events: [],
    knowledge: [],
    earlier: [],
  };
  if (intents.has('recommendations') || (intents.has('spend') && /recommend|saving/.test(message.toLowerCase())))
    out.topRecommendations = await topRecommendations(db, scope);
  if (q) {
    out.recommendations = await matchingRecommendations(db, scope, q);
    out.events = await matchingEvents(db, scope, q);
    out.knowledge = await matchingKnowledge(db, scope, q);
    out.earlier = await earlierMessages(db, tenant, q, conversationId, currentMessageId);
  }
  if (intents.has('spend')) Object.assign(out, await spendByService(db, scope));
  return out;
}

const RECOMMENDATION_COLUMNS = sql`r.id::text, r.rule_name, r.category, r.severity, r.status, r.estimated_savings::float8 AS savings, r.recommendation,
              res.name AS resource, res.service_name`;
const RECOMMENDATION_FROM = sql`recommendation r LEFT JOIN cloud_resourses res ON res.id = r.resource_id AND res.tenant = r.tenant_id`;

/** The account's open recommendations with the largest estimated savings. */
async function topRecommendations(db: Queryable, { tenant, account }: Scope): Promise<Found[]> {
  const rows = await query(
    db,
    sql`SELECT ${RECOMMENDATION_COLUMNS}
         FROM ${RECOMMENDATION_FROM}
        WHERE r.tenant_id = ${tenant}::uuid AND r.cloud_account_id = ${account}::uuid AND NOT r.is_dismissed
          AND coalesce(r.status, 'Open') NOT IN ('Closed', 'Dismissed', 'Archive') AND r.estimated_savings > 0
        ORDER BY r.estimated_savings DESC, r.id LIMIT 5`,
  );
  return rows.map(recommendationFound);
}

/** Recommendations whose rule, category or body share words with the question. */
async function matchingRecommendations(db: Queryable, { tenant, account }: Scope, q: string): Promise<Found[]> {
  const text = sql`to_tsvector('english', coalesce(r.rule_name, '') || ' ' || coalesce(r.category, '') || ' ' || r.recommendation::text)`;
  const rows = await query(
    db,
    sql`SELECT ${RECOMMENDATION_COLUMNS},
              ts_rank(${text}, ${tsQuery(q)}) AS rank
         FROM ${RECOMMENDATION_FROM}
        WHERE r.tenant_id = ${tenant}::uuid AND r.cloud_account_id = ${account}::uuid
          AND ${text} @@ ${tsQuery(q)}
        ORDER BY rank DESC, r.estimated_savings DESC NULLS LAST, r.id LIMIT 5`,
  );
  return rows.map(recommendationFound);
}

/** Events whose title, description or failure share words with the question. */
async function matchingEvents(db: Queryable, { tenant, account }: Scope, q: string): Promise<Found[]> {
  const text = sql`to_tsvector('english', title || ' ' || coalesce(description, '') || ' ' || coalesce(failure, ''))`;
  const rows = await query(
    db,
    sql`SELECT id::text, title, status, severity, subject_name, subject_namespace, to_char(created_at, 'YYYY-MM-DD HH24:MI') AS at,
              ts_rank(${text}, ${tsQuery(q)}) AS rank
         FROM events
        WHERE tenant = ${tenant}::uuid AND cloud_account_id = ${account}::uuid
          AND ${text} @@ ${tsQuery(q)}
        ORDER BY rank DESC, created_at DESC, id LIMIT 5`,
  );
  return rows.map((e) => ({
    ref: { type: 'event', id: String(e.id), title: String(e.title) },
    line: `${e.title} (${e.severity}, ${e.status}, ${e.at})`,
    text: `${e.title}; severity ${e.severity}; status ${e.status}; at ${e.at}; subject ${e.subject_namespace ?? ''}/${e.subject_name}`,
  }));
}

/** The account's knowledge bases, then the rule articles, that share words with the question. */
async function matchingKnowledge(db: Queryable, { tenant, account }: Scope, q: string): Promise<Found[]> {
  const docs = await query(
    db,
    sql`SELECT id::text, name, left(data, 400) AS excerpt, ts_rank(search, ${tsQuery(q)}) AS rank FROM ai_knowledgebase
        WHERE tenant_id = ${tenant}::uuid AND cloud_account_id = ${account}::uuid AND status = 'active' AND search @@ ${tsQuery(q)}
        ORDER BY rank DESC, name LIMIT 3`,
  );
  const text = sql`to_tsvector('english', rule_name || ' ' || description || ' ' || diagnosis || ' ' || mitigation)`;
  const articles = await query(
    db,
    sql`SELECT id::text, rule_name, description, mitigation,
              ts_rank(${text}, ${tsQuery(q)}) AS rank
         FROM knowledge_base
        WHERE ${text} @@ ${tsQuery(q)}
        ORDER BY rank DESC, rule_name LIMIT 3`,
  );
  return [
    ...docs.map((d) => ({
      ref: { type: 'ai_knowledgebase', id: String(d.id), title: String(d.name) },
      line: `${d.name}: ${oneLine(String(d.excerpt), 200)}`,
      text: `${d.name}: ${d.excerpt}`,
    })),
    ...articles.map((k) => ({
      ref: { type: 'knowledge_base', id: String(k.id), title: String(k.rule_name) },
      line: `${k.rule_name}: ${k.description} ${k.mitigation}`,
      text: `${k.rule_name}: ${k.description} Mitigation: ${k.mitigation}`,
    })),
  ];
}

/** Earlier messages of the conversation (not the current one) that share words with the question. */
async function earlierMessages(
  db: Queryable,
  tenant: string,
  q: string,
  conversationId: string,
  currentMessageId: string,
): Promise<Found[]> {
  const rows = await query(
    db,
    sql`SELECT id::text, role, content, ts_rank(search, ${tsQuery(q)}) AS rank FROM ai_message
        WHERE tenant_id = ${tenant}::uuid AND conversation_id = ${conversationId}::uuid AND id <> ${currentMessageId}::uuid
          AND search @@ ${tsQuery(q)}
        ORDER BY rank DESC, created_at DESC LIMIT 3`,
  );
  return rows.map((m) => ({
    ref: { type: 'ai_message', id: String(m.id), title: oneLine(String(m.content), 80) },
    line: `${m.role === 'user' ? 'you asked' : 'I answered'}: ${oneLine(String(m.content), 160)}`,
    text: `${m.role}: ${m.content}`,
  }));
}

/** Spend of the account's latest 30 days of data (billing data lags, so "now" may hold none yet), by service. */
async function spendByService(
  db: Queryable,
  { tenant, account }: Scope,
): Promise<Pick<Retrieved, 'spendByService' | 'spendPeriod'>> {
  const rows = await query(
    db,
    sql`WITH last AS (SELECT max(date) AS d FROM spends WHERE tenant = ${tenant}::uuid AND cloud_account = ${account}::uuid)
       SELECT coalesce(res.service_name, 'Other') AS service, sum(s.amount)::float8 AS amount, count(*)::int AS lines, min(s.id::text) AS id,
              to_char(min(last.d) - interval '29 days', 'YYYY-MM-DD') AS from_day, to_char(min(last.d), 'YYYY-MM-DD') AS to_day
         FROM spends s CROSS JOIN last LEFT JOIN cloud_resourses res ON res.id = s.cloud_resource_id AND res.tenant = s.tenant
        WHERE s.tenant = ${tenant}::uuid AND s.cloud_account = ${account}::uuid AND s.date > last.d - interval '30 days'
        GROUP BY 1 ORDER BY amount DESC, service LIMIT 5`,
  );
  return {
    spendPeriod: rows.length ? { from: String(rows[0]!.from_day), to: String(rows[0]!.to_day) } : null,
    spendByService: rows.map((r) => ({
      ref: { type: 'spend', id: String(r.id), title: `spend on ${r.service}` },
      line: `${r.service}: ${money(Number(r.amount))} (${r.lines} spend lines)`,
      text: `${r.service}: ${Number(r.amount).toFixed(2)} from ${r.from_day} to ${r.to_day}`,
      facts: { amount: Number(r.amount) },
    })),
  };
}

function recommendationFound(r: Record<string, unknown>): Found {
  const body = (r.recommendation ?? {}) as Record<string, unknown>;
  const title = String(body.title ?? r.rule_name ?? 'recommendation');
  const where = [r.resource, r.service_name].filter(Boolean).join(', ');
  return {
    ref: { type: 'recommendation', id: String(r.id), title },
    line: `${title}${where ? ` on ${where}` : ''}: saves about ${money(Number(r.savings ?? 0))} a month (${r.rule_name}, ${r.severity}, ${r.status})`,
    text: `${title}; ${body.description ?? ''}; resource ${where}; estimated monthly savings ${Number(r.savings ?? 0).toFixed(2)}; rule ${r.rule_name}; category ${r.category}; severity ${r.severity}; status ${r.status}`,
    facts: { savings: Number(r.savings ?? 0) },
  };
}

export const money = (x: number) =>
  `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
};
