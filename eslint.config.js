// Lint rules (run by `npm run lint` and CI with zero warnings). Formatting is Prettier's.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import tseslint from 'typescript-eslint';

/** Files that speak HTTP: routes, the app, and the HTTP plumbing. */
const HTTP_FILES = [
  'src/app.ts',
  'src/**/routes.ts',
  'src/**/routes.tsx',
  'src/**/*Routes.tsx',
  'src/**/adminRoutes.ts',
  'src/platform/http.ts',
  'src/platform/uploads.ts',
  'src/platform/adminAuth.ts',
  'src/accounts/auth.ts',
  'src/provider/apipix/notificationRoutes.ts',
];
/** Files that may hold SQL: repositories and the database plumbing. */
const SQL_FILES = ['src/**/repository.ts', 'src/**/*Repository.ts', 'src/platform/database.ts', 'src/platform/precompiled.ts', 'src/platform/postgresPool.ts'];
/** Query-building calls of Kysely: only repositories build queries. */
const QUERY_BUILDING = 'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|executeQuery|replaceInto|mergeInto)$/]';
const SQL_ONLY_IN_REPOSITORIES = 'SQL lives in repository modules (repository.ts, *Repository.ts).';
const NO_HTTP = {
  group: ['fastify', 'fastify-*', '@fastify/*'],
  allowTypeImports: true,
  message: 'HTTP lives in routes (routes.ts, adminRoutes.ts) and src/platform/http.ts.',
};
const NO_SQL = { group: ['kysely'], message: SQL_ONLY_IN_REPOSITORIES };

/**
 * The layers of src/, from the ground up (docs/architecture.md draws them). A module may import
 * its own folder and any folder of a lower layer, never a folder of its own layer or above. The
 * composition root (the last layer) wires everything and nothing imports it.
 */
const LAYERS = [
  ['config', 'errors'],
  ['messages'],
  ['pix'],
  ['platform'],
  ['provider', 'accounts', 'alerts', 'operations', 'fraudmarks', 'docs'],
  ['webhooks', 'ledger', 'users', 'routing', 'treasury'],
  ['transactions', 'sends', 'operators'],
  ['charges', 'recipients', 'refunds', 'audit', 'history', 'payouts'],
  ['withdrawals', 'infractions', 'reconciliation', 'staticqr', 'recurrences', 'holds'],
  ['inbound', 'sandbox'],
  ['pages'],
  ['dashboard', 'backoffice'],
];
const ROOT = ['services', 'app', 'cli', 'worker'];
// The entries of src/ as they are: a folder is a module, and so is a top-level `.ts` file.
const entries = readdirSync(new URL('src', import.meta.url), { withFileTypes: true }).filter((entry) => !entry.name.startsWith('.'));
const pathOfEntry = new Map(entries.map((entry) => [entry.name.replace(/\.ts$/, ''), `src/${entry.name}`]));
const pathOf = (name) => pathOfEntry.get(name) ?? `src/${name}`;
// Every folder and file of src/ has its place on the map (a new one is placed, not forgotten), and every name on it exists.
const placed = new Set([...LAYERS.flat(), ...ROOT, 'migrations']);
const unplaced = [...pathOfEntry.keys()].filter((name) => !placed.has(name));
if (unplaced.length > 0) throw new Error(`src/${unplaced.join(', src/')}: not in eslint.config.js LAYERS (docs/architecture.md)`);
const missing = [...placed].filter((name) => !pathOfEntry.has(name));
if (missing.length > 0) throw new Error(`${missing.join(', ')}: in eslint.config.js LAYERS but not in src/`);
/** For each module of a layer: it may not import the other modules of its layer, those above, nor the composition root. */
const LAYER_ZONES = LAYERS.flatMap((layer, index) =>
  layer.map((name) => {
    const above = [
      ...LAYERS.slice(index)
        .flat()
        .filter((other) => other !== name),
      ...ROOT,
    ];
    return {
      target: pathOf(name),
      from: above.map(pathOf),
      message: `${name} is in layer ${index + 1} of eslint.config.js LAYERS: it imports only its own folder and lower layers (docs/architecture.md).`,
    };
  }),
);

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'coverage/', 'data/', 'bench/results/', 'bench/profiles/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // Table rows are interfaces (Kysely's convention), the rest are types: both are fine.
      '@typescript-eslint/consistent-type-definitions': 'off',
      // A cast says "trust me": each one carries an eslint-disable comment that says why.
      '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Fastify plugins are async functions by convention, with or without an await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  // Structure (docs/architecture.md): no import circles, and every import runs down the layers.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-duplicates': 'error',
      // Types come in by import declarations, where the layer zones see them (not `import('…').T` in a type).
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: true, fixStyle: 'inline-type-imports' }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...LAYER_ZONES,
            // Page modules are leaves: only their site's routes.tsx imports them, and they import neither it nor each other.
            ...['dashboard', 'backoffice'].map((site) => ({
              target: `src/${site}/!(routes).{ts,tsx}`,
              from: `src/${site}/{routes,*Routes}.tsx`,
              message: `src/${site}/routes.tsx registers the page modules and hands them what they share (src/${site}/kit.ts); none imports it or another page module.`,
            })),
          ],
        },
      ],
    },
  },
  // Layering (README: Layout): HTTP only at the edge, SQL only in repositories, the provider behind src/provider/.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: [...HTTP_FILES, ...SQL_FILES],
    rules: {
      'no-restricted-syntax': ['error', { selector: QUERY_BUILDING, message: SQL_ONLY_IN_REPOSITORIES }],
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_HTTP, { ...NO_SQL, allowTypeImports: true }] }],
    },
  },
  {
    files: HTTP_FILES,
    rules: {
      'no-restricted-syntax': ['error', { selector: QUERY_BUILDING, message: SQL_ONLY_IN_REPOSITORIES }],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/repository.js', '**/*Repository.js', '**/platform/database.js'],
              message: 'Routes call services, never a repository or the database handle.',
            },
            NO_SQL,
            { group: ['**/provider/**'], message: 'Only src/provider/ and src/services.ts know the provider.' },
          ],
        },
      ],
    },
  },
  {
    files: SQL_FILES,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_HTTP] }] },
  },
  {
    // Response bodies are typed in tests (test/helpers/contract.ts and admin.ts); what stays `any` there
    // is vitest's asymmetric matchers (`expect.any`), JSON.parse of payloads and files, and fixtures
    // shaped freely: the unsafe-any family and the cast rule are for the product code.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/consistent-type-assertions': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  prettier,
);
