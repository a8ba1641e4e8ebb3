import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';

/** Where the list goes: beside the function Netlify's adapter writes for the on-demand pages. */
export const ON_DEMAND_ROUTES = '.netlify/v1/functions/ssr/on-demand-routes.json';

/**
 * Lists the pages rendered on demand (`export const prerender = false`), each as the route
 * Netlify's function config takes (`{ pattern, expression }`), for `npm start`: it hands those
 * paths, and only those, to the adapter's function (scripts/server/functions.ts), and answers
 * every other path from the built files, its own functions or the 404 page.
 *
 * It also puts in the adapter's function the built files of `files` (netlify.toml's
 * `included_files`), as the build left them after the adapter gathered its own: the `_headers` with
 * the policy security-headers wrote, which gives the pages their headers
 * (src/server/platform/on-demand.ts), and the waiver's versions.
 */
export default function onDemandRoutes({
  files = [],
}: { files?: string[] } = {}): AstroIntegration {
  let routes: { pattern: string; expression: string }[] = [];
  let root: URL;
  return {
    name: 'on-demand-routes',
    hooks: {
      'astro:config:done': ({ config }) => {
        root = config.root;
      },
      'astro:routes:resolved': ({ routes: resolved }) => {
        routes = resolved
          .filter((route) => !route.isPrerendered && route.origin === 'project')
          // The catch-all 404 is Netlify's (src/pages/[...missing].astro); npm start answers
          // what nothing else answers with the built 404 page.
          .filter((route) => route.pattern !== '/[...missing]')
          .map((route) => ({ pattern: route.pattern, expression: route.patternRegex.source }));
      },
      'astro:build:done': async ({ dir, logger }) => {
        const list = new URL(ON_DEMAND_ROUTES, root);
        const functionDir = new URL('.', list);
        await mkdir(functionDir, { recursive: true });
        await writeFile(list, `${JSON.stringify(routes, null, 1)}\n`);
        const outDir = relative(fileURLToPath(root), fileURLToPath(dir));
        for (const file of files.filter((name) => name.startsWith(`${outDir}/`))) {
          const from = fileURLToPath(new URL(file, root));
          const to = fileURLToPath(new URL(file, functionDir));
          if (!existsSync(from)) continue;
          await mkdir(dirname(to), { recursive: true });
          await copyFile(from, to);
        }
        logger.info(
          `${routes.length} pages rendered on demand: ${routes.map((r) => r.pattern).join(', ')}`,
        );
      },
    },
  };
}
