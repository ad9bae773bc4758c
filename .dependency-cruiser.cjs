// The house's import rules: arrows only point down. From the bottom up:
//   engine/core -> engine/compile (model -> schema -> plan -> sql -> execute) -> engine/serve -> engine/cli,
//   and engine/main.ts, the composition root, on top. actions/ reach the engine through actions/api.ts only;
//   demo/ is data for the composition root, the CLI, the benchmarks and the tests.
/** @type {import('dependency-cruiser').IConfiguration} */
const COMPILE_ORDER = ['model', 'schema', 'plan', 'sql', 'execute'];

const compileOrderRules = COMPILE_ORDER.map((stage, i) => ({
  name: `compile-${stage}-looks-down`,
  comment: `compile/${stage} imports only the compile stages below it (${COMPILE_ORDER.slice(0, i).join(', ') || 'none'})`,
  severity: 'error',
  from: { path: `^engine/compile/${stage}/` },
  to: { path: `^engine/compile/(${COMPILE_ORDER.slice(i + 1).join('|') || 'NONE'})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module imports itself back through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-the-floor',
      comment: 'engine/core imports nothing above it.',
      severity: 'error',
      from: { path: '^engine/core/' },
      to: { path: '^(engine/(compile|serve|cli)/|engine/main\\.ts|actions/|demo/|bench/|tests/)' },
    },
    {
      name: 'compile-never-serves',
      comment: 'The compiler (model, schema, plan, sql, execute) does not know about HTTP, sign-in or the CLI.',
      severity: 'error',
      from: { path: '^engine/compile/' },
      to: { path: '^(engine/(serve|cli)/|engine/main\\.ts)' },
    },
    ...compileOrderRules,
    {
      name: 'serve-below-the-root',
      comment: 'engine/serve never imports the CLI or the composition root.',
      severity: 'error',
      from: { path: '^engine/serve/' },
      to: { path: '^(engine/cli/|engine/main\\.ts)' },
    },
    {
      name: 'auth-under-the-routes',
      comment: 'serve/auth holds sessions and credentials; the routes (http, saml, web) use it, never the reverse.',
      severity: 'error',
      from: { path: '^engine/serve/auth/' },
      to: { path: '^engine/serve/(http|saml|web|oauth)/' },
    },
    {
      name: 'engine-without-actions-and-demo',
      comment: 'Only the composition root (engine/main.ts) and the CLI wire actions and demo data in.',
      severity: 'error',
      from: { path: '^engine/', pathNot: '^engine/(main\\.ts|cli/)' },
      to: { path: '^(actions|demo)/' },
    },
    {
      name: 'actions-through-their-api',
      comment: 'Action handlers reach the engine only through actions/api.ts.',
      severity: 'error',
      from: { path: '^actions/', pathNot: '^actions/api\\.ts$' },
      to: { path: '^engine/' },
    },
    {
      name: 'nothing-imports-tests-or-bench',
      severity: 'error',
      from: { pathNot: '^(tests|bench)/' },
      to: { path: '^(tests|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // Type-only imports are arrows too: a type defined upstairs still ties the floors together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
