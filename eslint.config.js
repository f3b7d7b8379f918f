// ESLint flat config: typescript-eslint's recommended rules, type-aware, plus the two rules the
// project's code style rests on: no `!` (a non-null assertion means the type is wrong) and type
// assertions only as `x as T`, never on object literals (`{ … } as T` hides a missing field).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'test/golden/**',
      'test/golden-kopf/**',
      'test/fixtures/**',
      'examples/*/generated/**',
      'templates/init/**',
      'templates/init-kopf/**',
      'out/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-assertions': [
        'error',
        { assertionStyle: 'as', objectLiteralTypeAssertions: 'never' },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A closure that reads a variable assigned after it is made (a server's handler, a fake's callback) needs `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // In a test a wrong `!` throws and fails the test, which is what an assertion would do; the rule
    // guards product code, where a `!` means a type that does not say what the code knows.
    // Test doubles are partial objects by design (`{} as KubeClient`), answers of the API server are read back
    // as loose JSON, and terminal tests match escape sequences.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-assertions': [
        'error',
        { assertionStyle: 'as', objectLiteralTypeAssertions: 'allow' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    // Stub files import their handler's error classes unused on purpose: the stub shows the user what to throw.
    files: ['templates/**/*.ts', 'examples/*/handlers/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
);
