import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Hono } from 'hono';
import { projectRoot } from '../../core/config';

/** A file's text without its line end, or undefined when it cannot be read. */
function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

const COMMIT = /^[0-9a-f]{40}$/;

/**
 * The commit checked out in `root`, read from its .git files (no git process): HEAD, then the branch
 * it names as a loose ref or in packed-refs. A worktree's .git is a file naming its own folder, whose
 * `commondir` names the folder holding the refs. Undefined without a checkout (an image built without
 * .git).
 */
export function gitCommit(root: string): string | undefined {
  let gitDir = path.join(root, '.git');
  const pointer = readText(gitDir);
  if (pointer !== undefined) {
    const named = /^gitdir:\s*(.+)$/m.exec(pointer)?.[1];
    if (!named) return undefined;
    gitDir = path.resolve(root, named);
  }
  const head = readText(path.join(gitDir, 'HEAD'));
  if (head === undefined) return undefined;
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (!ref) return COMMIT.test(head) ? head : undefined;
  const common = path.resolve(gitDir, readText(path.join(gitDir, 'commondir')) ?? '.');
  for (const dir of [gitDir, common]) {
    const loose = readText(path.join(dir, ref));
    if (loose && COMMIT.test(loose)) return loose;
  }
  const packed = readText(path.join(common, 'packed-refs')) ?? '';
  const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
  const sha = line?.split(' ')[0];
  return sha && COMMIT.test(sha) ? sha : undefined;
}

/** The package's version, and the commit when the engine runs from a git checkout. */
export function versionInfo(root = projectRoot()): { version: string; commit?: string } {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const commit = gitCommit(root);
  return commit ? { version: pkg.version, commit } : { version: pkg.version };
}

/**
 * GET /version (and Hasura's path, /v1/version): `{"version": "0.1.0", "commit": "..."}`, read once at
 * start-up. Public, as Hasura's is: it tells which build answers, nothing about the data.
 */
export function mountVersionRoute(app: Hono): void {
  const body = versionInfo();
  for (const p of ['/version', '/v1/version']) app.get(p, (c) => c.json(body));
}
