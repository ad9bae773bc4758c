import type { ActionContext } from '../context';
import { query, refuseReadOnly, RequestError, sql, tenantOf, uuidArg } from '../api';
import { gatherEvidence, loadEvent } from './evidence';
import { askModel, SYSTEM_PROMPT } from './model-answer';
import { diagnose, type Diagnosis } from './reasoner';
import { RULES } from './rules/catalogue';
import { BUILTIN_ANALYST, type Evidence, type EventRow, type Reference } from './types';

/**
 * ai_get_rca and ai_get_recommendation: one pipeline. Evidence is gathered once; the built-in
 * analyst always diagnoses it (its ranking is cheap, goes to the model as a hint, and is the answer
 * when there is no model); the model, when configured and within budget, writes the answer from the
 * same evidence. The latest analysis of each kind is stored per event.
 */

/** The suggestion kinds ai_get_recommendation accepts. */
export const RECOMMENDATION_TYPES = {
  logs: "what the event's logs show, grouped by message, with a suggestion for each",
  fix: 'the steps to fix the most likely cause, with the evidence behind them',
} as const;
type RecommendationType = keyof typeof RECOMMENDATION_TYPES;

export async function ai_get_rca(args: Record<string, unknown>, ctx: ActionContext) {
  const tenant = tenantOf(ctx);
  const { account, event } = await eventOf(ctx, tenant, args);
  if (args.generate !== true) {
    const stored = await storedAnalysis(ctx, tenant, event.id, 'rca');
    if (stored) return { data: stored };
    return {
      data: {
        status: 'not-found',
        event_id: event.id,
        account_id: account,
        message: 'No analysis of this event is stored yet; ask again with generate: true to make one.',
      },
    };
  }
  refuseReadOnly(ctx, "making an analysis (it is stored, and spends the tenant's language-model budget)");
  const data = await analyse(ctx, tenant, account, event, 'rca');
  return { data: await store(ctx, tenant, account, event.id, 'rca', data) };
}

export async function ai_get_recommendation(args: Record<string, unknown>, ctx: ActionContext) {
  const tenant = tenantOf(ctx);
  const type = String(args.recommendation_type ?? '').toLowerCase();
  if (!(type in RECOMMENDATION_TYPES)) {
    throw new RequestError(
      'validation-failed',
      `recommendation_type must be one of ${Object.keys(RECOMMENDATION_TYPES)
        .map((t) => `"${t}"`)
        .join(', ')}, got ${JSON.stringify(args.recommendation_type)}`,
      '$.recommendation_type',
    );
  }
  const { account, event } = await eventOf(ctx, tenant, args);
  if (!ctx.writers.allowed) {
    // A read-only role reads the one stored last, made for a role that may.
    const stored = await storedAnalysis(ctx, tenant, event.id, `recommendation:${type}`);
    if (stored) return { data: stored };
  }
  refuseReadOnly(ctx, "making a recommendation (it is stored, and spends the tenant's language-model budget)");
  const data = await analyse(ctx, tenant, account, event, type as RecommendationType);
  return { data: await store(ctx, tenant, account, event.id, `recommendation:${type}`, data) };
}

/** The event of the arguments, in the caller's tenant and the named account; another's is not found. */
async function eventOf(
  ctx: ActionContext,
  tenant: string,
  args: Record<string, unknown>,
): Promise<{ account: string; event: EventRow }> {
  const account = uuidArg(args.account_id, 'account_id');
  const eventId = uuidArg(args.event_id, 'event_id');
  const event = await loadEvent(ctx.db, tenant, eventId);
  if (!event || event.account_id !== account) {
    throw new RequestError('validation-failed', `event ${eventId} not found in account ${account}`, '$.event_id');
  }
  return { account, event };
}

async function storedAnalysis(ctx: ActionContext, tenant: string, eventId: string, kind: string) {
  const [row] = await query(
    ctx.db,
    sql`SELECT data, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS stored_at FROM ai_event_analysis
      WHERE tenant_id = ${tenant}::uuid AND event_id = ${eventId}::uuid AND kind = ${kind}::text`,
  );
  return row ? { ...(row.data as Record<string, unknown>), source: 'stored', stored_at: row.stored_at } : null;
}

/** Keeps the latest analysis of the kind (a regenerated one replaces it). */
async function store(
  ctx: ActionContext,
  tenant: string,
  account: string,
  eventId: string,
  kind: string,
  data: Record<string, unknown>,
) {
  const [row] = await query(
    ctx.db,
    sql`INSERT INTO ai_event_analysis (tenant_id, cloud_account_id, event_id, kind, answered_by, data)
     VALUES (${tenant}::uuid, ${account}::uuid, ${eventId}::uuid, ${kind}::text, ${String(data.answered_by)}::text, ${JSON.stringify(data)}::jsonb)
     ON CONFLICT (tenant_id, event_id, kind) DO UPDATE SET answered_by = EXCLUDED.answered_by, data = EXCLUDED.data, updated_at = now()
     RETURNING to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS stored_at`,
  );
  return { ...data, source: 'generated', stored_at: row.stored_at };
}

type Task = 'rca' | RecommendationType;

/** Evidence, the built-in diagnosis, and the model's answer when it gives one. */
async function analyse(
  ctx: ActionContext,
  tenant: string,
  account: string,
  event: EventRow,
  task: Task,
): Promise<Record<string, unknown>> {
  const ev = await gatherEvidence(ctx.db, tenant, event, ctx.config.logs);
  const dx = diagnose(ev);
  const builtin = task === 'rca' ? rcaBody(dx) : task === 'logs' ? logsBody(ev, dx) : fixBody(ev, dx);
  const outcome = await askModel(ctx, {
    tenant,
    account,
    module: 'investigation',
    operation: task === 'rca' ? 'ai_get_rca' : 'ai_get_recommendation',
    subjectId: event.id,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: prompt(ev, dx, task) },
    ],
  });
  const common = {
    status: 'completed',
    event_id: event.id,
    account_id: account,
    ...(task === 'rca' ? {} : { recommendation_type: task }),
    evidence_counts: counts(ev),
    references: references(ev),
    generated_at: new Date().toISOString(),
  };
  if (outcome.kind === 'model') {
    return {
      ...common,
      ...builtin,
      analyst: 'model',
      model: outcome.model,
      answered_by: `model:${outcome.model}`,
      summary: outcome.content,
      usage: { prompt_tokens: outcome.promptTokens, completion_tokens: outcome.completionTokens },
      // The built-in ranking stays in the answer, named as such: it is what the model was given.
      builtin_summary: dx.summary,
    };
  }
  return {
    ...common,
    ...builtin,
    analyst: BUILTIN_ANALYST,
    answered_by: 'builtin',
    ...(outcome.notice
      ? { notice: outcome.notice, fallback: outcome.fallback, summary: `${outcome.notice} ${builtin.summary}` }
      : {}),
  };
}

function rcaBody(dx: Diagnosis) {
  return { summary: dx.summary, root_causes: dx.causes };
}

/** ai_get_recommendation "fix": the actions of the leading causes, each with its evidence. */
function fixBody(ev: Evidence, dx: Diagnosis) {
  const leading = dx.causes.filter((c, i) => i === 0 || c.score >= 0.45).slice(0, 2);
  const suggestions = leading.flatMap((c) =>
    c.actions.map((a) => ({
      title: a,
      cause: c.cause,
      evidence: c.evidence.slice(0, 3).map(({ type, id, title }) => ({ type, id, title })),
    })),
  );
  const summary = leading.length
    ? `${dx.analyst[0]!.toUpperCase()}${dx.analyst.slice(1)}: to fix "${ev.event.title}", address ${leading.map((c) => c.title.toLowerCase()).join(', then ')}.`
    : `${dx.summary}`;
  return { summary, suggestions, root_causes: dx.causes };
}

/** Log lines of one message shape. */
interface LogGroup {
  pattern: string;
  count: number;
  severity: string;
  first_at: string;
  last_at: string;
  example: string;
  log_ids: string[];
}

/** ai_get_recommendation "logs": the event's log lines grouped by message shape, each with what it suggests. */
function logsBody(ev: Evidence, dx: Diagnosis) {
  const patterns = [...logGroups(ev).values()]
    .sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || b.count - a.count)
    .map((g) => {
      const rule = RULES.find((r) => [...r.strong, ...r.weak].some((p) => p.test(g.example)));
      return {
        ...g,
        cause: rule?.cause ?? null,
        suggestion: rule
          ? rule.actions(ev)[0]
          : severityRank(g.severity) >= 3
            ? `Find where "${g.example.slice(0, 80)}" is raised and why; it repeats ${g.count} time(s) around the event`
            : null,
      };
    });
  const suggestions = [...new Set(patterns.map((p) => p.suggestion).filter((s): s is string => !!s))].map((title) => ({
    title,
    evidence: patterns
      .filter((p) => p.suggestion === title)
      .flatMap((p) => p.log_ids.slice(0, 3).map((id) => ({ type: 'log', id, title: p.example.slice(0, 80) }))),
  }));
  const errors = patterns.filter((p) => severityRank(p.severity) >= 3).reduce((n, p) => n + p.count, 0);
  const summary = patterns.length
    ? `${dx.analyst[0]!.toUpperCase()}${dx.analyst.slice(1)}: ${patterns.reduce((n, p) => n + p.count, 0)} log line(s) around "${ev.event.title}" in ${patterns.length} pattern(s), ${errors} of them warnings or errors.` +
      (dx.causes[0] ? ` They point at ${dx.causes[0].title.toLowerCase()}.` : '')
    : `${dx.analyst[0]!.toUpperCase()}${dx.analyst.slice(1)}: no log lines of the workload were found around "${ev.event.title}".`;
  return { summary, log_patterns: patterns, suggestions, root_causes: dx.causes };
}

/** The evidence's log lines by message shape, in the order each shape first appears. */
function logGroups(ev: Evidence): Map<string, LogGroup> {
  const groups = new Map<string, LogGroup>();
  for (const item of ev.items.filter((i) => i.role === 'log')) {
    // Numbers, hex ids and quoted names vary between otherwise identical lines.
    const pattern = item.text
      .replace(/\b[0-9a-f]{8,}\b/gi, '<id>')
      .replace(/\d+(\.\d+)?/g, '<n>')
      .slice(0, 160);
    const g = groups.get(pattern);
    const at = item.at ?? '';
    if (g) {
      g.count++;
      g.log_ids.push(item.ref.id);
      if (at < g.first_at) g.first_at = at;
      if (at > g.last_at) g.last_at = at;
    } else {
      groups.set(pattern, {
        pattern,
        count: 1,
        severity: String(item.facts?.severity ?? ''),
        first_at: at,
        last_at: at,
        example: item.text,
        log_ids: [item.ref.id],
      });
    }
  }
  return groups;
}

const severityRank = (s: string) =>
  ({ fatal: 5, critical: 5, error: 4, warn: 3, warning: 3, info: 2, debug: 1 })[s.toLowerCase()] ?? 0;

function counts(ev: Evidence): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of ev.items) out[i.role] = (out[i.role] ?? 0) + 1;
  return out;
}

/** Every record the evidence holds, once: what an answer, whoever wrote it, is based on. */
export function references(ev: Evidence): Reference[] {
  const seen = new Set<string>();
  const out: Reference[] = [];
  for (const i of ev.items) {
    const key = `${i.ref.type}:${i.ref.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(i.ref);
  }
  return out.slice(0, 60);
}

const TASKS: Record<Task, string> = {
  rca: 'Find the root cause of this event. Rank the likely causes, cite the evidence for each, and list the actions to take.',
  logs: 'From the log lines in the evidence, say what they show about this event and suggest what to do about each kind of message.',
  fix: 'Give the concrete steps to fix the cause of this event, most effective first, citing the evidence for each.',
};

/** The model's request: the task, the event, every piece of evidence, and the built-in ranking as a hint. */
function prompt(ev: Evidence, dx: Diagnosis, task: Task): string {
  const e = ev.event;
  const evidence = ev.items.map((i) => ({
    ref: `${i.ref.type}:${i.ref.id}`,
    role: i.role,
    at: i.at,
    title: i.ref.title,
    text: i.text.slice(0, 600),
  }));
  return [
    TASKS[task],
    '',
    `Event ${e.id}: ${e.title} (severity ${e.severity}, status ${e.status}, cluster ${e.cluster}, subject ${e.subject_type ?? ''} ${e.subject_namespace ?? ''}/${e.subject_name}, at ${e.created_at})`,
    '',
    'Evidence (JSON):',
    JSON.stringify(evidence),
    '',
    `Candidate causes from the ${BUILTIN_ANALYST} (rules over the same evidence): ` +
      (dx.causes.length ? dx.causes.map((c) => `${c.title} (score ${c.score})`).join('; ') : 'none matched'),
  ].join('\n');
}
