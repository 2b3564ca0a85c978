import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');
type Lock = { packages: Record<string, { engines?: { node?: string } }> };

describe('the Node.js version the project promises', () => {
  const promised = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const lock = JSON.parse(read('package-lock.json')) as Lock;

  it('is the same in package.json and the lock file, so npm install on a fresh clone changes nothing', () => {
    expect(lock.packages['']?.engines?.node).toBe(promised);
  });

  it('is what the README, getting started, CONTRIBUTING and SECURITY say', () => {
    for (const page of ['README.md', 'docs/getting-started.md', 'CONTRIBUTING.md', 'SECURITY.md', 'docs/design-decisions.md']) {
      expect({ page, says: read(page).includes(`\`${promised}\``) }).toEqual({ page, says: true });
    }
  });

  it('excludes the majors some dependency refuses (20 by file-type, 23 by jest)', () => {
    expect(lock.packages['node_modules/file-type']?.engines?.node).toBe('>=22');
    expect(promised).not.toMatch(/\b20\b|\b23\b/);
  });

  it('is the major the Docker image is built on', () => {
    const images = [...read('Dockerfile').matchAll(/^FROM node:(\d+)/gm)].map((match) => Number(match[1]));
    expect(images.length).toBeGreaterThan(0);
    for (const major of images) expect(promised).toMatch(new RegExp(`\\^${major}\\.|>=${major}\\.`));
  });
});
