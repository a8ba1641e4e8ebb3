import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postcss, { type AtRule, type Rule } from 'postcss';
import type { AstroIntegration } from 'astro';
import { decodeEntities, htmlFiles } from './security-headers';

/**
 * Each built page carries only the part of the site's style sheet it can use.
 *
 * Astro inlines the whole stylesheet Tailwind made for the site (about 29 KB) into every page,
 * so that a page is one request. Most of it styles other pages: on a slow phone those bytes
 * arrive in the page's first round trips and are parsed before anything is drawn. After the
 * build, every rule whose classes the page can never carry is dropped from its `<style>`.
 *
 * What a page can carry is found as Tailwind finds what to generate, by the words that occur:
 * - the page's own text (its markup and inline scripts);
 * - the scripts its islands load, followed through their imports: what React draws later (an
 *   error, a notice, the sent state) is in them.
 * A rule is kept unless a class it requires is missing; classes inside `:is()`, `:where()`,
 * `:not()` and `:has()` are not required, so the doubt always keeps a rule. Rules without a
 * class (the base styles, the theme) are all kept. The full sheet is still served on its own as
 * /styles/site.css for the refusal page a form's function writes from scratch.
 *
 * It runs before security-headers, which hashes the pages' inline styles as they end up.
 */
export default function pageStyles(): AstroIntegration {
  return {
    name: 'page-styles',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const addScriptWords = scriptWords(root);
        let before = 0;
        let after = 0;
        const pages = await htmlFiles(root);
        for (const file of pages) {
          const html = await readFile(file, 'utf8');
          // As the browser reads the classes: `[&amp;_a]:underline` is the class `[&_a]:underline`.
          const words = wordsOf(decodeEntities(html));
          await addScriptWords(scriptUrls(html), words);
          const pruned = pruneStyles(html, words);
          before += html.length;
          after += pruned.length;
          if (pruned !== html) await writeFile(file, pruned);
        }
        logger.info(
          `${pages.length} pages carry only the styles they use: ${Math.round((before - after) / 1024)} KB less in all`,
        );
      },
    },
  };
}

/** Every word of a text that could be a class name (a superset: what is not one costs nothing). */
export function wordsOf(text: string): Set<string> {
  return new Set(text.split(/[\s"'`<>={}\\]+|&quot;|&#39;|\$\{/));
}

/** The scripts a page loads: its islands' components and renderers, and `<script src>`. */
export function scriptUrls(html: string): string[] {
  const urls = html.matchAll(
    /\s(?:component-url|renderer-url|before-hydration-url|src)="(\/_astro\/[^"]+\.js)"/g,
  );
  return [...new Set([...urls].map(([, url]) => url))];
}

interface BuiltScript {
  words: Set<string>;
  imports: string[];
}

/**
 * Adds the words of scripts and of every script they import (each file read once per build)
 * to a page's words.
 */
export function scriptWords(root: string) {
  const files = new Map<string, Promise<BuiltScript>>();
  const read = (url: string) => {
    let file = files.get(url);
    if (!file) {
      file = readFile(join(root, url), 'utf8').then((code) => ({
        words: wordsOf(code),
        // Chunks import each other by relative name: `from"./react.B1.js"`, `import("./x.js")`.
        imports: [...code.matchAll(/(?:from|import)\s*\(?\s*["']\.\/([^"']+\.js)["']/g)].map(
          ([, name]) => `/_astro/${name}`,
        ),
      }));
      files.set(url, file);
    }
    return file;
  };
  return async (urls: string[], into: Set<string>): Promise<void> => {
    const seen = new Set<string>();
    const queue = [...urls];
    while (queue.length > 0) {
      const url = queue.pop()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const { words, imports } = await read(url);
      for (const word of words) into.add(word);
      queue.push(...imports);
    }
  };
}

/** The page with each `<style>` reduced to the rules whose required classes are all in `words`. */
export function pruneStyles(
  html: string,
  words: ReadonlySet<string>,
  prune: (css: string, words: ReadonlySet<string>) => string = pruneSheet,
): string {
  return html.replace(
    /(<style\b[^>]*>)([\s\S]*?)(<\/style>)/gi,
    (_, open: string, css: string, close: string) => `${open}${prune(css, words)}${close}`,
  );
}

/** Every class some rule of `css` requires (the classes whose presence can change what it keeps). */
export function sheetClasses(css: string): string[] {
  const classes = new Set<string>();
  postcss.parse(css).walkRules((rule: Rule) => {
    if (insideKeyframes(rule)) return;
    for (const selector of rule.selectors) {
      for (const name of requiredClasses(selector)) classes.add(name);
    }
  });
  return [...classes].sort();
}

export function pruneSheet(css: string, words: ReadonlySet<string>): string {
  const root = postcss.parse(css);
  root.walkRules((rule: Rule) => {
    if (insideKeyframes(rule)) return;
    const kept = rule.selectors.filter((selector) =>
      requiredClasses(selector).every((name) => words.has(name)),
    );
    if (kept.length === 0) rule.remove();
    else if (kept.length < rule.selectors.length) rule.selectors = kept;
  });
  // A media query, layer or supports block left with nothing in it goes too.
  let emptied = true;
  while (emptied) {
    emptied = false;
    root.walkAtRules((at: AtRule) => {
      if (at.nodes !== undefined && at.nodes.length === 0) {
        at.remove();
        emptied = true;
      }
    });
  }
  return root.toString();
}

function insideKeyframes(rule: Rule): boolean {
  const parent = rule.parent;
  return parent?.type === 'atrule' && /keyframes$/i.test((parent as AtRule).name);
}

/**
 * The classes an element must carry for `selector` to match anything: those outside every
 * parenthesised argument (`:not(.x)` matches without `x`, `:is(.a, .b)` with either).
 */
export function requiredClasses(selector: string): string[] {
  let top = selector;
  let previous;
  do {
    previous = top;
    top = top.replace(/\([^()]*\)/g, '');
  } while (top !== previous);
  return [...top.matchAll(/\.((?:\\[0-9a-fA-F]{1,6}\s?|\\.|[\w-])+)/g)].map(([, name]) =>
    unescapeCss(name),
  );
}

function unescapeCss(name: string): string {
  return name.replace(/\\([0-9a-fA-F]{1,6}\s?|.)/g, (_, escape: string) =>
    /^[0-9a-fA-F]/.test(escape) ? String.fromCodePoint(parseInt(escape, 16)) : escape,
  );
}
