import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files `npm run build` writes into dist/console (console/build.mjs), by URL name. */
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

export type Asset = { body: Buffer; contentType: string };

/**
 * Where the built console lives: dist/console under the package root, found by walking up from
 * this file (dist/src/console in production, src/console when the e2e tests run the sources).
 */
function assetsDirectory(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error('the console cannot find the package root');
    directory = parent;
  }
  return join(directory, 'dist', 'console');
}

/** The console's static files, read once each; only the names of TYPES are served. */
export class ConsoleAssets {
  private readonly directory = assetsDirectory();
  private readonly cache = new Map<string, Promise<Asset | undefined>>();

  get(name: string): Promise<Asset | undefined> {
    const contentType = TYPES[name];
    if (!contentType) return Promise.resolve(undefined);
    let asset = this.cache.get(name);
    if (!asset) {
      asset = readFile(join(this.directory, name)).then(
        (body) => ({ body, contentType }),
        () => undefined,
      );
      this.cache.set(name, asset);
    }
    return asset;
  }
}
