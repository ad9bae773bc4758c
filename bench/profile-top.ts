/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or BENCH_CPU_PROF for the bench's engine process):
 * the functions with the most self time, and the most inclusive time, with their files.
 *
 *   node dist/bench/profile-top.js <file.cpuprofile> [count]
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

const [file, countArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/bench/profile-top.js <file.cpuprofile> [count]\n');
  process.exit(2);
}
const count = Number(countArg ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const rel = url.includes('node_modules/')
    ? url.slice(url.lastIndexOf('node_modules/') + 13)
    : url
      ? path.relative(process.cwd(), url)
      : '';
  return `${n.callFrame.functionName || '(anonymous)'} ${rel ? `${rel}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
  }
});

const idle = [...self.entries()].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
const busy = total - idle;
const pct = (v: number) => `${((100 * v) / busy).toFixed(1).padStart(5)}%`;
process.stdout.write(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages are of busy time)\n\nself time:\n`,
);
for (const [k, v] of [...self.entries()]
  .filter(([k]) => !k.startsWith('(idle)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, count))
  process.stdout.write(`${pct(v)}  ${k}\n`);
process.stdout.write('\ninclusive time:\n');
for (const [k, v] of [...inclusive.entries()]
  .filter(([k]) => !k.startsWith('('))
  .sort((a, b) => b[1] - a[1])
  .slice(0, count))
  process.stdout.write(`${pct(v)}  ${k}\n`);
