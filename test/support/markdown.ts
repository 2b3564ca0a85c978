import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A runnable block. `checksStatus`: its fence says ```` ```sh checks-status ````, for a block that
 * checks every answer's status itself (a script that also shows an error answer on purpose).
 */
export type CommandBlock = { page: string; line: number; language: 'sh' | 'js'; text: string; checksStatus: boolean };

/** Fenced code blocks of a page: `sh` and `js` blocks run; `bash`, `text`, `json` and others are only shown. */
export function commandBlocks(root: string, page: string): CommandBlock[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const blocks: CommandBlock[] = [];
  let open: { language: string; info: string; line: number; body: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^```(\S*)(.*)$/.exec(line);
    if (!open && fence) open = { language: fence[1] ?? '', info: fence[2] ?? '', line: index + 1, body: [] };
    else if (open && /^```\s*$/.test(line)) {
      if (open.language === 'sh' || open.language === 'js') {
        const checksStatus = open.info.split(/\s+/).includes('checks-status');
        blocks.push({ page, line: open.line, language: open.language, text: open.body.join('\n'), checksStatus });
      }
      open = undefined;
    } else if (open) open.body.push(line);
  });
  return blocks;
}

/** Every Markdown file of the README and docs/, as paths relative to the root. */
export function markdownFiles(root: string): string[] {
  const found: string[] = ['README.md'];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(relative(root, path));
    }
  };
  walk(join(root, 'docs'));
  return found.sort();
}

/**
 * The pages whose command blocks run, each on its own: the README, getting started, and every page
 * under docs/guides/ (found anew on each run, so a new guide is run as soon as it exists).
 */
export function runnablePages(root: string): string[] {
  const guides = markdownFiles(root).filter((page) => page.startsWith('docs/guides/'));
  return ['README.md', 'docs/getting-started.md', ...guides].filter((page) => commandBlocks(root, page).length > 0);
}

/** The page without fenced code blocks and inline code, where links and headings are not links and headings. */
export function proseOf(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '').replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const withoutFences = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    let anchor = base;
    for (let repeat = 1; anchors.has(anchor); repeat += 1) anchor = `${base}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every inline link and image target of a page's prose, with its line. */
export function linksOf(markdown: string): { target: string; line: number }[] {
  const prose = proseOf(markdown);
  const links: { target: string; line: number }[] = [];
  for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ target: match[1], line: prose.slice(0, match.index).split('\n').length });
  }
  return links;
}
