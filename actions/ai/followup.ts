import type { ActionContext } from '../context';
import {
  isTenantAccount,
  isUuid,
  query,
  refuseReadOnly,
  RequestError,
  sql,
  tenantOf,
  uuidArg,
  type Queryable,
} from '../api';
import { gatherEvidence, loadEvent } from './evidence';
import { askModel, SYSTEM_PROMPT } from './model-answer';
import { diagnose } from './reasoner';
import { money, retrieve, type Found, type Retrieved } from './retrieval';
import { BUILTIN_ANALYST, type Reference } from './types';
import type { ChatMessage } from './llm-client';

/**
 * ai_followup_response: a message in a conversation with the assistant. The question and the answer
 * are stored (ai_conversation, ai_message); the answer is built from what retrieval finds in the
 * tenant's account, by the model when one is configured and within budget, else by the built-in
 * analyst; every answer records its references (ai_reference) and a memory of the exchange
 * (ai_memory), which later questions can retrieve.
 */

const MAX_MESSAGE = 4000;

interface FollowupInput {
  message?: unknown;
  conversation_id?: unknown;
  account_id?: unknown;
}

export async function ai_followup_response(args: Record<string, unknown>, ctx: ActionContext) {
  const tenant = tenantOf(ctx);
  refuseReadOnly(ctx, "a conversation (it is stored, and spends the tenant's language-model budget)");
  const input = (args.request ?? {}) as FollowupInput;
  const message = messageOf(input);
  const account = await accountOf(ctx, tenant, input.account_id);
  const userId = isUuid(ctx.session.vars['x-hasura-user-id'] ?? '') ? ctx.session.vars['x-hasura-user-id']! : null;
  const { conversationId, questionId } = await storeQuestion(ctx, tenant, account.id, input, message, userId);
  const found = await retrieve(ctx.db, tenant, account, message, conversationId, questionId);
  const offline = await builtinAnswer(ctx, tenant, message, found);
  const refs = dedupe([...offline.refs, ...allFound(found).map((f) => f.ref)]);

  const outcome = await askModel(ctx, {
    tenant,
    account: account.id,
    module: 'user_investigation',
    operation: 'ai_followup_response',
    subjectId: conversationId,
    conversationId,
    messages: await modelMessages(ctx, tenant, conversationId, questionId, message, found, offline.text),
  });
  const response =
    outcome.kind === 'model' ? outcome.content : outcome.notice ? `${outcome.notice}\n\n${offline.text}` : offline.text;
  const answeredBy = outcome.kind === 'model' ? `model:${outcome.model}` : 'builtin';
  const answer: Answer = { tenant, account: account.id, conversationId, message, response, answeredBy, refs };
  const answerId = await ctx.transaction((tx) => storeAnswer(tx, answer));
  return {
    conversation_id: conversationId,
    message_id: answerId,
    response,
    references: refs,
    status: 'completed',
    answered_by: answeredBy,
  };
}

/** The question, trimmed: not empty, at most MAX_MESSAGE characters. */
function messageOf(input: FollowupInput): string {
  const message = typeof input.message === 'string' ? input.message.trim() : '';
  if (!message) throw new RequestError('validation-failed', 'request.message must not be empty', '$.request.message');
  if (message.length > MAX_MESSAGE)
    throw new RequestError(
      'validation-failed',
      `request.message is longer than ${MAX_MESSAGE} characters`,
      '$.request.message',
    );
  return message;
}

/** The request's account, one of the tenant's (else not found, as one that does not exist), with its name. */
async function accountOf(ctx: ActionContext, tenant: string, given: unknown): Promise<Retrieved['account']> {
  const accountId = uuidArg(given, 'request.account_id');
  if (!(await isTenantAccount(ctx.db, tenant, accountId)))
    throw new RequestError('validation-failed', `account ${accountId} not found`, '$.request.account_id');
  const [acct] = await query(
    ctx.db,
    sql`SELECT account_name, cloud_provider FROM cloud_accounts WHERE id = ${accountId}::uuid AND tenant = ${tenant}::uuid`,
  );
  return { id: accountId, name: String(acct.account_name), provider: (acct.cloud_provider as string) ?? null };
}

/**
 * The question is stored with its conversation before the model is asked, each write in a short
 * transaction of its own: waiting on the model holds no connection. clock_timestamp, not now():
 * inside a request's transaction (a mutation that also changes tables) now() is one instant, and
 * the history sent to the model must keep the question before its answer.
 */
async function storeQuestion(
  ctx: ActionContext,
  tenant: string,
  accountId: string,
  input: FollowupInput,
  message: string,
  userId: string | null,
): Promise<{ conversationId: string; questionId: string }> {
  return ctx.transaction(async (tx) => {
    const conversationId = await conversationOf(tx, tenant, accountId, input.conversation_id, message, userId);
    const [question] = await query(
      tx,
      sql`INSERT INTO ai_message (tenant_id, conversation_id, role, content, created_at)
       VALUES (${tenant}::uuid, ${conversationId}::uuid, 'user', ${message}::text, clock_timestamp()) RETURNING id::text`,
    );
    return { conversationId, questionId: String(question.id) };
  });
}

/** An answer to store: what was asked, what was answered, by whom, and on what records. */
interface Answer {
  tenant: string;
  account: string;
  conversationId: string;
  message: string;
  response: string;
  answeredBy: string;
  refs: Reference[];
}

/** Stores the answer with its references and the memory of the exchange; the id of the answer's message. */
async function storeAnswer(tx: Queryable, a: Answer): Promise<string> {
  const { tenant, account, conversationId } = a;
  const [answer] = await query(
    tx,
    sql`INSERT INTO ai_message (tenant_id, conversation_id, role, content, refs, status, answered_by, created_at)
       VALUES (${tenant}::uuid, ${conversationId}::uuid, 'assistant', ${a.response}::text, ${JSON.stringify(a.refs)}::jsonb,
               'completed', ${a.answeredBy}::text, clock_timestamp()) RETURNING id::text`,
  );
  const answerId = String(answer.id);
  for (const r of a.refs) {
    await query(
      tx,
      sql`INSERT INTO ai_reference (tenant_id, cloud_account_id, conversation_id, message_id, reference_id, type, content)
         VALUES (${tenant}::uuid, ${account}::uuid, ${conversationId}::uuid, ${answerId}::uuid, ${r.id}::text, ${r.type}::text, ${r.title}::text)`,
    );
  }
  const memory = `Q: ${a.message}\nA (${a.answeredBy}): ${a.response.slice(0, 600)}`;
  await query(
    tx,
    sql`INSERT INTO ai_memory (tenant_id, cloud_account_id, conversation_id, message_id, memory_type, content)
       VALUES (${tenant}::uuid, ${account}::uuid, ${conversationId}::uuid, ${answerId}::uuid, 'exchange', ${memory}::text)`,
  );
  await query(
    tx,
    sql`UPDATE ai_conversation SET updated_at = now() WHERE id = ${conversationId}::uuid AND tenant_id = ${tenant}::uuid`,
  );
  return answerId;
}

/** The conversation to add to: the caller's own (another tenant's is not found), or a new one. */
async function conversationOf(
  db: Queryable,
  tenant: string,
  account: string,
  given: unknown,
  message: string,
  userId: string | null,
): Promise<string> {
  if (given !== null && given !== undefined && given !== '') {
    const id = uuidArg(given, 'request.conversation_id');
    const [row] = await query(
      db,
      sql`SELECT id::text FROM ai_conversation
           WHERE id = ${id}::uuid AND tenant_id = ${tenant}::uuid AND (cloud_account_id IS NULL OR cloud_account_id = ${account}::uuid)`,
    );
    if (!row) throw new RequestError('validation-failed', `conversation ${id} not found`, '$.request.conversation_id');
    return id;
  }
  const [row] = await query(
    db,
    sql`INSERT INTO ai_conversation (tenant_id, cloud_account_id, user_id, title)
        VALUES (${tenant}::uuid, ${account}::uuid, ${userId}::uuid, ${message.slice(0, 120)}::text) RETURNING id::text`,
  );
  return String(row.id);
}

const allFound = (f: Retrieved): Found[] => [
  ...f.topRecommendations,
  ...f.recommendations,
  ...f.spendByService,
  ...f.events,
  ...f.knowledge,
  ...f.earlier,
];

function dedupe(refs: Reference[]): Reference[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.type}:${r.id}`;
    return !seen.has(key) && !!seen.add(key);
  });
}

/** A found record as a line of an answer, its reference kept for the answer's references. */
type Cite = (x: Found) => string;

/** The built-in analyst's answer: what retrieval found, laid out by what the question asks. */
async function builtinAnswer(
  ctx: ActionContext,
  tenant: string,
  message: string,
  f: Retrieved,
): Promise<{ text: string; refs: Reference[] }> {
  const refs: Reference[] = [];
  const acct = `${f.account.name}${f.account.provider ? ` (${f.account.provider})` : ''}`;
  const cite: Cite = (x) => {
    refs.push(x.ref);
    return `${x.line} [${x.ref.type}:${x.ref.id}]`;
  };
  const parts = costParts(f, acct, cite);
  if (f.events.length && (f.intents.has('incident') || !parts.length)) {
    parts.push(
      `Events of ${acct} that match your question:\n` + f.events.map((e, i) => `${i + 1}. ${cite(e)}`).join('\n'),
    );
    const cause = f.intents.has('incident') ? await likelyCause(ctx, tenant, f.events[0]!) : null;
    if (cause) {
      parts.push(cause.text);
      refs.push(...cause.refs);
    }
  }
  if (!f.topRecommendations.length && f.recommendations.length && !f.intents.has('spend')) {
    parts.push(
      `Recommendations that match your question:\n` +
        f.recommendations
          .slice(0, 3)
          .map((r, i) => `${i + 1}. ${cite(r)}`)
          .join('\n'),
    );
  }
  if (f.knowledge.length) parts.push(`From the knowledge bases:\n` + f.knowledge.map((k) => `- ${cite(k)}`).join('\n'));
  if (f.earlier.length && parts.length === 0)
    parts.push(`Earlier in this conversation:\n` + f.earlier.map((m) => `- ${cite(m)}`).join('\n'));
  if (!parts.length) {
    parts.push(
      `I found nothing in the data of ${acct} that matches "${message.slice(0, 200)}". ` +
        'I can answer about cost recommendations and savings, spend by service, events and their likely causes, and your knowledge bases.',
    );
  }
  return {
    text: `${BUILTIN_ANALYST[0]!.toUpperCase()}${BUILTIN_ANALYST.slice(1)} answering.\n\n${parts.join('\n\n')}`,
    refs,
  };
}

/** The answer's first parts: the top recommendations by savings (or that there are none), and spend by service. */
function costParts(f: Retrieved, acct: string, cite: Cite): string[] {
  const parts: string[] = [];
  if (f.topRecommendations.length) {
    const total = f.topRecommendations.reduce((s, r) => s + Number(r.facts?.savings ?? 0), 0);
    parts.push(
      `Top cost recommendations for ${acct}, by estimated monthly savings:\n` +
        f.topRecommendations.map((r, i) => `${i + 1}. ${cite(r)}`).join('\n') +
        `\nTogether they would save about ${money(total)} a month.`,
    );
  } else if (f.intents.has('recommendations')) {
    parts.push(`${acct} has no open recommendations with estimated savings.`);
  }
  if (f.spendByService.length && f.spendPeriod) {
    parts.push(
      `Spend of ${acct} from ${f.spendPeriod.from} to ${f.spendPeriod.to}, by service:\n` +
        f.spendByService.map((s, i) => `${i + 1}. ${cite(s)}`).join('\n'),
    );
  }
  return parts;
}

/**
 * The same analysis as ai_get_rca, on the best matching event: a "why" question gets a cause, not a
 * list. The diagnosis's summary with the actions of its leading cause, and that cause's evidence.
 */
async function likelyCause(
  ctx: ActionContext,
  tenant: string,
  best: Found,
): Promise<{ text: string; refs: Reference[] } | null> {
  const event = await loadEvent(ctx.db, tenant, best.ref.id);
  if (!event) return null;
  const dx = diagnose(await gatherEvidence(ctx.db, tenant, event, ctx.config.logs));
  const top = dx.causes[0];
  const actions = top
    ? `\nSuggested actions:\n${top.actions
        .slice(0, 3)
        .map((a) => `- ${a}`)
        .join('\n')}`
    : '';
  const refs = top ? top.evidence.slice(0, 5).map(({ type, id, title }) => ({ type, id, title })) : [];
  return { text: dx.summary + actions, refs };
}

/** The conversation so far, and the question with the records retrieved for it. */
async function modelMessages(
  ctx: ActionContext,
  tenant: string,
  conversationId: string,
  questionId: string,
  message: string,
  f: Retrieved,
  offline: string,
): Promise<ChatMessage[]> {
  const history = await query(
    ctx.db,
    sql`SELECT role, content FROM (SELECT role, content, created_at, id FROM ai_message
       WHERE tenant_id = ${tenant}::uuid AND conversation_id = ${conversationId}::uuid AND id <> ${questionId}::uuid
       ORDER BY created_at DESC, id DESC LIMIT 10) m
     ORDER BY created_at, id`,
  );
  const records = allFound(f).map((x) => ({ ref: `${x.ref.type}:${x.ref.id}`, text: x.text.slice(0, 600) }));
  return [
    {
      role: 'system',
      content: `${SYSTEM_PROMPT} The account is ${f.account.name} (${f.account.provider ?? 'unknown provider'}).`,
    },
    ...history.map((h) => ({
      role: h.role === 'assistant' ? ('assistant' as const) : ('user' as const),
      content: String(h.content),
    })),
    {
      role: 'user',
      content: `${message}\n\nRecords retrieved from the account (JSON):\n${JSON.stringify(records)}\n\nThe built-in analyst's draft answer:\n${offline}`,
    },
  ];
}
