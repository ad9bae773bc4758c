/**
 * `npm run bench -- bomb`: the engine's memory under the batch and alias bombs of issue 16, on real
 * PostgreSQL. A scratch database gets the demo data and 365 extra days of spend lines (so that
 * `spends(limit: 10000)` finds 10,000 rows), the engine runs in a child process with its default limits,
 * and its resident memory (VmRSS) is sampled every 20 ms while the bombs run, all four at once (each
 * BENCH_BOMB_PARALLEL times, default 1): a batch of
 * 1,000 entries, a batch of MAX_BATCH_SIZE entries, an operation of 1,000 aliases and one of MAX_ALIASES
 * aliases, each entry or alias `spends(limit: 10000) { ... cloudAccountByCloudAccount { ... } }`. A
 * simple request is sent meanwhile, one after the other, and its slowest answer reported.
 *
 * Prints idle RSS, peak RSS, their ratio (goal: under 2), and each bomb's answer (status, error code,
 * bytes, seconds). Settings: BENCH_DATABASE_URL or DATABASE_URL (a server where databases may be created),
 * BENCH_BOMB_PARALLEL.
 */
import * as fs from 'node:fs';
import { withScratchEngine } from './scratch-engine';
import { sessionHeaders } from './workloads';

const log = (msg: string) => process.stderr.write(`bench bomb: ${msg}\n`);

const ENTRY = `spends(limit: 10000) { id date amount unit tags cloudAccountByCloudAccount { id account_name account_env } }`;
/** Copies of each bomb sent at once (BENCH_BOMB_PARALLEL, default 1: the attack was one request). */
const PARALLEL = Math.max(1, Number(process.env.BENCH_BOMB_PARALLEL) || 1);

/** Resident memory of a process, in MB, from /proc (Linux); the engine's event loop need not answer. */
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

interface Answer {
  status: number;
  code: string;
  mb: number;
  seconds: number;
}

async function send(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  const code = /"code":"([^"]+)"/.exec(text.slice(0, 2000))?.[1] ?? 'ok';
  return { status: res.status, code, mb: text.length / 1e6, seconds: (performance.now() - t0) / 1000 };
}

const bombs: [string, string][] = [
  ['batch of 1,000 entries', JSON.stringify(Array.from({ length: 1000 }, () => ({ query: `{ ${ENTRY} }` })))],
  [
    'batch of 50 entries (MAX_BATCH_SIZE)',
    JSON.stringify(Array.from({ length: 50 }, () => ({ query: `{ ${ENTRY} }` }))),
  ],
  [
    'operation of 1,000 aliases',
    JSON.stringify({ query: `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: ${ENTRY}`).join(' ')} }` }),
  ],
  [
    'operation of 100 aliases (MAX_ALIASES)',
    JSON.stringify({ query: `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: ${ENTRY}`).join(' ')} }` }),
  ],
];

/** Runs every bomb PARALLEL times at once while sampling RSS and timing a simple request. */
async function attack(pid: number, url: string, headers: Record<string, string>) {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  let running = true;
  let slowest = 0;
  const simple = (async () => {
    while (running) {
      const a = await send(url, headers, JSON.stringify({ query: '{ cloud_accounts(limit: 1) { id } }' }));
      slowest = Math.max(slowest, a.seconds);
    }
  })();
  const answers = await Promise.all(
    bombs.map(async ([name, body]) => ({
      name,
      bytes: body.length,
      answers: await Promise.all(Array.from({ length: PARALLEL }, () => send(url, headers, body))),
    })),
  );
  running = false;
  await simple;
  clearInterval(sampler);
  return { peak: Math.max(peak, rssMb(pid)), slowest, answers };
}

export async function runBomb(baseUrl: string): Promise<number> {
  log(`starting the engine on a scratch database (demo data and 365 extra days of spend lines)`);
  return withScratchEngine(baseUrl, { extraSpendDays: 365, execArgv: ['--expose-gc'] }, async (s) => {
    const { engine, started } = s;
    const url = `http://127.0.0.1:${started.port}/api/graphql`;
    const headers = sessionHeaders(s.adminSecret);
    // Warm: plans compiled and the pool opened, as a server that has been serving.
    for (let i = 0; i < 20; i++) await send(url, headers, JSON.stringify({ query: `{ ${ENTRY} }` }));
    await engine.call('stats', { gc: true });
    await new Promise((r) => setTimeout(r, 500));
    const idle = rssMb(engine.pid);
    log(`${started.spendsRows} spend lines; idle RSS ${idle.toFixed(0)} MB; ${PARALLEL} of each bomb at once`);
    const result = await attack(engine.pid, url, headers);
    for (const b of result.answers) {
      const a = b.answers;
      const codes = [...new Set(a.map((x) => `${x.status} ${x.code}`))].join(', ');
      const secs = Math.max(...a.map((x) => x.seconds)).toFixed(2);
      const mb = Math.max(...a.map((x) => x.mb)).toFixed(3);
      process.stdout.write(
        `${b.name} (${(b.bytes / 1024).toFixed(0)} KB request) x${PARALLEL}: ${codes}; largest answer ${mb} MB; slowest ${secs} s\n`,
      );
    }
    process.stdout.write(
      `RSS idle ${result.peak > 0 ? idle.toFixed(0) : '?'} MB, peak during the bombs ${result.peak.toFixed(0)} MB: ${(result.peak / idle).toFixed(2)}x idle (goal under 2x)\n` +
        `slowest simple request during the bombs: ${(result.slowest * 1000).toFixed(0)} ms\n`,
    );
    return result.peak / idle < 2 ? 0 : 1;
  });
}
