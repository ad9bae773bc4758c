// Lets a child `node` process run the TypeScript sources directly, transpiled file by file as the
// tests are (`node -r ./tests/support/register-ts.js engine/main.ts`), so tests need no build step.
// The outputs are kept between processes and runs (transpile.js).
const fs = require('node:fs');
const { transpiled } = require('./transpile');

require.extensions['.ts'] = function compileTs(module, filename) {
  module._compile(transpiled(fs.readFileSync(filename, 'utf8'), filename), filename);
};
