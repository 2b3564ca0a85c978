import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { headingAnchors, linksOf, markdownFiles } from '../support/markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** What is wrong with one relative link of `page`, or undefined when it resolves. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
  if (relative(ROOT, file).startsWith('..')) return 'points outside the repository';
  if (!existsSync(file)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return 'an anchor into something that is not a Markdown page';
  return headingAnchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)) ? undefined : `no heading with anchor #${anchor}`;
}

describe('links of the README and docs/', () => {
  const pages = markdownFiles(ROOT);

  it('finds the pages and their links', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/getting-started.md');
    expect(pages.flatMap((page) => linksOf(readFileSync(join(ROOT, page), 'utf8'))).length).toBeGreaterThan(100);
  });

  it('resolves every relative link and #anchor to a file and a heading', () => {
    const broken = pages.flatMap((page) =>
      linksOf(readFileSync(join(ROOT, page), 'utf8'))
        .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
        .map(({ target, line }) => ({ where: `${page}:${line}`, target, problem: brokenLink(page, target) }))
        .filter(({ problem }) => problem !== undefined),
    );
    expect(broken).toEqual([]);
  });

  it('keeps the README a front door: at most 200 lines, everything else one link away in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    expect(readme).toContain('](docs/README.md)');
  });

  it('links every page of docs/guides and docs/reference from the docs index', () => {
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    const linked = new Set(linksOf(index).map(({ target }) => target.split('#', 1)[0]));
    const pagesOf = (folder: string) => pages.filter((page) => page.startsWith(`docs/${folder}/`)).map((page) => relative(join(ROOT, 'docs'), join(ROOT, page)));
    const missing = [...pagesOf('guides'), ...pagesOf('reference')].filter((page) => !linked.has(page));
    expect(missing).toEqual([]);
  });

  it('cites no file outside the repository', () => {
    const outside = pages.filter((page) => /API\.md|\/work\/shared/.test(readFileSync(join(ROOT, page), 'utf8')));
    expect(outside).toEqual([]);
  });
});

describe('the heading anchors the link check computes', () => {
  it('follows GitHub: punctuation and code marks dropped, repeats numbered', () => {
    const anchors = headingAnchors(
      '# Clients that hold a key: `private_key_jwt` and DPoP\n## Every core: `WORKERS`\n## At scale\n## At scale\n```sh\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual(['clients-that-hold-a-key-private_key_jwt-and-dpop', 'every-core-workers', 'at-scale', 'at-scale-1']);
  });
});
