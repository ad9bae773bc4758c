import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Building is a step of its own: `npm ci` builds (the root package's `prepare`), and `npm start`,
 * `npm run admin`, `seed`, `metadata` and `bench` run scripts/build-if-stale.cjs first, which runs tsc
 * only when a source is newer than the last build, and says so. Shown on a small tree of the test's
 * own (the script copied into it), without TypeScript installed there: a needed build is then told and
 * refused, an unneeded one is silent.
 */
const ROOT = path.join(__dirname, '..');
const SCRIPT = path.join(ROOT, 'scripts', 'build-if-stale.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { staleness } = require(SCRIPT) as { staleness: (root: string, force?: boolean) => string | undefined };

describe('the build step', () => {
  let tree: string;
  const stamp = () => path.join(tree, 'dist', '.build-stamp');
  const setTime = (file: string, secondsAgo: number) => {
    const t = Date.now() / 1000 - secondsAgo;
    fs.utimesSync(file, t, t);
  };
  const run = () =>
    spawnSync(process.execPath, [path.join(tree, 'scripts', 'build-if-stale.cjs')], { encoding: 'utf8' });

  beforeAll(() => {
    tree = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-build-'));
    fs.mkdirSync(path.join(tree, 'engine', 'core'), { recursive: true });
    fs.mkdirSync(path.join(tree, 'scripts'));
    fs.copyFileSync(SCRIPT, path.join(tree, 'scripts', 'build-if-stale.cjs'));
    fs.writeFileSync(path.join(tree, 'engine', 'core', 'a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(tree, 'tsconfig.json'), '{}\n');
    setTime(path.join(tree, 'engine', 'core', 'a.ts'), 60);
    setTime(path.join(tree, 'tsconfig.json'), 60);
  });
  afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));

  test('no build yet: one is needed, and without TypeScript the script says so and fails', () => {
    expect(staleness(tree)).toBe('no build yet');
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('build needed (no build yet) but TypeScript is not installed: run npm ci');
  });

  test('a build newer than every source: nothing to do, silently and at once', () => {
    fs.mkdirSync(path.join(tree, 'dist'), { recursive: true });
    fs.writeFileSync(stamp(), 'built\n');
    setTime(stamp(), 30);
    expect(staleness(tree)).toBeUndefined();
    const r = run();
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(staleness(tree, true)).toBe('asked with --force');
  });

  test('a source saved after the build: the build is needed, naming the file', () => {
    setTime(path.join(tree, 'engine', 'core', 'a.ts'), 0);
    expect(staleness(tree)).toBe(`${path.join('engine', 'core', 'a.ts')} is newer than the build`);
    expect(run().stderr).toContain('is newer than the build');
  });

  test('the commands build only when needed, never tsc on every start, and run in the same process', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepare).toBe('node scripts/build-if-stale.cjs');
    for (const name of ['start', 'admin', 'seed', 'bench', 'metadata']) {
      // Node's own flags may come first (the engine's heap bounds, pretenuring and scavenger, README "Memory").
      expect(pkg.scripts[name]).toMatch(/^node (--[\w-]+(=\S+)? )*scripts\/build-if-stale\.cjs --run dist\/\S+\.js$/);
      expect(pkg.scripts[name]).not.toMatch(/tsc|npm run build|&&/);
    }
  });

  test('--run FILE ARGS: the built file runs as the main module, with its own arguments and exit code', () => {
    fs.writeFileSync(stamp(), 'built\n');
    setTime(stamp(), 0);
    fs.writeFileSync(
      path.join(tree, 'dist', 'main.js'),
      'console.log(JSON.stringify({ main: require.main === module, args: process.argv.slice(2) }));\n' +
        'process.exitCode = 3;\n',
    );
    const r = spawnSync(
      process.execPath,
      [path.join(tree, 'scripts', 'build-if-stale.cjs'), '--run', 'dist/main.js', 'list-users', '--force'],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ main: true, args: ['list-users', '--force'] });
    expect(r.status).toBe(3);
  });
});
