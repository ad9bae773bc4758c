/**
 * Summarises an allocation profile (BENCH_ALLOC_PROF, alloc-profile.ts): the bytes allocated by part
 * of the request path and by function, and the callers of the functions that allocate most.
 *
 *   node dist/bench/alloc-top.js <file.heapprofile> [count] [--from <function>] [--requests <n>]
 *
 * --from: only the samples allocated after the first one whose stack holds that function (answerPost
 * for the engine: start-up and the schema's building left out). --requests: the requests answered
 * in that time, to print kilobytes per request. Fewer bytes allocated a request means fewer young
 * collections, and fewer objects alive across them means shorter ones.
 */
import * as fs from 'node:fs';
import { label, options, partOf } from './profile-top';

interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
  samples: { size: number; nodeId: number; ordinal: number }[];
}

/** Each node's stack, leaf first. */
function stacks(head: HeapNode): Map<number, HeapNode[]> {
  const out = new Map<number, HeapNode[]>();
  const walk = (n: HeapNode, above: HeapNode[]) => {
    const stack = [n, ...above];
    out.set(n.id, stack);
    for (const c of n.children) walk(c, stack);
  };
  walk(head, []);
  return out;
}

function main(): void {
  const o = options(process.argv.slice(2));
  if (!o) {
    process.stderr.write(
      'usage: node dist/bench/alloc-top.js <file.heapprofile> [count] [--from <fn>] [--requests <n>]\n',
    );
    process.exit(2);
  }
  const { file, count, from, requests = 0 } = o;
  process.stdout.on('error', () => process.exit(0));
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as HeapProfile;
  const byNode = stacks(profile.head);
  const holds = (nodeId: number) => byNode.get(nodeId)!.some((n) => n.callFrame.functionName === from);
  const samples = [...profile.samples].sort((a, b) => a.ordinal - b.ordinal);
  const start = from
    ? Math.max(
        0,
        samples.findIndex((s) => holds(s.nodeId)),
      )
    : 0;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const parts = new Map<string, number>();
  const self = new Map<string, number>();
  const callers = new Map<string, Map<string, number>>();
  let total = 0;
  for (const s of samples.slice(start)) {
    const [leaf, ...above] = byNode.get(s.nodeId)!;
    const name = label(leaf);
    total += s.size;
    add(parts, partOf(leaf.callFrame.url, leaf.callFrame.functionName), s.size);
    add(self, name, s.size);
    const path = above.slice(0, 3).map(label).join(' < ');
    if (!callers.has(name)) callers.set(name, new Map());
    add(callers.get(name)!, path, s.size);
  }
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  const perRequest = (v: number) => (requests ? `  ${(v / requests / 1024).toFixed(2).padStart(7)} KB/req` : '');
  const line = (v: number, k: string) => `${((100 * v) / total).toFixed(1).padStart(5)}%${perRequest(v)}  ${k}\n`;
  const out = process.stdout;
  out.write(`${file}: ${(total / 1e6).toFixed(1)} MB allocated${from ? ` from the first sample in ${from}` : ''}\n`);
  out.write('\nby part:\n');
  for (const [k, v] of top(parts, 100)) out.write(line(v, k));
  out.write('\nby function (self), with its callers:\n');
  for (const [k, v] of top(self, count)) {
    out.write(line(v, k));
    for (const [path, b] of top(callers.get(k)!, 2))
      out.write(`         ${((100 * b) / total).toFixed(1)}% < ${path}\n`);
  }
}

main();
