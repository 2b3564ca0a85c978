// Bundles the console (TypeScript + Preact) into dist/console; type checking is tsc's job
// (`tsc -p console/tsconfig.json`, run first by `npm run build`).
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');
await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
for (const name of ['index.html', 'app.css', 'icon.svg']) await copyFile(join(here, 'static', name), join(out, name));
