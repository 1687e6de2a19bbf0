// Lint rules (run by `npm run lint` and CI with zero warnings). Formatting is Prettier's.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Files that speak HTTP: routes, the app, and the HTTP plumbing. */
const HTTP_FILES = [
  'src/app.ts',
  'src/**/routes.ts',
  'src/**/routes.tsx',
  'src/**/*Routes.tsx',
  'src/**/adminRoutes.ts',
  'src/platform/http.ts',
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

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', 'bench/results/', 'bench/profiles/'] },
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
    // Tests read JSON bodies (test/helpers/gateway.ts `Reply`, typed `any` on purpose) and shape
    // fixtures freely: the unsafe-any family and the cast rule are for the product code.
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
