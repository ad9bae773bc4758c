/**
 * What can be read from a natural-language workflow request without a language model: its words (for
 * matching task definitions), its schedule or event trigger, and values of task parameters
 * (namespace, workload, replicas, channel, ...). Each reader returns undefined when the text does not
 * say; the generator then asks for the value as a workflow input instead of guessing.
 */

const STOP_WORDS = new Set(
  (
    'a an and the to of in on at for by with from or then after before when every each all any it its this that these those is are be ' +
    'please me my our we i you should would can could want need make create build workflow workflows automation automatically run runs ' +
    'day days daily week weekly month monthly hour hourly minute minutes night nightly morning evening am pm monday tuesday wednesday ' +
    'thursday friday saturday sunday weekday weekdays weekend time times account accounts also into over under up down if ' +
    // Words of nearly every request to this platform, which would match a task by accident.
    'cloud action request query task step'
  ).split(' '),
);

/**
 * Words that mean what a word of the task catalogue means. They map request words to catalogue words,
 * never to task names, so a new task definition is matched by its own name and description.
 */
const SYNONYMS: Record<string, string> = {
  spend: 'cost',
  spending: 'cost',
  bill: 'cost',
  billing: 'cost',
  costs: 'cost',
  expense: 'cost',
  alert: 'notify',
  tell: 'notify',
  inform: 'notify',
  ping: 'notify',
  notification: 'notify',
  send: 'post',
  approver: 'reviewer',
  review: 'reviewer',
  approved: 'approve',
  approves: 'approve',
  approval: 'approve',
  deployment: 'workload',
  statefulset: 'workload',
  daemonset: 'workload',
  replica: 'replicas',
  pods: 'replicas',
  instance: 'resource',
  instances: 'resource',
  vm: 'resource',
  vms: 'resource',
  server: 'resource',
  servers: 'resource',
  shutdown: 'stop',
  terminate: 'delete',
  remove: 'delete',
  rightsize: 'resize',
  webhook: 'http',
  endpoint: 'http',
  url: 'http',
  api: 'http',
  k8s: 'kubernetes',
  cluster: 'kubernetes',
};

/** A word reduced to a simple stem, so that "scales", "scaling" and "scaled" meet "scale". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('es') && !w.endsWith('ses')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Significant words of a text, in order, stemmed, synonyms applied, stop words left out. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9]*/g) ?? [])
    .filter((w) => !STOP_WORDS.has(w))
    .map((w) => stem(SYNONYMS[w] ?? SYNONYMS[stem(w)] ?? w))
    .filter((w) => !STOP_WORDS.has(w));
}

export interface Trigger {
  type: string;
  params?: Record<string, unknown>;
}

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** "at 9", "at 9:30", "at 8pm", "at 20:15": [hour, minute], or undefined. */
function timeOfDay(text: string): [number, number] | undefined {
  const m =
    /\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b/.exec(text) ?? /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/.exec(text);
  if (m) {
    let hour = Number(m[1]);
    if (m[3] === 'pm' && hour < 12) hour += 12;
    if (m[3] === 'am' && hour === 12) hour = 0;
    const minute = Number(m[2] ?? 0);
    return hour < 24 && minute < 60 ? [hour, minute] : undefined;
  }
  if (/\bmidnight\b/.test(text)) return [0, 0];
  if (/\bnoon\b/.test(text)) return [12, 0];
  return undefined;
}

/** The days-of-week field of a cron expression the text names, or undefined for every day. */
function daysOfWeek(text: string): string | undefined {
  if (/\bweekdays?\b|\bworking days?\b|\bbusiness days?\b/.test(text)) return '1-5';
  if (/\bweekends?\b/.test(text)) return '0,6';
  const named = DAYS.map((d, i) => (new RegExp(`\\b${d}s?\\b`).test(text) ? i : -1)).filter((i) => i >= 0);
  if (named.length) return named.join(',');
  if (/\bweekly\b|\bevery week\b|\bonce a week\b/.test(text)) return '1';
  return undefined;
}

/** A cron schedule for what the text says ("every day at 9", "hourly", "every 15 minutes", "each monday at 10:30"). */
export function schedule(query: string): string | undefined {
  const text = query.toLowerCase();
  const minutes = /\bevery\s+(\d{1,2})\s*(?:minutes?|mins?)\b/.exec(text);
  if (minutes && Number(minutes[1]) > 0 && Number(minutes[1]) < 60) return `*/${Number(minutes[1])} * * * *`;
  const hours = /\bevery\s+(\d{1,2})\s*hours?\b/.exec(text);
  if (hours && Number(hours[1]) > 0 && Number(hours[1]) < 24) return `0 */${Number(hours[1])} * * *`;
  if (/\bhourly\b|\bevery hour\b/.test(text)) return '0 * * * *';
  const at = timeOfDay(text);
  const days = daysOfWeek(text);
  const monthly = /\bmonthly\b|\bevery month\b|\bonce a month\b/.test(text);
  const recurring =
    /\bevery\b|\beach\b|\bdaily\b|\bnightly\b|\bweekly\b|\bmonthly\b|\bweekdays?\b|\bweekends?\b|\bschedule/.test(text);
  if (!recurring) return undefined;
  const [hour, minute] =
    at ?? (/\bnight(ly)?\b|\bevening\b/.test(text) ? [22, 0] : /\bmorning\b/.test(text) ? [8, 0] : [0, 0]);
  return `${minute} ${hour} ${monthly ? '1' : '*'} * ${monthly ? '*' : (days ?? '*')}`;
}

/** The triggers the request implies: a schedule, an event ("when an alert fires"), else manual. */
export function triggers(query: string): Trigger[] {
  const text = query.toLowerCase();
  const cron = schedule(text);
  const out: Trigger[] = cron ? [{ type: 'schedule', params: { cron } }] : [];
  const event =
    /\b(?:when|whenever|on|if)\s+(?:an?\s+|the\s+|new\s+)*(alert|event|anomal\w*|recommendation|incident)/.exec(text);
  if (event) out.push({ type: 'event', params: { source: stem(event[1]!.replace(/^anomal\w*/, 'anomaly')) } });
  return out.length ? out : [{ type: 'manual' }];
}

/** Readers of parameter values, by parameter name; `query` keeps its case (names, channels, URLs). */
const READERS: Record<string, (query: string) => unknown> = {
  namespace: (q) =>
    (/\bnamespace\s+["']?([a-z0-9][a-z0-9-]*)/i.exec(q) ?? /\b([a-z0-9][a-z0-9-]*)\s+namespace\b/i.exec(q))?.[1],
  name: (q) => workload(q),
  replicas: (q) => {
    const m = /\b(\d{1,4})\s+(?:replicas?|pods?|instances?)\b/i.exec(q) ?? /\b(?:to|replicas?)\s+(\d{1,4})\b/i.exec(q);
    if (m) return Number(m[1]);
    return /\bto\s+zero\b|\bscale\s+(?:it\s+)?(?:down\s+)?to\s+nothing\b/i.test(q) ? 0 : undefined;
  },
  channel: (q) => /(#[\w-]+)/.exec(q)?.[1],
  reviewers: (q) => {
    const emails = q.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g);
    return emails ? [...new Set(emails)] : undefined;
  },
  url: (q) => /\bhttps?:\/\/[^\s"'<>]+/i.exec(q)?.[0]?.replace(/[.,;)]+$/, ''),
  method: (q) => /\b(GET|POST|PUT|PATCH|DELETE)\b/.exec(q)?.[1],
  period: (q) => period(q),
  message: (q) => /["“]([^"”]{1,300})["”]/.exec(q)?.[1],
  group_by: (q) =>
    /\b(?:by|per)\s+(service|region|account|resource|team|tag|namespace|day|month)\b/i.exec(q)?.[1]?.toLowerCase(),
  resource_id: (q) =>
    /\b(i-[0-9a-f]{8,17}|arn:[\w:/.-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/i.exec(q)?.[1],
  size: (q) => /\b([a-z]\d[a-z]{0,3}\.(?:nano|micro|small|medium|large|\d*xlarge))\b/i.exec(q)?.[1],
};

/** A workload named in the text: "the web deployment", "deployment web", "workload api-server". */
function workload(q: string): string | undefined {
  const kinds = '(?:deployment|workload|statefulset|daemonset|service|app)';
  const after = new RegExp(`\\b${kinds}\\s+["']?([a-z0-9][a-z0-9-]*)`, 'i').exec(q);
  const before = new RegExp(`\\b([a-z0-9][a-z0-9-]*)\\s+${kinds}\\b`, 'i').exec(q);
  const candidates = [after?.[1], before?.[1]].filter(
    (w): w is string => !!w && !STOP_WORDS.has(w.toLowerCase()) && !/^(?:in|namespace|kubernetes|k8s|my)$/i.test(w),
  );
  return candidates[0];
}

/** A period as the cost task takes it: "7d", "30d", "24h". */
function period(q: string): string | undefined {
  const text = q.toLowerCase();
  const m = /\b(?:last|past|previous)?\s*(\d{1,3})\s*(hour|day|week|month)s?\b/.exec(text);
  if (m)
    return m[2] === 'hour'
      ? `${m[1]}h`
      : `${Number(m[1]) * { day: 1, week: 7, month: 30 }[m[2] as 'day' | 'week' | 'month']}d`;
  if (/\bmonth(ly)?\b/.test(text)) return '30d';
  if (/\bweek(ly)?\b/.test(text)) return '7d';
  if (/\byesterday\b|\bdaily\b|\bday\b|\btoday\b/.test(text)) return '1d';
  return undefined;
}

/** JSON Schema of one parameter, as far as the generator uses it. */
export interface ParamSchema {
  type?: string;
  enum?: unknown[];
  description?: string;
}

/** The value the text gives a parameter: by a reader of its name, or the first of its enum values named. */
export function readParam(query: string, name: string, schema: ParamSchema): unknown {
  const reader = READERS[name];
  const value = reader ? reader(query) : undefined;
  if (value !== undefined) return value;
  if (Array.isArray(schema.enum)) {
    const said = new Set(words(query));
    return schema.enum.find((v) => typeof v === 'string' && said.has(stem(v)));
  }
  return undefined;
}
