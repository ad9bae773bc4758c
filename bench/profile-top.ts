/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or BENCH_CPU_PROF for the bench's engine and floor
 * processes): where the process's busy time went, by part of the request path (Node's HTTP, the
 * engine's stages by folder, postgres.js, GC, system calls), by file of the project, and the
 * functions with the most self and inclusive time.
 *
 *   node dist/bench/profile-top.js <file.cpuprofile> [count] [--from <function>] [--requests <n>]
 *
 * --from: only the samples from the first one whose stack holds that function (answerPost for the
 * engine, so that start-up and the schema's building are left out). --requests: the requests the
 * process answered in those samples (the bench's "requests" column plus its warm-up), to print
 * microseconds per request beside the percentages.
 *
 * The profile samples the thread whenever it is not idle, so a system call's time includes time the
 * process waited for the CPU while PostgreSQL ran (on a machine shared with it, writev and writeBuffer
 * read high in engine and floor alike): compare parts between engine and floor, not with CPU time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Options {
  file: string;
  count: number;
  from?: string;
  requests?: number;
}

export function options(argv: string[]): Options | undefined {
  const rest: string[] = [];
  let from: string | undefined;
  let requests: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--from') from = argv[++i];
    else if (argv[i] === '--requests') requests = Number(argv[++i]);
    else rest.push(argv[i]);
  }
  const [file, count] = rest;
  if (!file) return undefined;
  return { file, count: Number(count ?? 30), from, requests };
}

/** The part of the request path a frame's code belongs to. */
export function partOf(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8 (program)';
  if (!url) return 'native code and system calls (writev, writeBuffer, ...)';
  const dep = url.lastIndexOf('node_modules/');
  if (dep >= 0) {
    const name = url.slice(dep + 13).split('/')[0];
    return name === 'postgres' ? 'postgres.js' : name === 'graphql' ? 'graphql-js' : `package ${name}`;
  }
  if (url.startsWith('node:')) return nodePart(url);
  const dist = url.lastIndexOf('/dist/');
  const rel = dist >= 0 ? url.slice(dist + 6) : url;
  return projectPart(rel);
}

function nodePart(url: string): string {
  if (/_http_|internal\/http/.test(url)) return 'Node: HTTP';
  if (/streams\/|net|stream_base/.test(url)) return 'Node: sockets and streams';
  if (/task_queues|promises|timers|events|async_hooks/.test(url)) return 'Node: events, promises, timers';
  if (/buffer/.test(url)) return 'Node: buffers';
  if (/modules\/|bootstrap|realm/.test(url)) return 'Node: module loading (start-up)';
  return 'Node: other';
}

const PROJECT_PARTS: [RegExp, string][] = [
  [/^engine\/serve\/http\//, 'engine: HTTP route, lane, access line (serve/http)'],
  [/^engine\/serve\/auth\//, 'engine: session (serve/auth)'],
  [/^engine\/compile\/execute\//, 'engine: document and plan caches, variables, binding, running (compile/execute)'],
  [/^engine\/compile\//, 'engine: schema, planning, SQL (compile, once per document)'],
  [/^engine\/core\/db\//, 'engine: gate and pool (core/db)'],
  [/^engine\//, 'engine: core (metrics, request record, ...)'],
  [/^actions\//, 'actions'],
  [/^bench\//, "bench (the floor's route)"],
  [/^demo\//, 'demo data (start-up)'],
];

function projectPart(rel: string): string {
  return PROJECT_PARTS.find(([re]) => re.test(rel))?.[1] ?? rel;
}

export function label(n: Pick<ProfileNode, 'callFrame'>): string {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const rel = url.includes('node_modules/')
    ? url.slice(url.lastIndexOf('node_modules/') + 13)
    : url
      ? path.relative(process.cwd(), url)
      : '';
  return `${n.callFrame.functionName || '(anonymous)'} ${rel ? `${rel}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
}

/** Self time by label, part and project file, and inclusive time by label, over the samples from `start`. */
function tally(profile: Profile, start: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const self = new Map<string, number>();
  const parts = new Map<string, number>();
  const files = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (let i = start; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i])!;
    if (node.callFrame.functionName === '(idle)') continue;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    add(self, label(node), dt);
    add(parts, partOf(node.callFrame.url, node.callFrame.functionName), dt);
    const dist = node.callFrame.url.lastIndexOf('/dist/');
    if (dist >= 0) add(files, node.callFrame.url.slice(dist + 6), dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = node.id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (!seen.has(l) && !l.startsWith('(')) add(inclusive, l, dt);
      seen.add(l);
    }
  }
  return { busy, self, parts, files, inclusive, byId, parent };
}

/** The index of the first sample whose stack holds `fn`, or 0. */
function firstSampleIn(profile: Profile, fn: string | undefined): number {
  if (!fn) return 0;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const holds = (id: number) => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      if (byId.get(cur)!.callFrame.functionName === fn) return true;
    return false;
  };
  const at = profile.samples.findIndex(holds);
  return at < 0 ? 0 : at;
}

function main(): void {
  const o = options(process.argv.slice(2));
  if (!o) {
    process.stderr.write(
      'usage: node dist/bench/profile-top.js <file.cpuprofile> [count] [--from <function>] [--requests <n>]\n',
    );
    process.exit(2);
  }
  // `| head` closes the pipe early: not an error.
  process.stdout.on('error', () => process.exit(0));
  const profile = JSON.parse(fs.readFileSync(o.file, 'utf8')) as Profile;
  const t = tally(profile, firstSampleIn(profile, o.from));
  const perRequest = (v: number) => (o.requests ? `  ${(v / o.requests).toFixed(1).padStart(8)} µs/req` : '');
  const line = (v: number, k: string) => `${((100 * v) / t.busy).toFixed(1).padStart(5)}%${perRequest(v)}  ${k}\n`;
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  const out = process.stdout;
  out.write(
    `${o.file}: ${(t.busy / 1e6).toFixed(2)} s busy${o.from ? ` from the first sample in ${o.from}` : ''}` +
      `${o.requests ? `, ${o.requests} requests: ${(t.busy / o.requests).toFixed(1)} µs each` : ''} (percentages are of busy time)\n`,
  );
  out.write('\nby part:\n');
  for (const [k, v] of top(t.parts, 100)) out.write(line(v, k));
  out.write('\nthe project, by file (self):\n');
  for (const [k, v] of top(t.files, o.count)) out.write(line(v, k));
  out.write('\nself time:\n');
  for (const [k, v] of top(t.self, o.count)) out.write(line(v, k));
  out.write('\ninclusive time:\n');
  for (const [k, v] of top(t.inclusive, o.count)) out.write(line(v, k));
}

// alloc-top.ts borrows partOf and label: run only when called as a script.
if (require.main === module) main();
