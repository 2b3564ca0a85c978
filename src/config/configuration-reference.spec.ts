import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configurationReference, undocumentedVariables } from './configuration-reference.js';
import { loadConfig } from './env.validation.js';

const PAGE = resolve(import.meta.dirname, '../../docs/reference/configuration.md');

describe('docs/reference/configuration.md', () => {
  it('is exactly what npm run docs:config writes from the validated configuration class', () => {
    // On failure: run `npm run docs:config` and commit the page.
    expect(readFileSync(PAGE, 'utf8')).toBe(configurationReference());
  });

  it('describes every validated variable, and every variable loadConfig reads is validated', () => {
    // On failure: add @Describe({ meaning, default }) to the variable in env.validation.ts (and the name to VARIABLES).
    expect(undocumentedVariables()).toEqual([]);
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
