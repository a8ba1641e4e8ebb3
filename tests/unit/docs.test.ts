/**
 * The docs a person reads: every page under docs/ is under 20 KB, and every relative link and
 * #anchor in README.md, bench/README.md and docs/*.md leads to a file and a heading that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { PROJECT_ROOT } from '../fixtures/project-copy';

const DOCS = join(PROJECT_ROOT, 'docs');
const pages = [
  join(PROJECT_ROOT, 'README.md'),
  join(PROJECT_ROOT, 'bench/README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
];

/** A page's text without its fenced code blocks (a `#` there is no heading, a `[x](y)` no link). */
const prose = (path: string) =>
  readFileSync(path, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

/** The anchors of a page's headings, as GitHub makes them. */
function anchors(path: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, title] of prose(path).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = title
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

const readSize = (path: string) => Buffer.byteLength(readFileSync(path, 'utf8'));

test('every page under docs/ is under 20 KB', () => {
  const large = pages
    .filter((path) => path.startsWith(DOCS))
    .map((path) => ({ page: relative(PROJECT_ROOT, path), bytes: readSize(path) }))
    .filter(({ bytes }) => bytes >= 20_000);
  expect(large).toEqual([]);
});

test('every relative link and #anchor in the READMEs and docs/ resolves', () => {
  const broken: string[] = [];
  for (const path of pages) {
    const text = prose(path).replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [file, anchor] = target.split('#');
      const linked = file ? join(dirname(path), decodeURIComponent(file)) : path;
      const where = `${relative(PROJECT_ROOT, path)}: ${target}`;
      if (!existsSync(linked)) broken.push(`${where} (no such file)`);
      else if (anchor && !(statSync(linked).isFile() && anchors(linked).has(anchor)))
        broken.push(`${where} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});
