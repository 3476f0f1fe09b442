// A small rule set that finds bugs, not style: promises nobody awaits or that land
// where a callback's result is ignored, awaiting what is not a promise, dead
// variables, and SQL outside src/db/. `npm run lint` runs it with the layering check
// (.dependency-cruiser.cjs).
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The start of an SQL statement in a string or template literal.
const SQL = String.raw`/^\s*(select\s[\s\S]*\bfrom\s|select\s+([\d(*]|\w+\s*\()|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s|truncate\s|with\s+\w+\s+as\s*\(|lock\s+table\s|(alter|create|drop)\s+(table|index|function)\s)/i`;
const SQL_OUTSIDE_DB = 'SQL lives in src/db/ only (one module per aggregate): call a named statement there.';

export default defineConfig([
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**'] },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parser: tseslint.parser, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {
        args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_',
        destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true,
      }],
      // An import used only as a type is erased: saying so keeps a type-only
      // dependency from loading a module (and what it loads) at run time.
      // (`import('x').T` in a type loads nothing: allowed.)
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // Each deliberate `any` (a JSON body a test checks by value) says so with a disable comment.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Type-aware rules: what a promise is needs the types.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts', 'packages/*/src/**/*.ts', 'packages/*/test/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { project: './web/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // An async event handler (onClick={async () => …}) is Preact's idiom: the DOM ignores its result.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: `Literal[value=${SQL}]`, message: SQL_OUTSIDE_DB },
        { selector: `TemplateElement[value.raw=${SQL}]`, message: SQL_OUTSIDE_DB },
      ],
    },
  },
]);
