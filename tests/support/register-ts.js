// Lets a child `node` process run the TypeScript sources directly, transpiled file by file as the
// tests are (`node -r ./tests/support/register-ts.js engine/main.ts`), so tests need no build step.
//
// Transpiling every file took a child process about 2.5 s of CPU at each start, and the tests start
// many. The output is kept in the system's temporary folder under a name made of everything it
// depends on: the source text, the file's path (the inline source map names it), the compiler options
// and TypeScript's version. A changed source gets another name, so a stale output is never read.
// Each output is written aside and renamed into place: processes that start at once never read a
// half-written file. TypeScript itself (seconds to load) is loaded only when an output is missing.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const compilerOptions = {
  module: 'commonjs',
  target: 'es2022',
  esModuleInterop: true,
  inlineSourceMap: true,
};

const typescriptVersion = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve('typescript')), '..', 'package.json'), 'utf8'),
).version;
const cacheDir = path.join(os.tmpdir(), 'engine-register-ts-cache');
const optionsKey = JSON.stringify({ compilerOptions, typescriptVersion, format: 1 });

let ts;
function transpile(source, filename) {
  ts ??= require('typescript');
  return ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
}

function cached(source, filename) {
  const key = crypto.createHash('sha256').update(optionsKey).update('\0').update(filename).update('\0').update(source);
  const file = path.join(cacheDir, `${key.digest('hex')}.js`);
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

require.extensions['.ts'] = function compileTs(module, filename) {
  module._compile(cached(fs.readFileSync(filename, 'utf8'), filename), filename);
};
