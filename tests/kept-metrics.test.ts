import { Registry } from 'prom-client';
import { KeptCounter, KeptHistogram } from '../engine/core/kept-metrics';

describe('metrics kept by the engine, read through the registry', () => {
  test('a histogram is written as prom-client writes one: cumulative buckets, +Inf, sum and count', async () => {
    const registry = new Registry();
    const h = new KeptHistogram({ name: 'x_seconds', help: 'Seconds of x', buckets: [0.1, 1, 0.5] }, registry);
    const a = h.series('a', () => ({ route: '/a', method: 'POST' }));
    for (const v of [0.05, 0.3, 0.7, 2]) a.observe(v);
    expect(h.series('a', () => ({ route: 'never asked' }))).toBe(a);
    const text = await registry.metrics();
    expect(text).toContain('# HELP x_seconds Seconds of x\n# TYPE x_seconds histogram');
    expect(text).toContain(
      [
        'x_seconds_bucket{le="0.1",route="/a",method="POST"} 1',
        'x_seconds_bucket{le="0.5",route="/a",method="POST"} 2',
        'x_seconds_bucket{le="1",route="/a",method="POST"} 3',
        'x_seconds_bucket{le="+Inf",route="/a",method="POST"} 4',
        'x_seconds_sum{route="/a",method="POST"} 3.05',
        'x_seconds_count{route="/a",method="POST"} 4',
      ].join('\n'),
    );
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('x_seconds_count{route="/a",method="POST"} 0');
  });

  test('a counter counts per label set', async () => {
    const registry = new Registry();
    const c = new KeptCounter({ name: 'y_total', help: 'Ys' }, registry);
    c.series('hit', () => ({ result: 'hit' })).inc();
    c.series('hit', () => ({ result: 'hit' })).inc();
    c.series('miss', () => ({ result: 'miss' })).inc();
    const text = await registry.metrics();
    expect(text).toContain('# TYPE y_total counter\ny_total{result="hit"} 2\ny_total{result="miss"} 1');
  });
});
