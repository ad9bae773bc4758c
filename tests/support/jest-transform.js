// jest's transform of the TypeScript sources: transpiled without type checking (`npm run typecheck`
// type-checks with tsc), the outputs shared with the tests' child processes and kept between runs
// and checkouts (transpile.js).
const { cacheKey, transpiled } = require('./transpile');

module.exports = {
  getCacheKey: (source, filename) => cacheKey(source, filename),
  process: (source, filename) => ({ code: transpiled(source, filename) }),
};
