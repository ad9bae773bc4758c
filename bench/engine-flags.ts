import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The Node.js flags the engine's process runs with: those of `npm start` (package.json's start script,
 * the flags before the script it runs; the Dockerfile's CMD has the same, .ci/image-check.mjs checks),
 * so that the bench measures the engine as it is deployed. BENCH_ENGINE_NODE_FLAGS names others
 * instead ('' for none: V8's defaults), to compare.
 */
export function engineNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.BENCH_ENGINE_NODE_FLAGS !== undefined) return env.BENCH_ENGINE_NODE_FLAGS.split(/\s+/).filter(Boolean);
  return startFlags();
}

/** The flags of package.json's start script: `node <flags> <script> ...`. */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [node, ...rest] = pkg.scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`package.json's start script does not start with node: ${pkg.scripts.start}`);
  const end = rest.findIndex((a) => !a.startsWith('--'));
  return end < 0 ? rest : rest.slice(0, end);
}

/**
 * The engine's database settings from the bench's own environment (DATABASE_POOL_*,
 * DATABASE_PIPELINE_*, DATABASE_COALESCE, DATABASE_PARALLEL_WORKERS), handed to the engine it starts, to compare them.
 */
export function engineDatabaseSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined && /^DATABASE_(POOL|PIPELINE)_|^DATABASE_(COALESCE|PARALLEL_WORKERS)$/.test(e[0]),
    ),
  );
}
