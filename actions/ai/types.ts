/**
 * The shapes the analysis pipeline passes along: evidence gathered from the tenant's data
 * (evidence.ts), the causes the built-in reasoner finds in it (reasoner.ts), and the references an
 * answer cites. Kept apart so that every stage can import them without importing the others.
 */

/** A record an answer cites: its kind (the table it comes from) and id, with a short title. */
export interface Reference {
  type: string;
  id: string;
  title: string;
}

/** One piece of evidence: the record it is, and the text the reasoner reads in it. */
export interface EvidenceItem {
  ref: Reference;
  /** Where it sits relative to the event: the event itself, or something found around it. */
  role:
    | 'event'
    | 'related_event'
    | 'log'
    | 'workload'
    | 'pod'
    | 'node'
    | 'change'
    | 'recommendation'
    | 'anomaly'
    | 'spend'
    | 'knowledge';
  text: string;
  /** When it happened (ISO), when it has a time. */
  at?: string;
  /** Structured fields the rules read (restart counts, conditions, amounts ...). */
  facts?: Record<string, unknown>;
}

/** An event row, as the pipeline needs it. */
export interface EventRow {
  id: string;
  account_id: string | null;
  resource_id: string | null;
  title: string;
  description: string | null;
  failure: string | null;
  severity: string;
  status: string | null;
  source: string | null;
  category: string | null;
  finding_type: string;
  aggregation_key: string;
  cluster: string;
  subject_name: string;
  subject_namespace: string | null;
  subject_node: string | null;
  subject_owner: string | null;
  subject_type: string | null;
  labels: Record<string, unknown> | null;
  evidences: unknown;
  created_at: string;
}

export interface Evidence {
  event: EventRow;
  /** The workload the event is about, when it is about one (owner, pod's workload or subject). */
  workload: string | null;
  items: EvidenceItem[];
}

/** A cause the built-in reasoner recognised, with what supports it. */
export interface Cause {
  cause: string;
  title: string;
  /** 0..1: how strongly the evidence points at this cause. */
  score: number;
  confidence: 'high' | 'medium' | 'low';
  explanation: string;
  evidence: { type: string; id: string; title: string; excerpt: string }[];
  actions: string[];
}

/** Who answered, as stored and returned: the built-in analyst or the model (by name). */
export type Analyst = { kind: 'builtin' } | { kind: 'model'; model: string };

export const BUILTIN_ANALYST = 'built-in analyst';
