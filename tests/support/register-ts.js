// Lets a child `node` process run the TypeScript sources directly, transpiled file by file as the
// tests are (`node -r ./tests/support/register-ts.js engine/main.ts`), so tests need no build step.
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  inlineSourceMap: true,
};

require.extensions['.ts'] = function compileTs(module, filename) {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
