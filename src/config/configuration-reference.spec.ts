import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configurationReference } from './configuration-reference.js';
import type { Variable } from './variable.js';
import { VARIABLES } from './variables.js';
import { loadConfig } from './load-config.js';

const PAGE = resolve(import.meta.dirname, '../../docs/reference/configuration.md');

describe('docs/reference/configuration.md', () => {
  it('is exactly what npm run docs:config writes from the declarations of src/config/variables.ts', () => {
    // On failure: run `npm run docs:config` and commit the page.
    expect(readFileSync(PAGE, 'utf8')).toBe(configurationReference());
  });

  it('gives every declared variable a meaning, its accepted values and its default', () => {
    const incomplete = (Object.entries(VARIABLES) as [string, Variable<unknown>][])
      .filter(([, variable]) => !variable.meaning.trim() || !variable.accepted.trim() || !variable.defaultText.trim())
      .map(([name]) => name);
    expect(incomplete).toEqual([]);
  });

  it('lists each variable once, with the accepted values its validation message states', () => {
    const page = configurationReference();
    expect(page.match(/^\| `WORKERS` \|/gm)).toHaveLength(1);
    expect(page).toContain('| auto or a whole number from 1 to 256 | `1` |');
    expect(page).toContain('| `TOKEN_SIGNING_ALG` |');
  });

  it('documents a default that loadConfig really applies', () => {
    const config = loadConfig({});
    const page = configurationReference();
    expect(page).toContain(`| \`${config.port}\` |`);
    expect(page).toContain(`| \`${config.accessTokenTtl}\` |`);
    expect(page).toContain(`| \`${config.tokenSigningAlg}\` |`);
  });
});
