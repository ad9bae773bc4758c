import { RequestError } from '../api';
import { formatSelector, type LogSelector } from './selector';

/**
 * The Loki backend (LOKI_URL): the same selector, sent to Loki's query_range API.
 *
 * Confinement: the account is one more label matcher, `cloud_account_id="<uuid>"`, put first in the
 * selector. Loki ANDs matchers, so whatever else the caller writes (even cloud_account_id=~".*")
 * cannot widen it; log shippers must set that label on every stream (README, "Logs and tickets").
 * The tenant's ownership of the account is checked in the database before Loki is asked. With
 * LOKI_TENANT, every request carries it as X-Scope-OrgID (Loki's own multi-tenancy).
 *
 * Failures (an HTTP error, a body that is not a streams answer, no answer within LOKI_TIMEOUT_MS, no
 * connection) become an `action-error` naming what happened; the URL is never in a message, and
 * credentials written in LOKI_URL (https://user:password@host) are sent as Basic authorization.
 */
export const LOKI_ACCOUNT_LABEL = 'cloud_account_id';

export interface LokiSettings {
  lokiUrl: string;
  lokiTenant?: string;
  lokiTimeoutMs: number;
}
export interface LogLine {
  timestamp: string;
  severity: string;
  message: string;
  labels: Record<string, string>;
}

export interface LokiQuery {
  account: string;
  selector: LogSelector;
  start?: string;
  end?: string;
  limit: number;
}

const NS_PER_MS = 1_000_000n;

/** Loki's nanosecond timestamps as ISO 8601 in UTC: milliseconds, and the finer digits when there are any. */
export function isoFromNs(ns: string): string {
  const n = BigInt(ns);
  const ms = n / NS_PER_MS;
  const rest = n % NS_PER_MS;
  const iso = new Date(Number(ms)).toISOString();
  if (rest === 0n) return iso;
  return `${iso.slice(0, -1)}${rest.toString().padStart(6, '0').replace(/0+$/, '')}Z`;
}

const nsOf = (iso: string) => (BigInt(Date.parse(iso)) * NS_PER_MS).toString();

/** Severity from the labels Loki and its shippers commonly use for it. */
function severityOf(labels: Record<string, string>): string {
  return labels.level ?? labels.severity ?? labels.detected_level ?? labels.lvl ?? 'unknown';
}

/** The URL to call and the headers, credentials taken out of the URL. */
export function lokiRequest(
  settings: LokiSettings,
  q: LokiQuery,
): { url: string; headers: Record<string, string>; query: string; secrets: string[] } {
  const base = new URL(settings.lokiUrl);
  const headers: Record<string, string> = { accept: 'application/json' };
  const secrets = [base.password, decodeURIComponent(base.password)].filter((s) => s.length >= 4);
  if (base.username || base.password) {
    const basic = Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString(
      'base64',
    );
    headers.authorization = `Basic ${basic}`;
    // The header's value carries the password too (base64 is no secret): a proxy echoing the request must not leak it.
    secrets.push(basic);
    base.username = '';
    base.password = '';
  }
  if (settings.lokiTenant) headers['x-scope-orgid'] = settings.lokiTenant;
  const query = formatSelector(q.selector, [{ label: LOKI_ACCOUNT_LABEL, op: '=', value: q.account }]);
  const params = new URLSearchParams({ query, limit: String(q.limit), direction: 'backward' });
  // Without start or end Loki takes its defaults (end: now, start: an hour before the end).
  if (q.start) params.set('start', nsOf(q.start));
  // Loki's end is exclusive; the operation's is inclusive (the built-in store's ts <= end), so one
  // nanosecond more: a line at exactly `end` is in the answer on both backends.
  if (q.end) params.set('end', (BigInt(nsOf(q.end)) + 1n).toString());
  const path = `${base.pathname.replace(/\/+$/, '')}/loki/api/v1/query_range`;
  return { url: `${base.origin}${path}?${params}`, headers, query, secrets };
}

interface LokiAnswer {
  status?: string;
  data?: { resultType?: string; result?: { stream?: Record<string, string>; values?: [string, string][] }[] };
}

const fail = (message: string) => new RequestError('action-error', message, '$.request');

/** Loki's answer to query_range, as log lines, newest first, at most `limit`. */
export function linesOf(body: unknown, limit: number): LogLine[] {
  const answer = body as LokiAnswer;
  if (answer?.status !== 'success' || answer.data?.resultType !== 'streams' || !Array.isArray(answer.data.result)) {
    throw fail('Loki answered something other than log streams');
  }
  const lines: (LogLine & { ns: bigint })[] = [];
  for (const stream of answer.data.result) {
    const labels = stream.stream ?? {};
    for (const v of stream.values ?? []) {
      if (!Array.isArray(v) || typeof v[0] !== 'string' || !/^\d{1,20}$/.test(v[0]) || typeof v[1] !== 'string')
        throw fail('Loki answered a malformed log line');
      lines.push({ ns: BigInt(v[0]), timestamp: isoFromNs(v[0]), severity: severityOf(labels), message: v[1], labels });
    }
  }
  // Loki orders within a stream; across streams the newest-first merge is ours.
  lines.sort((a, b) => (a.ns === b.ns ? 0 : a.ns > b.ns ? -1 : 1));
  return lines.slice(0, limit).map(({ ns: _ns, ...l }) => l);
}

export async function queryLoki(settings: LokiSettings, q: LokiQuery): Promise<LogLine[]> {
  const req = lokiRequest(settings, q);
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, { headers: req.headers, signal: AbortSignal.timeout(settings.lokiTimeoutMs) });
    text = await res.text();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw fail(`Loki did not answer within ${settings.lokiTimeoutMs} ms (LOKI_TIMEOUT_MS)`);
    // fetch's message is "fetch failed"; the cause's code (ECONNREFUSED, ENOTFOUND ...) says why, without the URL.
    throw fail(`Loki could not be reached${e.cause?.code ? ` (${e.cause.code})` : ''}`);
  }
  if (!res.ok) {
    // Loki's error bodies are short plain text ("parse error at line 1 ..."); cut, in case a proxy sends a page.
    // Secrets out before cutting: a cut through one would otherwise leave its first characters.
    let detail = text;
    for (const s of req.secrets) detail = detail.split(s).join('***');
    detail = detail.trim().replace(/\s+/g, ' ').slice(0, 300);
    throw fail(`Loki answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail('Loki answered something other than JSON');
  }
  return linesOf(body, q.limit);
}
