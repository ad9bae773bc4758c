import { RequestError } from '../api';

/**
 * Jira's REST API (Cloud and Data Center alike): POST {base}/rest/api/2/issue with Basic
 * authentication (the user's e-mail and an API token). Version 2, not 3: version 3 wants the
 * description in Atlassian Document Format, version 2 takes the plain text the caller gave.
 *
 * The integration's config (integrations.config): {"base_url": "https://acme.atlassian.net",
 * "email": "bot@acme.example", "api_token": "..."}; optional "issue_type" (default Task) and
 * "priorities" (severity -> Jira priority name, replacing the default mapping below).
 *
 * The token is only ever in the Authorization header: messages say what Jira answered, never the
 * token, and Jira's own text is scrubbed of it in case a proxy echoes the request.
 */
export interface JiraConfig {
  baseUrl: string;
  email: string;
  apiToken: string;
  issueType?: string;
  priorities?: Record<string, string>;
}

export interface JiraIssue {
  project: string;
  summary: string;
  description?: string | null;
  severity?: string | null;
  issueType?: string | null;
  extraFields?: Record<string, unknown>;
}

/** Severity (as the platform writes it) -> Jira's default priority scheme. */
const DEFAULT_PRIORITIES: Record<string, string> = {
  critical: 'Highest',
  highest: 'Highest',
  high: 'High',
  medium: 'Medium',
  moderate: 'Medium',
  low: 'Low',
  info: 'Lowest',
  informational: 'Lowest',
  lowest: 'Lowest',
};

const fail = (message: string) => new RequestError('action-error', message, '$.object');

/** The Jira settings of an integration row, or a message naming what is missing (never a value). */
export function jiraConfig(config: unknown, integrationId: string): JiraConfig {
  const c = (config && typeof config === 'object' ? config : {}) as Record<string, unknown>;
  const str = (k: string) =>
    typeof c[k] === 'string' && (c[k] as string).trim() !== '' ? (c[k] as string).trim() : undefined;
  const baseUrl = str('base_url');
  const email = str('email');
  const apiToken = str('api_token');
  const missing = [!baseUrl && 'base_url', !email && 'email', !apiToken && 'api_token'].filter(Boolean);
  if (missing.length)
    throw fail(`the Jira integration ${integrationId} is not configured: ${missing.join(', ')} missing`);
  let url: URL;
  try {
    url = new URL(baseUrl!);
  } catch {
    throw fail(`the Jira integration ${integrationId} is not configured: base_url is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fail(`the Jira integration ${integrationId} is not configured: base_url must be http(s)`);
  if (url.username || url.password)
    throw fail(
      `the Jira integration ${integrationId} is not configured: base_url must not carry credentials (use email and api_token)`,
    );
  const priorities =
    c.priorities && typeof c.priorities === 'object' ? (c.priorities as Record<string, string>) : undefined;
  return {
    baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    email: email!,
    apiToken: apiToken!,
    issueType: str('issue_type'),
    priorities,
  };
}

export function priorityOf(
  severity: string | null | undefined,
  cfg: Pick<JiraConfig, 'priorities'>,
): string | undefined {
  if (!severity) return undefined;
  if (cfg.priorities) return cfg.priorities[severity] ?? cfg.priorities[severity.toLowerCase()];
  return DEFAULT_PRIORITIES[severity.trim().toLowerCase()];
}

/** Jira's error body ({errorMessages: [...], errors: {field: message}}) as one line. */
function jiraErrors(text: string): string {
  try {
    const body = JSON.parse(text) as { errorMessages?: unknown[]; errors?: Record<string, unknown> };
    const parts = [
      ...(body.errorMessages ?? []).map(String),
      ...Object.entries(body.errors ?? {}).map(([k, v]) => `${k}: ${String(v)}`),
    ];
    if (parts.length) return parts.join('; ');
  } catch {
    // not JSON: an HTML page of a proxy or a login form; its status says enough
  }
  return '';
}

/** Creates the issue; Jira's key. */
export async function createJiraIssue(
  cfg: JiraConfig,
  issue: JiraIssue,
  timeoutMs: number,
): Promise<{ key: string; url: string }> {
  const priority = priorityOf(issue.severity, cfg);
  const fields: Record<string, unknown> = {
    // The caller's additional fields first: the ones the operation names win over them.
    ...(issue.extraFields ?? {}),
    project: { key: issue.project },
    summary: issue.summary,
    issuetype: { name: issue.issueType || cfg.issueType || 'Task' },
    ...(issue.description ? { description: issue.description } : {}),
    ...(priority ? { priority: { name: priority } } : {}),
  };
  const basic = Buffer.from(`${cfg.email}:${cfg.apiToken}`).toString('base64');
  // The Authorization header's value is the token too (base64 is no secret): a proxy echoing the request must not leak it either.
  const scrub = (s: string) => s.split(cfg.apiToken).join('***').split(basic).join('***');
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${cfg.baseUrl}/rest/api/2/issue`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ fields }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw fail(`Jira did not answer within ${timeoutMs} ms; no ticket was stored`);
    throw fail(`Jira could not be reached${e.cause?.code ? ` (${e.cause.code})` : ''}; no ticket was stored`);
  }
  if (res.status === 401 || res.status === 403)
    throw fail(`Jira refused the integration's credentials (HTTP ${res.status}); no ticket was stored`);
  if (!res.ok) {
    const detail = scrub(jiraErrors(text)).slice(0, 500);
    throw fail(`Jira refused the issue (HTTP ${res.status})${detail ? `: ${detail}` : ''}; no ticket was stored`);
  }
  let key: unknown;
  try {
    key = (JSON.parse(text) as { key?: unknown }).key;
  } catch {
    key = undefined;
  }
  if (typeof key !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*-\d+$/.test(key))
    throw fail('Jira answered without an issue key; no ticket was stored');
  return { key, url: `${cfg.baseUrl}/browse/${key}` };
}
