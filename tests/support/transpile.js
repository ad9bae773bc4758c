// TypeScript to CommonJS, file by file, as the tests run the sources (no build step): for jest
// (jest-transform.js) and for the child `node` processes the tests start (register-ts.js).
//
// Transpiling is most of a cold start: every jest worker and every child process transpiled each
// file it loaded, TypeScript itself taking a second to load, and a CI run on a clean clone paid it
// all again (jest's own cache is kept per checkout folder). So each output is kept in the system's
// temporary folder under a name made of what it depends on: the source text, the file's path within
// the project, the compiler options and TypeScript's version. The absolute path is left out: the
// output does not name it (the inline source map names the file's base name only), so every
// checkout of the same sources shares the outputs. A changed source gets another name: a stale
// output is never read. Each output is written aside and renamed into place, so processes that
// start at once never read a half-written file. TypeScript is loaded only when an output is missing,
// and jest's global set-up fills what is missing once (fillCache) before the workers start.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

const compilerOptions = {
  module: 'commonjs',
  target: 'es2022',
  esModuleInterop: true,
  isolatedModules: true,
  inlineSourceMap: true,
};

const typescriptVersion = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve('typescript')), '..', 'package.json'), 'utf8'),
).version;
const cacheDir = path.join(os.tmpdir(), 'engine-transpile-cache');
const optionsKey = JSON.stringify({ compilerOptions, typescriptVersion, format: 2 });

let ts;
function transpile(source, filename) {
  ts ??= require('typescript');
  return ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
}

/** The name of a file's output: what it is made of, the project folder left out. */
function cacheKey(source, filename) {
  const within = path.relative(ROOT, filename).split(path.sep).join('/');
  return crypto
    .createHash('sha256')
    .update(optionsKey)
    .update('\0')
    .update(within)
    .update('\0')
    .update(source)
    .digest('hex');
}

/** The CommonJS of a TypeScript source: kept, or transpiled now and kept. */
function transpiled(source, filename) {
  const file = path.join(cacheDir, `${cacheKey(source, filename)}.js`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    // Not kept yet (or the folder is gone): made below.
  }
  const output = transpile(source, filename);
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.partial`;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, file);
  } catch {
    // A folder that cannot be written only costs the next process the transpiling again.
  }
  return output;
}

/** The TypeScript sources of the project's folders that tests load (declaration files left out). */
function* sources(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(file);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield file;
  }
}

/**
 * Makes the outputs that are missing, once, before jest's workers and the tests' child processes
 * start: otherwise each of them, starting at the same time, transpiled the same files.
 */
function fillCache() {
  for (const dir of ['engine', 'actions', 'demo', 'bench', 'tests']) {
    const from = path.join(ROOT, dir);
    if (!fs.existsSync(from)) continue;
    for (const file of sources(from)) transpiled(fs.readFileSync(file, 'utf8'), file);
  }
}

module.exports = { cacheKey, transpiled, fillCache };
