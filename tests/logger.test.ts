import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLogger, descriptorSink } from '../engine/core/logger';
import { runTs } from './support/auth';

/** The engine's JSON lines, read back: level, time and pid first, the fields, msg last; one line each. */
function collect(level: Parameters<typeof createLogger>[0]) {
  const written: string[] = [];
  const log = createLogger(level, { write: (line: string) => written.push(line) });
  return { log, written, parsed: () => written.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('the JSON line logger', () => {
  test('writes one line per entry at or above its level, in the order level, time, pid, fields, msg', () => {
    const { log, written, parsed } = collect('info');
    log({ level: 'debug', msg: 'below the level' });
    log({ level: 'info', msg: 'request', route: '/v1/graphql', status: 200, code: undefined, rows: 1 });
    log({ level: 'error', msg: 'failed', error: 'connect ECONNREFUSED' });
    expect(written).toHaveLength(2);
    for (const line of written) expect(line.endsWith('}\n') && line.indexOf('\n') === line.length - 1).toBe(true);
    const [first, second] = parsed();
    expect(Object.keys(first)).toEqual(['level', 'time', 'pid', 'route', 'status', 'rows', 'msg']);
    expect(first).toMatchObject({
      level: 'info',
      pid: process.pid,
      route: '/v1/graphql',
      status: 200,
      rows: 1,
      msg: 'request',
    });
    expect(String(first.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(String(first.time)) - Date.now())).toBeLessThan(5_000);
    expect(second).toMatchObject({ level: 'error', error: 'connect ECONNREFUSED', msg: 'failed' });
  });

  test('an entry without a known level is info; a message that is not a string is written as one', () => {
    const { log, parsed } = collect('trace');
    log({ msg: 42 });
    log({ level: 'loud', msg: undefined, n: 1 });
    log({ level: 'trace', msg: 'lowest' });
    expect(parsed()).toEqual([
      expect.objectContaining({ level: 'info', msg: '42' }),
      expect.objectContaining({ level: 'info', msg: '', n: 1 }),
      expect.objectContaining({ level: 'trace', msg: 'lowest' }),
    ]);
  });

  test('a field JSON cannot hold (a BigInt, a cycle) is written as its String; the others stay JSON', () => {
    const { log, parsed } = collect('info');
    const cycle: Record<string, unknown> = { name: 'c' };
    cycle.self = cycle;
    log({ msg: 'odd', big: 10n, cycle, list: [1, 'two'], nested: { a: null } });
    expect(parsed()[0]).toMatchObject({ big: '10', cycle: '[object Object]', list: [1, 'two'], nested: { a: null } });
  });

  test('silent writes nothing, fatal included', () => {
    const { log, written } = collect('silent');
    log({ level: 'fatal', msg: 'stopping' });
    expect(written).toEqual([]);
  });

  test('a message with quotes, newlines and non-ASCII characters stays one valid line', () => {
    const { log, written, parsed } = collect('info');
    log({ msg: 'a "quoted"\nsecond line — ü', path: 'C:\\x' });
    expect(written[0].split('\n')).toHaveLength(2);
    expect(parsed()[0]).toMatchObject({ msg: 'a "quoted"\nsecond line — ü', path: 'C:\\x' });
  });
});

describe('standard output (descriptorSink)', () => {
  test("writes a turn of the event loop's lines together at its end, in order", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logger-'));
    const file = path.join(dir, 'lines');
    const fd = fs.openSync(file, 'w');
    try {
      const log = createLogger('info', descriptorSink(fd));
      for (let i = 0; i < 50; i++) log({ msg: `line ${i}`, i });
      expect(fs.readFileSync(file, 'utf8')).toBe('');
      await new Promise((resolve) => setImmediate(resolve));
      const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines.map((l) => JSON.parse(l).i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    } finally {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('writes at most once every 10 ms: lines of the next turns soon after a write wait for the rest of it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logger-'));
    const file = path.join(dir, 'lines');
    const fd = fs.openSync(file, 'w');
    const count = () => fs.readFileSync(file, 'utf8').split('\n').length - 1;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    try {
      const log = createLogger('info', descriptorSink(fd));
      // Read before the write, not after it: the turn that writes may end some ms after its write,
      // and the held lines' timer counts from the write.
      const beforeWrite = Date.now();
      log({ msg: 'first' });
      await turn();
      expect(count()).toBe(1);
      // Three turns' lines, each soon after the write: held, then written together.
      for (let i = 0; i < 3; i++) {
        log({ msg: `line ${i}` });
        await turn();
      }
      if (Date.now() - beforeWrite < 8) expect(count()).toBe(1);
      await new Promise((r) => setTimeout(r, 30));
      expect(count()).toBe(4);
      // After a quiet spell a line is written at the end of its turn again. The spell is its own
      // wait: on a busy machine the held lines' timer may have fired just before the 30 ms ended,
      // which left the next write within 10 ms of it.
      await new Promise((r) => setTimeout(r, 15));
      log({ msg: 'after' });
      await turn();
      expect(count()).toBe(5);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each(['exit', 'throw'])('lines held when the process ends (%s) are written before it ends', async (how) => {
    const run = await runTs('tests/support/log-exit-probe.ts', [how], {});
    expect(run.code).toBe(how === 'exit' ? 3 : 1);
    const lines = run.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['info', 'line 1'],
      ['info', 'line 2'],
      ['fatal', 'line 3'],
    ]);
    if (how === 'throw') expect(run.err).toContain('uncaught on purpose');
  });
});
