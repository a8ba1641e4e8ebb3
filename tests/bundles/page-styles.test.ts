/**
 * Each built page carries only the styles it can use (src/integrations/page-styles.ts): nothing
 * a page shows may lose its look. Checked against the full sheet (/styles/site.css) with a
 * different reader than the build's: Tailwind's own scanner over the islands' sources finds
 * what React may draw after the page loads (an error, a notice, the sent state).
 */
import { readFile, readdir } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Scanner } from '@tailwindcss/oxide';
import postcss, { type AtRule, type Rule } from 'postcss';
import { beforeAll, describe, expect, test } from 'vitest';
import { pruneSheet, requiredClasses } from '../../src/integrations/page-styles';
import { decodeEntities } from '../../src/integrations/security-headers';
import { ensureBuilt } from '../server/harness';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');

/** Every rule of a sheet as one line: its at-rules, its selector and its declarations. */
function rules(css: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  postcss.parse(css).walkRules((rule: Rule) => {
    const context: string[] = [];
    for (let node = rule.parent; node && node.type !== 'root'; node = node.parent) {
      context.unshift(
        node.type === 'atrule'
          ? `@${(node as AtRule).name} ${(node as AtRule).params}`
          : (node as Rule).selector,
      );
    }
    const key = [...context, rule.selector, rule.nodes.map(String).join(';')].join(' » ');
    found.set(key, rule.selectors);
  });
  return found;
}

/**
 * Class names Tailwind's scanner finds in source files (relative to the root), their comments
 * left out: a word in a comment is never drawn.
 */
function candidates(files: string[]): Set<string> {
  const scanner = new Scanner({ sources: [] });
  return new Set(
    scanner.scanFiles(
      files.map((file) => ({
        content: readFileSync(join(ROOT, file), 'utf8').replace(
          /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm,
          '',
        ),
        extension: file.split('.').pop()!,
      })),
    ),
  );
}

const SITE_SHEET = /<style>(\/\*! tailwindcss[\s\S]*?)<\/style>/;

let full: Map<string, string[]>;
let pages: { name: string; html: string; css: string }[];

beforeAll(async () => {
  ensureBuilt();
  full = rules(await readFile(join(DIST, 'styles/site.css'), 'utf8'));
  const files = (await readdir(DIST, { recursive: true })).filter(
    (file) => file.endsWith('.html') && !file.startsWith('records'),
  );
  pages = await Promise.all(
    files.map(async (name) => {
      const html = await readFile(join(DIST, name), 'utf8');
      const css = SITE_SHEET.exec(html)?.[1];
      if (css === undefined) throw new Error(`${name} has no inline site stylesheet`);
      return { name, html, css };
    }),
  );
});

/** The rules of the full sheet that classes `present` let apply, and that `css` has lost. */
function lost(css: string, present: Set<string>): string[] {
  const kept = rules(css);
  return [...full]
    .filter(([key, selectors]) => {
      if (kept.has(key)) return false;
      return selectors.some((selector) =>
        requiredClasses(selector).every((name) => present.has(name)),
      );
    })
    .map(([key]) => key);
}

describe('each page carries the styles it uses and no more', () => {
  test('every page carries less than the full sheet, and no rule the full sheet lacks', async () => {
    const sheet = await readFile(join(DIST, 'styles/site.css'), 'utf8');
    for (const page of pages) {
      expect(page.css.length, page.name).toBeLessThan(sheet.length);
      const extra = [...rules(page.css).keys()].filter((key) => !full.has(key));
      expect(extra, page.name).toEqual([]);
    }
  });

  test('no rule a class of the page itself needs is lost', () => {
    for (const page of pages) {
      expect(lost(page.css, classesOf(page.html)), page.name).toEqual([]);
    }
  });

  test('no rule a class the page’s islands may draw later needs is lost', () => {
    let checked = 0;
    for (const page of pages) {
      const islands = [...page.html.matchAll(/component-url="\/_astro\/(\w+)\./g)].map(
        ([, name]) => name,
      );
      if (islands.length === 0) continue;
      checked++;
      // What each island's source, and every module of the site it imports, can write, as
      // Tailwind reads it.
      const sources = islands.flatMap((name) => sourcesOf(`src/islands/${name}.tsx`));
      const present = new Set([...candidates(sources), ...classesOf(page.html)]);
      // The scanner reads words, and `static` is also a class method's keyword
      // (ErrorBoundary's getDerivedStateFromError): it draws nothing.
      if (!classesOf(page.html).has('static')) present.delete('static');
      expect(lost(page.css, present), page.name).toEqual([]);
    }
    expect(checked).toBeGreaterThan(5);
  });
});

/** A module of the site and every module of the site it imports, relative to the root. */
function sourcesOf(entry: string, seen = new Set<string>()): string[] {
  if (seen.has(entry)) return [];
  seen.add(entry);
  const code = readFileSync(join(ROOT, entry), 'utf8');
  for (const [, specifier] of code.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
    const base = join(dirname(entry), specifier);
    const file = [base, `${base}.ts`, `${base}.tsx`].find((path) => {
      try {
        return statSync(join(ROOT, path)).isFile();
      } catch {
        return false;
      }
    });
    if (file) sourcesOf(file, seen);
  }
  return [...seen];
}

/** The classes of a page's elements, as the browser reads them (`[&amp;_a]:underline` is `[&_a]:underline`). */
function classesOf(html: string): Set<string> {
  return new Set(
    [...html.matchAll(/\sclass="([^"]*)"/g)].flatMap(([, value]) =>
      decodeEntities(value).split(/\s+/),
    ),
  );
}

describe('the pruning itself', () => {
  const words = new Set(['a', 'sm:px-8', 'group', 'group-hover:x', '2xl:p-4']);

  test('a class inside :not(), :is(), :where() or :has() is never required', () => {
    expect(requiredClasses('.a:not(.b)')).toEqual(['a']);
    expect(requiredClasses(':where(.space-y-2>:not(:last-child))')).toEqual([]);
    expect(requiredClasses('.a:has(.b:is(.c))')).toEqual(['a']);
    expect(requiredClasses('.sm\\:px-8')).toEqual(['sm:px-8']);
    expect(requiredClasses('.\\32 xl\\:p-4')).toEqual(['2xl:p-4']);
    expect(requiredClasses('.group:hover .group-hover\\:x')).toEqual(['group', 'group-hover:x']);
  });

  test('drops rules for absent classes and the blocks they leave empty, keeps the rest', () => {
    const css =
      '*,:before{box-sizing:border-box}:root{--c:red}.a{color:red}.b{color:blue}' +
      '@media (width>=40rem){.sm\\:px-8{padding:0}.sm\\:py-8{padding:1px}}' +
      '@media print{.b{display:none}}.a,.b{margin:0}.a:not(.b){float:left}' +
      '@keyframes spin{to{rotate:1turn}}';
    expect(pruneSheet(css, words)).toBe(
      '*,:before{box-sizing:border-box}:root{--c:red}.a{color:red}' +
        '@media (width>=40rem){.sm\\:px-8{padding:0}}' +
        '.a{margin:0}.a:not(.b){float:left}' +
        '@keyframes spin{to{rotate:1turn}}',
    );
  });
});
