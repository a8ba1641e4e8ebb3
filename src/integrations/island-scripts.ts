import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { htmlFiles } from './security-headers';

/**
 * Astro's island scripts run once the page is parsed, not in the middle of it.
 *
 * Before a page's first island Astro writes two classic inline scripts: the hydration directive
 * (ours is `client:interaction`) and the island loader, which defines `<astro-island>`. A
 * classic script stops the parser, so on a slow phone the first paint waits while V8 starts up,
 * compiles and runs them (4.8 KB); Lighthouse's mobile estimate counts that work four times over.
 * Neither needs to run early: an island is the server's HTML until it is touched, and the forms
 * and the menu work without script. Marked `type="module"`, the same code (so the same CSP
 * hashes) runs after parsing, in document order: the directive first, then the loader, whose
 * `customElements.define` upgrades every island already in the page.
 *
 * Astro offers no option for this, so the built pages are rewritten. The two scripts are found
 * by what they are: the loader defines `astro-island`, a directive registers itself on
 * `self.Astro` and announces `astro:<name>`. A page with an island whose loader is not found
 * fails the build, so a change in how Astro writes them is seen, not shipped.
 */
export default function islandScripts(): AstroIntegration {
  return {
    name: 'island-scripts',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        let changed = 0;
        for (const file of await htmlFiles(root)) {
          const html = await readFile(file, 'utf8');
          const deferred = deferIslandScripts(html);
          if (deferred === undefined) {
            throw new Error(
              `island-scripts: ${relative(root, file)} has an island but no Astro island loader was recognised`,
            );
          }
          if (deferred !== html) {
            await writeFile(file, deferred);
            changed++;
          }
        }
        logger.info(`${changed} pages run their island scripts after parsing`);
      },
    },
  };
}

const LOADER = 'customElements.define("astro-island"';
const DIRECTIVE =
  /^\(\(\)=>\{[\s\S]*\(self\.Astro\|\|\(self\.Astro=\{\}\)\)\.([a-z][\w-]*)=[\s\S]*window\.dispatchEvent\(new Event\("astro:\1"\)\);\}\)\(\);\s*$/;

/** Whether `code` is one of the inline scripts Astro writes for its islands. */
export function isIslandScript(code: string): boolean {
  return code.includes(LOADER) || DIRECTIVE.test(code);
}

/**
 * The page with Astro's island scripts marked `type="module"`; the page itself if it has no
 * island, and `undefined` if it has islands but no loader this recognises.
 */
export function deferIslandScripts(html: string): string | undefined {
  let loaders = 0;
  const deferred = html.replace(/<script>([\s\S]*?)<\/script>/g, (script, code: string) => {
    if (!isIslandScript(code)) return script;
    if (code.includes(LOADER)) loaders++;
    return `<script type="module">${code}</script>`;
  });
  if (/<astro-island\b/.test(html) && loaders === 0) return undefined;
  return deferred;
}
