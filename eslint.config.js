import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';
import astro from 'eslint-plugin-astro';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default defineConfig(
  {
    ignores: [
      'dist/',
      '.astro/',
      '.netlify/',
      'node_modules/',
      'test-results/',
      'playwright-report/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...astro.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // The layers (docs/architecture.md), kept by the linter on the files the imports resolve to,
  // type imports included. Import cycles are found by dependency-cruiser (.dependency-cruiser.js,
  // the second half of `npm run lint`), which counts type imports too.
  {
    files: ['src/**/*.{ts,tsx,astro}', 'functions/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.astro', '.d.ts'] }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: [
                './src/islands',
                './src/pages',
                './src/components',
                './src/layouts',
                './src/lib',
              ],
              from: ['./src/server', './functions'],
              // The build reads its settings (BUILD_NOW) through the one list of them, which
              // imports nothing of the project; a page rendered on demand asks the server through
              // src/server/pages/ (only pages: never an island, component or layout).
              except: ['./platform/settings.ts', './pages'],
              message:
                'Pages and islands never import server code: what both sides need lives in src/shared/.',
            },
            {
              target: ['./src/islands', './src/components', './src/layouts', './src/lib'],
              from: './src/server/pages',
              message:
                'Only a page rendered on demand asks the server (src/server/pages/); components take what they show as props.',
            },
            {
              target: './src/shared',
              from: './src',
              except: ['./shared'],
              message:
                'src/shared/ runs in the browser and in the functions: it imports only src/shared/.',
            },
            {
              target: './src/server/platform',
              from: './src/server',
              except: ['./platform'],
              message:
                'platform/ is the lowest layer: it never imports request/, a feature (contact, waiver, auth, records) or the mail kinds; pass what it needs in.',
            },
            {
              target: './src/server/mail',
              from: './src/server',
              except: ['./mail', './platform'],
              message:
                'mail/ is the look of every mail: features hand it their words; it imports only platform/.',
            },
            {
              target: './src/server/request',
              from: './src/server',
              except: ['./request', './platform'],
              message:
                'request/ serves every feature and imports none; a form hands the pipeline what it needs.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts', 'src/islands/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'This code runs in the browser: no Node built-ins.' },
          ],
        },
      ],
    },
  },
  // The islands: hooks used as React requires, and markup people can use with any input.
  {
    files: ['src/islands/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended, jsxA11y.configs.recommended],
  },
  // The server code holds health data and sends mail: the rules that need types, so a forgotten
  // await or an `any` that leaks is an error, not a review note.
  {
    files: ['src/server/**/*.{ts,tsx}', 'functions/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true } },
  },
);
