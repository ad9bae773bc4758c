import type { ActionContext } from '../context';
import { query, RequestError, sql } from '../api';
import { accountScope, json, optString, optUuid, requestOf, type Args, type Scope } from './common';
import { readParam, triggers, words, type ParamSchema, type Trigger } from './workflow-text';

/**
 * ai_generate_workflow: a workflow definition (the reference's WorkflowDefinition) written from a
 * request in plain language, offline, from the task definitions of workflow_task_definitions only:
 * - a task is used when a significant word of the request is a word of its name or description
 *   (stemmed, with a few synonyms: "spend" is "cost", "deployment" is "workload" ...);
 * - tasks run in a chain, each depending on the one before: first those that gather data (query,
 *   get, list), then approvals, then actions, then notifications; within each, in the order the
 *   request mentions them. An action after an approval runs only `if` it was approved;
 * - parameters come from what the request names (namespace, workload, replicas, #channel, e-mails,
 *   URL, period, "quoted message", an enum value such as "stop"); a required one it does not name
 *   becomes a workflow input, `{{inputs.<task>_<param>}}`, and the follow-up asks for it;
 * - the trigger is the schedule it states ("every day at 9" is `0 9 * * *`), an event ("when an alert
 *   fires"), else manual.
 * Nothing is stored (the reference has no flag to save it): response[0] is the definition as JSON
 * text, response[1] an explanation with a suggested name. status: "success", "needs_input" (inputs
 * to fill, listed in followup) or "no_match" (no task fits; the definition has no tasks).
 */

const CHAIN = 'workflow_generator';

interface TaskDefinition {
  name: string;
  description: string;
  schema: { properties?: Record<string, ParamSchema>; required?: string[] };
}

interface Match {
  def: TaskDefinition;
  phase: number;
  /** Where the request first mentions the task (index of the word). */
  position: number;
}

interface Input {
  id: string;
  type: string;
  description: string;
}

interface Task {
  id: string;
  type: string;
  params: Record<string, unknown>;
  depends_on?: string[];
  if?: string;
}

async function taskDefinitions(ctx: ActionContext): Promise<TaskDefinition[]> {
  const rows = await query(
    ctx.db,
    sql`SELECT name, description, input_schema::text AS input_schema FROM workflow_task_definitions ORDER BY name`,
  );
  return rows.map((r) => ({
    name: String(r.name),
    description: String(r.description),
    schema: (json(r.input_schema) ?? {}) as TaskDefinition['schema'],
  }));
}

/** 0 gathers data, 1 waits for approval, 2 acts, 3 notifies: read from the task's name. */
function phaseOf(name: string): number {
  const parts = name.toLowerCase().split(/[^a-z0-9]+/);
  const has = (...ws: string[]) => ws.some((w) => parts.includes(w));
  if (has('query', 'get', 'list', 'fetch', 'report', 'search')) return 0;
  if (has('approval', 'approve', 'review')) return 1;
  if (has('notify', 'notification', 'slack', 'email', 'message', 'teams')) return 3;
  return 2;
}

/** The definitions the request's words name, in the order they will run. */
function matchTasks(query: string, defs: TaskDefinition[]): Match[] {
  const said = words(query);
  const matches: Match[] = [];
  for (const def of defs) {
    const own = new Set([...words(def.name.replace(/_/g, ' ')), ...words(def.description)]);
    const position = said.findIndex((w) => own.has(w));
    if (position >= 0) matches.push({ def, phase: phaseOf(def.name), position });
  }
  return matches.sort((a, b) => a.phase - b.phase || a.position - b.position || a.def.name.localeCompare(b.def.name));
}

/** A notification's message when the request quotes none: what the workflow did. */
const defaultMessage = (name: string, done: string[]) =>
  done.length ? `${name}: ${done.join(', ')} finished` : `${name} ran`;

/** The parameters of a task: read from the request, else a workflow input (required ones only). */
function paramsOf(
  query: string,
  match: Match,
  taskId: string,
  done: string[],
  name: string,
  inputs: Input[],
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const required = new Set(match.def.schema.required ?? []);
  for (const [param, schema] of Object.entries(match.def.schema.properties ?? {})) {
    let value = readParam(query, param, schema ?? {});
    if (value === undefined && param === 'message' && match.phase === 3) value = defaultMessage(name, done);
    if (value !== undefined) params[param] = value;
    else if (required.has(param)) {
      const id = `${taskId}_${param}`;
      inputs.push({
        id,
        type: schema?.type ?? 'string',
        description: schema?.description ?? `${param} of task ${taskId} (${match.def.name})`,
      });
      params[param] = `{{inputs.${id}}}`;
    }
  }
  return params;
}

/** The chained tasks, and the inputs they need. */
function buildTasks(query: string, matches: Match[], name: string): { tasks: Task[]; inputs: Input[] } {
  const tasks: Task[] = [];
  const inputs: Input[] = [];
  let approval: string | undefined;
  for (const m of matches) {
    const id = m.def.name;
    const task: Task = {
      id,
      type: m.def.name,
      params: paramsOf(
        query,
        m,
        id,
        tasks.map((t) => t.id),
        name,
        inputs,
      ),
    };
    if (tasks.length) task.depends_on = [tasks[tasks.length - 1]!.id];
    if (approval && m.phase === 2) task.if = `tasks.${approval}.output.approved`;
    if (m.phase === 1) approval = id;
    tasks.push(task);
  }
  return { tasks, inputs };
}

/** A name for the workflow: the request's first sentence, shortened. */
function nameOf(query: string): string {
  const first = query
    .trim()
    .split(/(?<=[.!?])\s/)[0]!
    .replace(/[.!?]+$/, '');
  const short = first.length > 60 ? `${first.slice(0, 57).replace(/\s+\S*$/, '')}...` : first;
  return short.charAt(0).toUpperCase() + short.slice(1);
}

const triggerText = (t: Trigger) =>
  t.type === 'schedule'
    ? `on the schedule "${String(t.params?.cron)}"`
    : t.type === 'event'
      ? `on ${String(t.params?.source)} events`
      : 'when started by hand';

function explanation(
  name: string,
  tasks: Task[],
  inputs: Input[],
  trigger: Trigger[],
  known: TaskDefinition[],
): string {
  if (!tasks.length)
    return `No known task matches the request. Tasks a workflow can use: ${known.map((d) => d.name).join(', ')}. Nothing was saved.`;
  const steps = tasks.map((t, i) => `${i + 1}. ${t.type}`).join('; ');
  const asks = inputs.length ? ` It needs these inputs: ${inputs.map((i) => i.id).join(', ')}.` : '';
  return `Suggested name: "${name}". Runs ${trigger.map(triggerText).join(' and ')}: ${steps}.${asks} The definition is returned only; nothing was saved.`;
}

/** Checks what the request may carry: ids are uuids, the agent one of the account's. */
async function checkRequest(
  ctx: ActionContext,
  req: Args,
  scope: Scope,
): Promise<{ agentId?: string; conversationId?: string; messageId?: string }> {
  optUuid(req, 'user_id');
  const agentId = optUuid(req, 'agent_id');
  if (agentId) {
    const found = await query(
      ctx.db,
      sql`SELECT 1 FROM ai_agent WHERE id = ${agentId}::uuid AND tenant_id = ${scope.tenant}::uuid AND cloud_account_id = ${scope.account}::uuid`,
    );
    if (!found.length)
      throw new RequestError(
        'validation-failed',
        'request.agent_id is not an agent of this account',
        '$.request.agent_id',
      );
  }
  return { agentId, conversationId: optUuid(req, 'conversation_id'), messageId: optUuid(req, 'message_id') };
}

export async function ai_generate_workflow(args: Args, ctx: ActionContext) {
  const req = requestOf(args);
  const scope = await accountScope(ctx, req);
  const query = optString(req, 'query')?.trim();
  if (!query)
    throw new RequestError('validation-failed', 'request.query must describe the workflow', '$.request.query');
  const ids = await checkRequest(ctx, req, scope);
  const defs = await taskDefinitions(ctx);
  const name = nameOf(query);
  const { tasks, inputs } = buildTasks(query, matchTasks(query, defs), name);
  const trigger = triggers(query);
  const definition = { version: '1', inputs, triggers: trigger, tasks };
  const status = !tasks.length ? 'no_match' : inputs.length ? 'needs_input' : 'success';
  const questions = inputs.map((i) => `What value should ${i.id} have? (${i.description})`);
  return {
    data: {
      agent_id: ids.agentId ?? null,
      agent_step_response: [
        `matched tasks: ${tasks.map((t) => t.type).join(', ') || 'none'}`,
        `triggers: ${trigger.map((t) => (t.type === 'schedule' ? `schedule ${String(t.params?.cron)}` : t.type)).join(', ')}`,
        `inputs needed: ${inputs.map((i) => i.id).join(', ') || 'none'}`,
      ],
      chain_name: CHAIN,
      conversation_id: ids.conversationId ?? null,
      followup: questions.length
        ? {
            data: {
              chain_name: CHAIN,
              conversation_id: ids.conversationId ?? null,
              message_id: ids.messageId ?? null,
              response: questions,
            },
          }
        : null,
      message_id: ids.messageId ?? null,
      query,
      response: [JSON.stringify(definition), explanation(name, tasks, inputs, trigger, defs)],
      session_id: optString(req, 'session_id') ?? null,
      status,
    },
  };
}
