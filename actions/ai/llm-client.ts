import type { AiConfig } from './config';

/**
 * A client of an OpenAI-compatible chat-completions endpoint (POST {baseUrl}/chat/completions), with
 * fetch and nothing else. Every failure becomes an LlmError whose message says what went wrong in
 * words of our own: neither the API key nor the provider's error body (which may echo request
 * headers) ever reaches an answer, an error or a log.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatAnswer {
  content: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
}

export class LlmError extends Error {
  constructor(
    readonly reason: 'timeout' | 'http' | 'bad-answer' | 'network',
    message: string,
  ) {
    super(message);
  }
}

export const modelConfigured = (cfg: AiConfig) => !!cfg.baseUrl;

export async function chatCompletion(cfg: AiConfig, messages: ChatMessage[]): Promise<ChatAnswer> {
  if (!cfg.baseUrl) throw new LlmError('network', 'no model is configured');
  const url = `${cfg.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
      // A low temperature: analyses should repeat, not vary.
      body: JSON.stringify({ model: cfg.model, messages, temperature: 0.2 }),
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new LlmError('timeout', `the model did not answer within ${cfg.timeoutMs} ms`);
    throw new LlmError('network', 'the model could not be reached');
  }
  let body: unknown;
  try {
    // The body is read under the same timeout signal: a server that sends headers and then stalls
    // is a timeout too.
    const text = await res.text();
    if (!res.ok) throw new LlmError('http', `the model answered HTTP ${res.status}`);
    body = JSON.parse(text);
  } catch (err) {
    if (err instanceof LlmError) throw err;
    const name = (err as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new LlmError('timeout', `the model did not answer within ${cfg.timeoutMs} ms`);
    throw new LlmError('bad-answer', 'the model answered with something that is not JSON');
  }
  const b = body as {
    model?: unknown;
    choices?: { message?: { content?: unknown } }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  const content = b?.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '')
    throw new LlmError('bad-answer', 'the model answered without a message');
  return {
    content: redact(content, cfg),
    model: typeof b.model === 'string' ? b.model : cfg.model,
    promptTokens: tokens(b.usage?.prompt_tokens),
    completionTokens: tokens(b.usage?.completion_tokens),
  };
}

const tokens = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.floor(x) : 0);

/** Whatever text leaves this module with the key in it (a model repeating its prompt, say) has it removed. */
export function redact(text: string, cfg: AiConfig): string {
  return cfg.apiKey && cfg.apiKey.length >= 4 ? text.split(cfg.apiKey).join('[redacted]') : text;
}
