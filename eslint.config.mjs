// ESLint: typescript-eslint's recommended type-checked rules over the server, the console and the
// tests (each file checked with the tsconfig.json nearest to it); plain JavaScript (bench,
// examples, build scripts) gets the untyped recommended rules. Formatting is Prettier's job.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', 'coverage/', '.data/', 'console/static/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
  },
  { files: ['**/*.mjs', '**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
  { files: ['console/src/**/*.tsx', 'console/src/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
);
