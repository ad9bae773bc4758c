import type { ActionContext } from '../context';
import { answersWithModel, modelFor } from '../ai-catalogue/models';
import { chatCompletion, LlmError, modelConfigured, type ChatMessage } from './llm-client';
import { overBudget, recordUsage, type Module } from './usage';
import { BUILTIN_ANALYST } from './types';

/**
 * The one place that decides whether the model answers: only when one is configured and the tenant
 * and account still have budget for the module. A model that fails or times out leaves the answer to
 * the built-in analyst; `notice` then says why, in the answer itself, so that nobody mistakes the
 * built-in answer for the model's.
 */

export type ModelOutcome =
  | { kind: 'model'; content: string; model: string; promptTokens: number; completionTokens: number }
  | { kind: 'builtin'; notice: string | null; fallback: string | null };

export interface ModelCall {
  tenant: string;
  account: string;
  module: Module;
  operation: string;
  subjectId: string | null;
  messages: ChatMessage[];
  /** The conversation whose model_config may name the model (ai_followup_response). */
  conversationId?: string;
}

export async function askModel(ctx: ActionContext, call: ModelCall): Promise<ModelOutcome> {
  const cfg = ctx.config.ai;
  if (!modelConfigured(cfg)) return { kind: 'builtin', notice: null, fallback: null };
  // The catalogue decides which model (ai_get_model_config says the same): the conversation's, the
  // account's or tenant's default, else AI_MODEL. A disabled choice leaves the answer to the analyst.
  const chosen = (await modelFor(ctx, { tenant: call.tenant, account: call.account }, call.conversationId))?.model;
  if (chosen?.source === 'builtin') return { kind: 'builtin', notice: null, fallback: null }; // chosen by the conversation
  if (chosen && !answersWithModel(chosen)) {
    return {
      kind: 'builtin',
      fallback: 'disabled',
      notice: `The ${BUILTIN_ANALYST} answered: the model ${chosen.name} is disabled in the model catalogue.`,
    };
  }
  const over = await overBudget(ctx.db, cfg, call.tenant, call.account, call.module);
  if (over) {
    return {
      kind: 'builtin',
      fallback: 'budget',
      notice: `The ${BUILTIN_ANALYST} answered: ${over}, so the language model was not asked.`,
    };
  }
  try {
    const answer = await chatCompletion({ ...cfg, model: chosen?.name ?? cfg.model }, call.messages);
    await recordUsage(ctx.db, {
      tenant: call.tenant,
      account: call.account,
      module: call.module,
      operation: call.operation,
      model: answer.model,
      promptTokens: answer.promptTokens,
      completionTokens: answer.completionTokens,
      subjectId: call.subjectId,
    });
    return { kind: 'model', ...answer };
  } catch (err) {
    // Only our own LlmError messages are shown; anything else is reported without its text.
    const why = err instanceof LlmError ? err.message : 'the model call failed';
    const reason = err instanceof LlmError ? err.reason : 'error';
    return {
      kind: 'builtin',
      fallback: reason,
      notice: `The language model did not answer (${why}); the ${BUILTIN_ANALYST} answered instead.`,
    };
  }
}

export const SYSTEM_PROMPT =
  'You are the analyst of a cloud cost and Kubernetes operations platform. Answer from the evidence given, ' +
  "which comes from the customer's own records. Cite evidence as [type:id]. Be concise and concrete: name the " +
  'cause, the evidence that shows it, and the actions to take. Say so when the evidence is not enough.';
