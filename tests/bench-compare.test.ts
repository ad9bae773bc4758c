import { spawnSync } from 'node:child_process';
import { valueDifference } from '../bench/compare';
import { perRequest, processesCpuMicros } from '../bench/cpu';
import { median, roundRatios } from '../bench/rounds';
import { MIN_ANSWERS_PER_SLICE, sliceCount, sliceOrder } from '../bench/slices';

/**
 * The bench's comparison of the engine's answer with a floor's own (bench/compare.ts): by value, so a
 * floor that answers something else is caught before its figures are printed.
 */
describe('bench answers compared by value', () => {
  test('the same values in another JSON spelling are the same; floats to a relative 1e-9', () => {
    const engine = JSON.parse('{"a" : [{"id" : "x", "sum" : {"amount" : 1865269.79}}], "n" : 3}');
    const floor = JSON.parse('{"a":[{"id":"x","sum":{"amount":1865269.7900000003}}],"n":3}');
    expect(valueDifference(engine, floor)).toBeUndefined();
    expect(valueDifference({ n: 1865269.79 }, { n: 1865269.8 })).toBe('data.n: 1865269.79 and 1865269.8');
  });

  test('a different value, key, key order, length or null is a difference, with where it is', () => {
    expect(valueDifference({ a: [{ x: 'p' }] }, { a: [{ x: 'q' }] })).toBe('data.a[0].x: "p" and "q"');
    expect(valueDifference({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe('data: keys a,b and b,a');
    expect(valueDifference({ a: [1, 2] }, { a: [1] })).toBe('data.a: 2 and 1 items');
    expect(valueDifference({ a: null }, { a: {} })).toBe('data.a: null and {}');
    expect(valueDifference({ a: '1' }, { a: 1 })).toBe('data.a: "1" and 1');
  });

  test('generated keys only need to be there; lists are ordered unless told otherwise', () => {
    const rows = (ids: string[]) => ({ r: ids.map((id, i) => ({ id, name: `n${i}` })) });
    expect(valueDifference(rows(['u1', 'u2']), rows(['v1', 'v2']), { generated: ['id'] })).toBeUndefined();
    expect(valueDifference(rows(['u1', 'u2']), rows(['v1', 'v2']))).toBe('data.r[0].id: "u1" and "v1"');
    const a = { r: [{ x: 1 }, { x: 2 }] };
    const b = { r: [{ x: 2 }, { x: 1 }] };
    expect(valueDifference(a, b)).toBe('data.r[0].x: 1 and 2');
    expect(valueDifference(a, b, { unordered: true })).toBeUndefined();
    expect(valueDifference(a, { r: [{ x: 2 }, { x: 3 }] }, { unordered: true })).toBe('data.r[0].x: 1 and 2');
  });

  test('CPU per request counts no requests as one', () => {
    expect(perRequest(5000, 10)).toBe(500);
    expect(perRequest(5000, 0)).toBe(5000);
  });

  test("a server's backends' CPU is read from /proc: a process that works counts, one gone counts 0", () => {
    const before = processesCpuMicros([process.pid]);
    // 60 ms of this process's CPU as Node counts it (6 of /proc's 10-ms ticks), however long it takes.
    const start = process.cpuUsage();
    const used = () => {
      const u = process.cpuUsage(start);
      return u.user + u.system;
    };
    while (used() < 60_000);
    expect(processesCpuMicros([process.pid]) - before).toBeGreaterThanOrEqual(40_000);
    // Pids above Linux's largest (pid_max is at most 2^22) never name a process.
    expect(processesCpuMicros([2 ** 23])).toBe(0);
    expect(processesCpuMicros([process.pid, 2 ** 23])).toBeGreaterThanOrEqual(before);
  });

  test("with reaped, a process's ended children count: the parallel workers of PostgreSQL's statements", () => {
    const own = processesCpuMicros([process.pid]);
    const all = processesCpuMicros([process.pid], true);
    // A child that uses 60 ms of CPU and ends; this process waits for it (as the postmaster for its workers).
    const burn =
      'const s = process.cpuUsage(); for (;;) { const u = process.cpuUsage(s); if (u.user + u.system > 60000) break; }';
    expect(spawnSync(process.execPath, ['-e', burn]).status).toBe(0);
    const ownGrew = processesCpuMicros([process.pid]) - own;
    const allGrew = processesCpuMicros([process.pid], true) - all;
    expect(allGrew - ownGrew).toBeGreaterThanOrEqual(40_000);
  });

  test("the summary's ratio: each round's engine over that round's floor, and their median", () => {
    const rps = (...xs: number[]) => xs.map((x) => ({ rps: x }));
    // The second round's floor was slowed: its ratio is an outlier that the median leaves out.
    const each = roundRatios(rps(900, 1200, 950), rps(1000, 800, 1000));
    expect(each).toEqual([0.9, 1.5, 0.95]);
    expect(median(each)).toBe(0.95);
    // The rounds merged (requests over time) would have said 1.08 of the floor.
    expect((900 + 1200 + 950) / (1000 + 800 + 1000)).toBeCloseTo(1.089, 3);
    expect(median([0.8, 1.0])).toBe(0.9);
    expect(median([0.7])).toBe(0.7);
    expect(median([])).toBeNaN();
    expect(() => roundRatios(rps(1, 2), rps(1))).toThrow('2 engine rounds against 1 floor rounds');
  });

  test('a round is cut into as many slices as the slowest warm-up rate fills, up to the most asked for', () => {
    // 5,000 req/s for 5 s at 4 connections: 6,250 answers a connection, far more than 5 slices need.
    expect(sliceCount(5, 5, 4, [5000, 6000])).toBe(5);
    // The slowest server decides: 20 req/s for 30 s at 4 connections is 150 answers a connection, 6 slices' worth.
    expect(sliceCount(10, 30, 4, [20, 9000])).toBe(Math.floor((20 * 30) / (4 * MIN_ANSWERS_PER_SLICE)));
    // Too slow for two slices, or no warm-up to tell: one slice, the whole period.
    expect(sliceCount(5, 30, 32, [40])).toBe(1);
    expect(sliceCount(5, 5, 4, [])).toBe(1);
    expect(sliceCount(5, 5, 4, [0, 100])).toBe(1);
    expect(sliceCount(1, 5, 4, [5000])).toBe(1);
  });

  test("slices take the servers in turns, the round's order reversed every other slice", () => {
    const order = ['engine', 'floor'];
    const turns = [0, 1, 2, 3].flatMap((i) => sliceOrder(order, i));
    expect(turns).toEqual(['engine', 'floor', 'floor', 'engine', 'engine', 'floor', 'floor', 'engine']);
    expect(sliceOrder(['a', 'b', 'c'], 1)).toEqual(['c', 'b', 'a']);
    // The round's order itself is left as it was.
    expect(order).toEqual(['engine', 'floor']);
  });
});
