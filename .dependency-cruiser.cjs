// The layering of STYLE.md, checked on every `npm test` (`npm run lint`):
//
//   domain/        pure rules: imports no layer, no I/O
//   db/            the only SQL (eslint.config.js checks that part); below app/ and http/
//   app/           use-cases: call db/, domain/, adapters; never http/
//   http/          routes call app/, never db/
//   waiting-room/  the queue and its stores: below app/, no SQL
//   live/          the seat change feed: not the workers' loop
//   payments/      adapters: below app/, http/, db/
//   packages/*     tools of their own (the payment simulator, the rehearsal): anything
//                  else uses a package's entry only, and a package uses no service internal
//   bench/, web/   the public API only
//
// No violation is tolerated: there is no baseline of known ones.

/** A package's public entry: its `exports` point at src/index.ts (types) or dist/index.js (built). */
const PACKAGE_ENTRY = '^packages/[^/]+/(src/index\\.ts|dist/index\\.js)$';
/** The service's public entry for tools, should it ever have one; today they use HTTP only. */
const SERVICE_ENTRY = '^src/index\\.ts$';
/** The tools while they still live in src/ (they move to packages/). */
const TOOLS_IN_SRC = '^src/(payments/simulator|rehearsal)/';
/** Node's modules that do I/O. */
const NODE_IO = '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|dns/promises|child_process|cluster|worker_threads|readline|process|os|v8|inspector)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds the rules: no database, HTTP, use-case, adapter, queue or feed, and no I/O.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: [
          '^src/(db|http|app|live|workers|waiting-room|payments|abuse|auth|tickets|cli|rehearsal)/',
          '^src/(service|main|metrics)\\.ts$',
          '^packages/',
          NODE_IO,
          '^node_modules/(pg|ioredis|fastify|@fastify|stripe|undici|@electric-sql|pino)/',
        ],
      },
    },
    {
      name: 'domain-reads-no-config',
      comment: "domain/ may name config's types, never load it (config.ts reads the environment).",
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/config\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'http-not-db',
      comment: 'A route parses, calls one use-case in app/ and answers: it never imports db/.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/db/' },
    },
    {
      name: 'app-not-http',
      comment: 'Use-cases serve every transport: app/ knows nothing of HTTP.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'db-not-above',
      comment: 'db/ is the bottom layer: it imports domain/ and nothing that calls it.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(http|app|live|workers|waiting-room|payments)/' },
    },
    {
      name: 'waiting-room-not-app-or-db',
      comment: 'The waiting room is called by app/ and keeps its state in its store (memory or Redis): it imports neither app/ nor db/.',
      severity: 'error',
      from: { path: '^src/waiting-room/' },
      to: { path: '^src/(app|db|http)/' },
    },
    {
      name: 'live-not-workers',
      comment: "The live feed is read by the HTTP instance, not run by the workers' supervisor.",
      severity: 'error',
      from: { path: '^src/live/' },
      to: { path: '^src/workers/' },
    },
    {
      name: 'payments-not-above',
      comment: 'Payment adapters are called by app/ and know nothing of HTTP, use-cases or the database.',
      severity: 'error',
      from: { path: '^src/payments/' },
      to: { path: '^src/(http|app|db|live|workers|waiting-room)/' },
    },
    {
      name: 'payment-adapter-values-from-the-root',
      comment: 'Only the composition root (service.ts) loads the payment adapter, and with it the Stripe SDK; the rest name its types and reach it through ctx.payments.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(service\\.ts$|payments/)' },
      to: { path: '^src/payments/provider\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-not-tools',
      comment: "The service uses a tool through its package's entry (e.g. @boxoffice/paysim), never its internals.",
      severity: 'error',
      from: { path: '^src/', pathNot: TOOLS_IN_SRC },
      to: { path: TOOLS_IN_SRC },
    },
    {
      name: 'tools-not-service-internals',
      comment: 'A tool (payment simulator, rehearsal) talks to the service over HTTP; it imports none of its internals.',
      severity: 'error',
      from: { path: [TOOLS_IN_SRC, '^packages/'] },
      to: { path: '^src/', pathNot: [TOOLS_IN_SRC, SERVICE_ENTRY] },
    },
    {
      name: 'package-entry-only',
      comment: "Outside a package, only its entry is imported (its package.json `exports`).",
      severity: 'error',
      from: { path: '^(src|bench|web)/' },
      to: { path: '^packages/', pathNot: PACKAGE_ENTRY },
    },
    {
      name: 'packages-entry-only-between-packages',
      comment: "One package uses another's entry only.",
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: ['^packages/$1/', PACKAGE_ENTRY] },
    },
    {
      name: 'src-not-bench-or-test',
      comment: 'The service does not import its benchmarks or tests.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'bench-public-api-only',
      comment: 'The benchmarks measure the service from outside: HTTP, and packages by their entry.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^src/', pathNot: SERVICE_ENTRY },
    },
    {
      name: 'web-public-api-only',
      comment: 'The web app talks to the public HTTP API only.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(src|bench|packages)/' },
    },
    {
      name: 'src-no-dev-dependencies',
      comment: 'What the service loads must be in `dependencies`: a devDependency is absent from a production install.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes the order modules load in matter, and layers meaningless. One closed by a type-only import loads nothing: allowed.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports is dead code, or an entry point to list here.',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '\\.d\\.ts$',
          'vite\\.config\\.ts$',
          // entry points: the service, each tool and each bench, the web app
          '^src/main\\.ts$',
          '^(src/payments/simulator|src/rehearsal|packages/[^/]+/src)/(main|index)\\.ts$',
          '^bench/[^/]+\\.ts$',
          '^web/src/main\\.tsx$',
        ],
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing: a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // (node_modules stays in: the rules look at which packages are imported; doNotFollow keeps them shallow.)
    exclude: { path: ['(^|/)dist/', '^packages/[^/]+/node_modules/'] },
    // Type-only imports are dependencies too: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.test.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      // `types` first: a workspace package resolves to its source (src/index.ts), built or not.
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
