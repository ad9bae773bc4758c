import { RULES, type Rule, type Signal } from './rules/catalogue';
import { BUILTIN_ANALYST, type Cause, type Evidence, type EvidenceItem } from './types';

/**
 * The built-in analyst: works without a language model. Each rule of the catalogue looks for its
 * signatures in every piece of evidence; what a signature weighs depends on where it is found (the
 * event naming a cause says more than one log line). Weights combine as a noisy-OR,
 * 1 - prod(1 - w), so independent pieces of evidence add up without ever passing 1, and many weak
 * hints never outweigh one strong signature.
 */

/** Weight of a strong / weak match per kind of evidence. */
const WEIGHTS: Record<EvidenceItem['role'], [number, number]> = {
  event: [0.6, 0.2],
  related_event: [0.3, 0.1],
  change: [0.2, 0.05],
  log: [0.25, 0.08],
  pod: [0.45, 0.15],
  workload: [0.3, 0.1],
  node: [0.45, 0.15],
  anomaly: [0.2, 0.05],
  recommendation: [0.1, 0.03],
  spend: [0.1, 0.03],
  // Articles describe causes in general; they support a cause but do not show it happened.
  knowledge: [0.05, 0.02],
};

/** At most this many signals of one kind count, so forty log lines cannot drown the event. */
const PER_ROLE = 4;

export interface Diagnosis {
  analyst: string;
  summary: string;
  causes: Cause[];
}

export function diagnose(ev: Evidence): Diagnosis {
  const scored = RULES.map((rule) => score(rule, ev)).filter((c): c is Cause => c !== null);
  // A crash loop is how an OOM or a configuration error shows: when one of those is well supported,
  // the loop is its symptom and ranks below it.
  const specific = scored.some((c) => !RULES.find((r) => r.cause === c.cause)!.symptom && c.score >= 0.5);
  for (const c of scored) {
    if (specific && RULES.find((r) => r.cause === c.cause)!.symptom) {
      c.score = round(c.score * 0.5);
      c.confidence = confidence(c.score);
      c.explanation += ' Here it is most likely a consequence of the cause ranked above it.';
    }
  }
  scored.sort((a, b) => b.score - a.score || a.cause.localeCompare(b.cause));
  const top = scored[0];
  const summary = top
    ? `${capital(BUILTIN_ANALYST)}: the most likely cause of "${ev.event.title}" is ${top.title.toLowerCase()} ` +
      `(confidence ${top.confidence}, score ${top.score}), supported by ${top.evidence.length} piece(s) of evidence. ${top.explanation}`
    : `${capital(BUILTIN_ANALYST)}: none of the known causes (out of memory, crash loops, CPU throttling, scheduling, image pulls, ` +
      `node pressure, configuration errors, cost spikes) matches the evidence of "${ev.event.title}". ` +
      `Review the related events and logs listed in the references.`;
  return { analyst: BUILTIN_ANALYST, summary, causes: scored };
}

function score(rule: Rule, ev: Evidence): Cause | null {
  const signals: Signal[] = [];
  const perRole = new Map<string, number>();
  for (const item of ev.items) {
    const strong = firstMatch(rule.strong, item.text);
    const weak = strong ? null : firstMatch(rule.weak, item.text);
    const hit = strong ?? weak;
    if (!hit) continue;
    const n = perRole.get(item.role) ?? 0;
    if (n >= PER_ROLE) continue;
    perRole.set(item.role, n + 1);
    const [ws, ww] = WEIGHTS[item.role];
    signals.push({ weight: strong ? ws : ww, item, excerpt: hit });
  }
  signals.push(...(rule.facts?.(ev) ?? []));
  // Knowledge alone never makes a cause, nor do faint hints (a recent change, a saving): something
  // that happened must point at it clearly.
  if (!signals.some((s) => s.item.role !== 'knowledge' && s.weight >= 0.1)) return null;
  const value = round(1 - signals.reduce((p, s) => p * (1 - s.weight), 1));
  signals.sort((a, b) => b.weight - a.weight);
  const seen = new Set<string>();
  const evidence = signals
    .filter((s) => {
      const key = `${s.item.ref.type}:${s.item.ref.id}`;
      return !seen.has(key) && seen.add(key);
    })
    .map((s) => ({ type: s.item.ref.type, id: s.item.ref.id, title: s.item.ref.title, excerpt: s.excerpt }));
  const articles = signals
    .filter((s) => s.item.role === 'knowledge' && s.item.facts?.mitigation)
    .map((s) => `${s.item.ref.title}: ${s.item.facts!.mitigation}`);
  return {
    cause: rule.cause,
    title: rule.title,
    score: value,
    confidence: confidence(value),
    explanation: rule.explanation,
    evidence,
    actions: [...rule.actions(ev), ...articles.map((a) => `Knowledge base, ${a}`)],
  };
}

/** The line of `text` where the first pattern matches, trimmed: what the answer quotes. */
function firstMatch(patterns: RegExp[], text: string): string | null {
  for (const p of patterns) {
    const m = p.exec(text);
    if (!m) continue;
    const start = text.lastIndexOf('\n', m.index) + 1;
    const end = text.indexOf('\n', m.index);
    const line = text.slice(start, end === -1 ? undefined : end).trim();
    return line.length > 200 ? `${line.slice(0, 197)}...` : line;
  }
  return null;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const confidence = (s: number): Cause['confidence'] => (s >= 0.75 ? 'high' : s >= 0.45 ? 'medium' : 'low');
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);
