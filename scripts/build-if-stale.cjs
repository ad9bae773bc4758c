// Builds dist/ only when a source is newer than the last build, so that `npm start`, `npm run admin`
// and the others start in a moment on an unchanged tree and never run on stale code. Run by `npm ci`
// (the root package's `prepare`) and before each of those commands; it says when it builds. `--force`
// builds whatever the stamps say. `--run FILE [ARGS...]` then runs FILE (a built entry point) in this same
// process as the main module, with ARGS as its arguments: `npm start` and the others pay for one
// Node.js process instead of two.
//
// The build transpiles each file on its own (TypeScript's transpileModule, as the tests' transform
// does): a few seconds, where tsc's type-checking build took 15 to 40. Types are checked by
// `npm run typecheck` (CI runs it), not on a user's first start.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isMainThread, parentPort, Worker, workerData } = require('node:worker_threads');

const SOURCES = ['engine', 'actions', 'demo', 'bench'];
/** Built too, for the benches, which use the tests' helpers (an own cluster, the example requests). */
const ALSO_BUILT = ['tests/support'];
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

/** Every .ts file under the folders of `dirs` that exist, as paths relative to `root`. */
function sourceFiles(root, dirs) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const dir of dirs) if (fs.existsSync(path.join(root, dir))) walk(dir);
  return out;
}

/** tsconfig.json's compiler options, as transpileModule takes them. */
function compilerOptions(ts, root) {
  const file = path.join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.convertCompilerOptionsFromJson(config.compilerOptions, root).options;
}

/** Transpiles `files` (relative to `root`) into dist/; throws on the first that does not parse. */
function transpileFiles(root, files) {
  const ts = require(require.resolve('typescript', { paths: [root] }));
  const options = compilerOptions(ts, root);
  for (const rel of files) {
    const source = fs.readFileSync(path.join(root, rel), 'utf8');
    const out = ts.transpileModule(source, {
      compilerOptions: options,
      fileName: path.join(root, rel),
      reportDiagnostics: true,
    });
    const bad = out.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (bad.length) throw new Error(`${rel}: ${ts.flattenDiagnosticMessageText(bad[0].messageText, '\n')}`);
    const target = path.join(root, 'dist', rel.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, out.outputText);
    if (out.sourceMapText) fs.writeFileSync(`${target}.map`, out.sourceMapText);
  }
}

/**
 * Transpiles the sources into a fresh dist/ (no file of a deleted source stays), the files shared out
 * over one worker thread per core: the emitter is most of the time, and each file is independent.
 */
async function transpileAll(root) {
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  const files = sourceFiles(root, [...SOURCES, ...ALSO_BUILT]);
  const n = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 4));
  const shares = Array.from({ length: n }, (_, i) => files.filter((_, j) => j % n === i));
  await Promise.all(
    shares.map(
      (share) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(__filename, { workerData: { root, files: share } });
          worker.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve()));
          worker.once('error', reject);
        }),
    ),
  );
}

async function build(root, reason) {
  try {
    require.resolve('typescript', { paths: [root] });
  } catch {
    process.stderr.write(`build needed (${reason}) but TypeScript is not installed: run npm ci\n`);
    process.exit(1);
  }
  process.stderr.write(`building dist/ (${reason})...\n`);
  const began = Date.now();
  try {
    await transpileAll(root);
  } catch (err) {
    process.stderr.write(`build failed: ${err.message}\n`);
    process.exit(1);
  }
  // The stamp takes the time the build began: a source saved during the build is seen next time.
  const stamp = stampOf(root);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, `${new Date(began).toISOString()}\n`);
  fs.utimesSync(stamp, began / 1000, began / 1000);
  process.stderr.write(`built in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
}

/**
 * Runs `file` as this process's main module (`require.main` is its module, `process.argv` its own),
 * as `node file ...args` would. On Node.js 22.1 and later the compiled code of the modules it loads is
 * kept between starts (module.enableCompileCache, in dist/.compile-cache, which each build empties); Node.js
 * 20 has no such cache and compiles them each time.
 */
function runMain(root, file, args) {
  const Module = require('node:module');
  Module.enableCompileCache?.(path.join(root, 'dist', '.compile-cache'));
  process.argv = [process.argv[0], path.resolve(root, file), ...args];
  Module.runMain();
}

module.exports = { staleness };

if (!isMainThread) {
  // A worker of transpileAll: its share of the files, then a message saying how it went.
  try {
    transpileFiles(workerData.root, workerData.files);
    parentPort.postMessage({});
  } catch (err) {
    parentPort.postMessage({ error: err.message });
  }
} else if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const at = process.argv.indexOf('--run');
  const own = at < 0 ? process.argv.slice(2) : process.argv.slice(2, at);
  const reason = staleness(root, own.includes('--force'));
  const built = reason ? build(root, reason) : Promise.resolve();
  if (at >= 0) void built.then(() => runMain(root, process.argv[at + 1], process.argv.slice(at + 2)));
}
