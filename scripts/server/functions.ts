/**
 * Runs each function in this process, warm, from the module `npm start` compiled from its source
 * (bundles.ts).
 *
 * On Netlify, a v2 function's entry point hands the user module to Netlify's bootstrap, whose
 * handler is an AWS Lambda streaming handler: it needs the Lambda runtime's `awslambda` global
 * and a Lambda event, and neither is a public API anyone can provide outside AWS. What the
 * bootstrap does with the user module is public, though: the Functions v2 API is "the module's
 * default export is called with a web `Request` and a `Context`, and returns a `Response`". So
 * this server imports each function's module once and calls its default export per request with
 * a Context of its own making (context.ts).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from '@netlify/functions';
import type { ExtendedRoute } from '@netlify/zip-it-and-ship-it';
import { ON_DEMAND_ROUTES } from '../../src/integrations/on-demand-routes.ts';
import type { Bundle } from './bundles.ts';

export type Handler = (request: Request, context: Context) => Response | Promise<Response>;

export interface LoadedFunction extends Bundle {
  handler: Handler;
}

export interface FunctionMatch {
  func: LoadedFunction;
  /** The route pattern that matched (its params go to `context.params`), if any. */
  pattern?: string;
  preferStatic: boolean;
}

export async function loadFunctions(bundles: Bundle[]): Promise<LoadedFunction[]> {
  const loaded: LoadedFunction[] = [];
  for (const bundle of bundles) {
    if (bundle.runtimeAPIVersion !== 2) {
      throw new Error(`${bundle.name}: npm start runs Functions v2 only (a default export)`);
    }
    // (Not a module for Vite to follow, when `npm run dev` loads this file.)
    const module = (await import(/* @vite-ignore */ pathToFileURL(bundle.file).href)) as {
      default?: unknown;
    };
    if (typeof module.default !== 'function') {
      throw new Error(`${bundle.name}: ${bundle.mainFile} has no default export to call`);
    }
    loaded.push({ ...bundle, handler: module.default as Handler });
  }
  return loaded;
}

type AnyRoute = { literal?: string; expression?: string; methods?: string[] };

function routeMatches(route: AnyRoute, path: string): boolean {
  if (route.literal !== undefined) return path === route.literal;
  if (route.expression !== undefined) return new RegExp(route.expression).test(path);
  return false;
}

const DEFAULT_PATH = /^\/\.netlify\/functions\/([^/]+)\/?$/;

/**
 * Netlify's routing of function paths, as its own emulator does it: a function with a `path`
 * answers there (case-insensitive, a trailing slash ignored, limited to its `method`s, minus its
 * `excludedPath`s) and not at `/.netlify/functions/<name>`; one without answers only there; a
 * scheduled function answers on no path at all in production.
 */
export function createRouter(functions: LoadedFunction[]) {
  const compiled = functions.map((func) => ({
    func,
    routes: func.routes.map((route) => ({
      ...(route as AnyRoute & { pattern: string; prefer_static?: boolean }),
      regex: 'expression' in route ? new RegExp(route.expression) : undefined,
    })),
  }));
  return function match(pathname: string, method: string): FunctionMatch | undefined {
    const byName = DEFAULT_PATH.exec(pathname);
    if (byName) {
      const func = functions.find((f) => f.name === byName[1]);
      if (!func || func.routes.length > 0 || func.schedule) return undefined;
      return { func, preferStatic: false };
    }
    let path = pathname !== '/' && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    path = path.toLowerCase();
    for (const { func, routes } of compiled) {
      const route = routes.find(
        (r) =>
          (!r.methods || r.methods.length === 0 || r.methods.includes(method)) &&
          (r.literal !== undefined ? path === r.literal : (r.regex?.test(path) ?? false)),
      );
      if (!route) continue;
      if (func.excludedRoutes.some((excluded) => routeMatches(excluded as AnyRoute, path))) {
        continue;
      }
      return { func, pattern: route.pattern, preferStatic: route.prefer_static ?? false };
    }
    return undefined;
  };
}

/**
 * The adapter's function for the pages rendered on demand (`prerender = false`), as built by
 * `astro build`: a Functions v2 module like the others, called the same way. On Netlify it takes
 * every path no static file answers (`/*`, static first); here it takes the on-demand pages'
 * own paths, which the build lists (src/integrations/on-demand-routes.ts), so that every other
 * path is answered as before (a function, a static file, the 404 page with its headers).
 */
export async function loadOnDemand(
  root: string,
  /** Where the function is: the build's folder, or a copy of it (a module loads once per path). */
  dir = dirname(join(root, ON_DEMAND_ROUTES)),
): Promise<LoadedFunction | undefined> {
  const list = join(dir, basename(ON_DEMAND_ROUTES));
  const file = join(dir, 'ssr.mjs');
  if (!existsSync(file) || !existsSync(list)) return undefined;
  const routes = JSON.parse(await readFile(list, 'utf8')) as ExtendedRoute[];
  const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
    default?: unknown;
  };
  if (typeof module.default !== 'function') {
    throw new Error(`${file} has no default export to call: build the site again (npm run build)`);
  }
  return {
    name: 'ssr',
    mainFile: file,
    file,
    runtimeAPIVersion: 2,
    routes,
    excludedRoutes: [],
    handler: module.default as Handler,
  };
}
