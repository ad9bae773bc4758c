import type { Metric, Registry } from 'prom-client';

/**
 * Metrics counted on every request, kept by the engine instead of prom-client: prom-client finds an
 * observation's series by checking and hashing its labels (keys sorted and joined) on every call, and
 * that was about 2% of the engine's CPU per request. Here a series is found once by a plain key and
 * held; an observation is a bucket search and a few additions. At a scrape the registry reads them in
 * prom-client's own shape (`get`), so that /metrics reads as before.
 */
type Labels = Record<string, string>;

interface Value {
  value: number;
  labels: Labels;
  metricName?: string;
}

/** One label set of a histogram: observations per bucket (not cumulative), their sum and count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(v: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++)
      if (v <= bounds[i]) {
        this.counts[i]++;
        break;
      }
    this.sum += v;
    this.count++;
  }
}

/** One label set of a counter. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}

  inc(): void {
    this.value++;
  }
}

/** What the registry reads of a metric: its name, help and type, its values, and a reset. */
abstract class KeptMetric<S> {
  protected readonly kept = new Map<string, S>();
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'histogram' | 'counter',
    registry: Registry,
  ) {
    // The registry takes any object with these members; prom-client's types name only its own classes.
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of a label set, found by `key` (made of the same values), made on first use. */
  series(key: string, labels: () => Labels): S {
    let s = this.kept.get(key);
    if (!s) this.kept.set(key, (s = this.make(labels())));
    return s;
  }

  protected abstract make(labels: Labels): S;
  protected abstract values(): Value[];
  abstract reset(): void;

  async get() {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }
}

/** A histogram whose series the engine keeps: buckets as prom-client writes them (cumulative, then +Inf). */
export class KeptHistogram extends KeptMetric<HistogramSeries> {
  private readonly bounds: number[];

  constructor(opts: { name: string; help: string; buckets: number[] }, registry: Registry) {
    super(opts.name, opts.help, 'histogram', registry);
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
  }

  protected make(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }

  protected values(): Value[] {
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.kept.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ value: cumulative, labels: { le: String(le), ...s.labels }, metricName: bucket });
      });
      values.push({ value: s.count, labels: { le: '+Inf', ...s.labels }, metricName: bucket });
      values.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
    }
    return values;
  }

  reset(): void {
    for (const s of this.kept.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

/** A counter whose series the engine keeps. */
export class KeptCounter extends KeptMetric<CounterSeries> {
  constructor(opts: { name: string; help: string }, registry: Registry) {
    super(opts.name, opts.help, 'counter', registry);
  }

  protected make(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  protected values(): Value[] {
    return [...this.kept.values()].map((s) => ({ value: s.value, labels: s.labels }));
  }

  reset(): void {
    for (const s of this.kept.values()) s.value = 0;
  }
}
