/**
 * Astro's island scripts run after the page is parsed (src/integrations/island-scripts.ts): in
 * every built page with an island, the directive and the loader are inline modules, the loader
 * after the directives, and nothing else the pages carry was touched. Whether the islands still
 * hydrate is the browser tests' part (menu, forms, the waiver's re-sign link).
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import islandLoader from 'astro/runtime/server/astro-island.prebuilt.js';
import { deferIslandScripts, isIslandScript } from '../../src/integrations/island-scripts';
import { ensureBuilt } from '../server/harness';

const DIST = resolve(import.meta.dirname, '../../dist');

interface Script {
  attributes: string;
  code: string;
}

let pages: { name: string; html: string; scripts: Script[] }[];

beforeAll(async () => {
  ensureBuilt();
  const files = (await readdir(DIST, { recursive: true })).filter((file) => file.endsWith('.html'));
  pages = await Promise.all(
    files.map(async (name) => {
      const html = await readFile(join(DIST, name), 'utf8');
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(
        ([, attributes, code]) => ({ attributes: attributes.trim(), code }),
      );
      return { name, html, scripts };
    }),
  );
});

describe('the built pages', () => {
  test('every page with an island loads it with Astro’s own loader, as an inline module', () => {
    const withIslands = pages.filter((page) => /<astro-island\b/.test(page.html));
    expect(withIslands.map((page) => page.name)).toEqual(
      // (/consultation is rendered on demand, and finished the same way: src/server/platform/on-demand.ts.)
      expect.arrayContaining(['index.html', 'contact.html', 'waiver.html']),
    );
    for (const page of withIslands) {
      const loaders = page.scripts.filter((script) => script.code === islandLoader);
      expect(loaders, page.name).toHaveLength(1);
      expect(loaders[0].attributes, page.name).toBe('type="module"');
    }
  });

  test('each directive is a module that runs before the loader and before any island', () => {
    for (const page of pages.filter((each) => /<astro-island\b/.test(each.html))) {
      const directives = page.scripts.filter(
        (script) => script.code !== islandLoader && isIslandScript(script.code),
      );
      expect(directives.length, page.name).toBeGreaterThan(0);
      const firstIsland = page.html.indexOf('<astro-island');
      for (const directive of directives) {
        expect(directive.attributes, page.name).toBe('type="module"');
        expect(page.html.indexOf(directive.code), page.name).toBeLessThan(firstIsland);
      }
      expect(page.html.indexOf(directives[0].code)).toBeLessThan(page.html.indexOf(islandLoader));
    }
  });

  test('no classic inline script of a page is one of Astro’s island scripts', () => {
    for (const page of pages) {
      const classic = page.scripts.filter((script) => script.attributes === '');
      expect(
        classic.filter((script) => isIslandScript(script.code)),
        page.name,
      ).toEqual([]);
    }
  });
});

describe('the rewrite', () => {
  const directive =
    '(()=>{var l=async t=>{await(await t())()};(self.Astro||(self.Astro={})).load=l;window.dispatchEvent(new Event("astro:load"));})();\n';
  const island =
    '<astro-island uid="1" component-url="/_astro/Menu.js" client="load" ssr></astro-island>';

  test('marks the directive and the loader, and only them', () => {
    const own = "<script>document.documentElement.classList.add('js')</script>";
    const html = `<main>${own}<script>${directive}</script><script>${islandLoader}</script>${island}</main>`;
    expect(deferIslandScripts(html)).toBe(
      `<main>${own}<script type="module">${directive}</script><script type="module">${islandLoader}</script>${island}</main>`,
    );
  });

  test('leaves a page without islands as it is', () => {
    const html = '<main><script>console.log(1)</script></main>';
    expect(deferIslandScripts(html)).toBe(html);
  });

  test('refuses a page whose islands come with a loader it does not recognise', () => {
    const html = `<script>${directive}</script><script>customElements.define('astro-island2',class{})</script>${island}`;
    expect(deferIslandScripts(html)).toBeUndefined();
  });

  test('a script that merely mentions Astro is not taken for a directive', () => {
    expect(isIslandScript('window.Astro = {}; // astro:load')).toBe(false);
    expect(isIslandScript(directive)).toBe(true);
    expect(isIslandScript(islandLoader)).toBe(true);
  });
});
