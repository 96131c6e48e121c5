// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/', 'dashboard/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // Workflow code is replayed: it must be deterministic and must not do I/O itself.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'http', 'https', 'net', 'crypto', 'child_process', 'os'],
              message: 'Workflows must not use Node built-ins; use an activity.',
            },
            {
              group: ['pg', 'express', 'pino', 'ai', '@ai-sdk/*', '**/store/**', '**/api/**'],
              message: 'Workflows must not do I/O; use an activity.',
            },
          ],
        },
      ],
    },
  },
);
