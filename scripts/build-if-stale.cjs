// Builds dist/ with tsc only when a source is newer than the last build, so that `npm start`,
// `npm run admin` and the others start in a moment on an unchanged tree and never run on stale code.
// Run by `npm ci` (the root package's `prepare`) and before each of those commands; it says when it builds.
// `--force` builds whatever the stamps say.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const SOURCES = ['engine', 'actions', 'demo', 'bench'];
const FILES = ['tsconfig.json', 'package-lock.json'];
const stampOf = (root) => path.join(root, 'dist', '.build-stamp');

/** The newest modification time of the TypeScript sources and the files that change what tsc emits. */
function newestSource(root) {
  let newest = { file: '', mtime: 0 };
  const see = (file) => {
    const mtime = fs.statSync(file).mtimeMs;
    if (mtime > newest.mtime) newest = { file, mtime };
  };
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) see(full);
    }
  };
  for (const dir of SOURCES) if (fs.existsSync(path.join(root, dir))) walk(path.join(root, dir));
  for (const file of FILES) if (fs.existsSync(path.join(root, file))) see(path.join(root, file));
  return newest;
}

/** Why a build of the tree at `root` is needed, or undefined when its dist/ is up to date. */
function staleness(root, force = false) {
  if (force) return 'asked with --force';
  if (!fs.existsSync(stampOf(root))) return 'no build yet';
  const built = fs.statSync(stampOf(root)).mtimeMs;
  const newest = newestSource(root);
  return newest.mtime > built ? `${path.relative(root, newest.file)} is newer than the build` : undefined;
}

function build(root, reason) {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  } catch {
    process.stderr.write(`build needed (${reason}) but TypeScript is not installed: run npm ci\n`);
    process.exit(1);
  }
  process.stderr.write(`building dist/ with tsc (${reason})...\n`);
  const began = Date.now();
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write('build failed: see the errors above\n');
    process.exit(r.status ?? 1);
  }
  // The stamp takes the time the build began: a source saved during the build is seen next time.
  const stamp = stampOf(root);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, `${new Date(began).toISOString()}\n`);
  fs.utimesSync(stamp, began / 1000, began / 1000);
  process.stderr.write(`built in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
}

module.exports = { staleness };

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const reason = staleness(root, process.argv.includes('--force'));
  if (reason) build(root, reason);
}
