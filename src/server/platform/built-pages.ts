/**
 * Files of the built site that the server reads at run time from PAGES_DIR (`dist/`, shipped
 * beside the functions through `included_files`: on Netlify the build runs before the functions
 * are bundled, and `npm start` bundles after building too): a built file such as
 * `list/events.json`, and the headers the built `_headers` gives a path, which a page rendered
 * on demand takes (platform/on-demand.ts): Netlify applies `_headers` to static files only,
 * never to a function's answer.
 */
import { readFileSync } from 'node:fs';
import { parseAllHeaders, type Header } from '@netlify/headers-parser';
import { pathIn, projectPath } from './paths';
import { readSetting } from './settings';

export function pagesDir(): string {
  return pathIn(projectPath('.'), readSetting('PAGES_DIR') ?? 'dist');
}

const pages = new Map<string, string>();

/** A built file (e.g. `list/events.json`), read once per instance. */
export function builtPage(file: string): string {
  let page = pages.get(file);
  if (page === undefined) {
    const path = pathIn(pagesDir(), file);
    try {
      page = readFileSync(path, 'utf8');
    } catch (cause) {
      const error = new Error(
        `${path} could not be read: build the site first (npm run build), and ship it with the functions (included_files in netlify.toml)`,
        { cause },
      );
      console.error(error.message);
      throw error;
    }
    pages.set(file, page);
  }
  return page;
}

let rules: Promise<{ test: RegExp; values: [string, string][] }[]> | undefined;

/** The headers the built `_headers` gives `pathname` (a later rule wins a name), names lower case. */
export async function pageHeaders(pathname: string): Promise<Record<string, string>> {
  rules ??= parseAllHeaders({
    headersFiles: [pathIn(pagesDir(), '_headers')],
    configHeaders: [],
    minimal: false,
  }).then(({ headers, errors }) => {
    if (errors.length > 0) throw new Error(`${pathIn(pagesDir(), '_headers')} has errors`);
    return (headers as Header[]).map((rule) => ({
      test: rule.forRegExp,
      values: Object.entries(rule.values).map(([name, value]) => [name.toLowerCase(), value]),
    }));
  });
  const headers: Record<string, string> = {};
  for (const rule of await rules) {
    if (!rule.test.test(pathname)) continue;
    for (const [name, value] of rule.values) headers[name] = value;
  }
  if (!headers['content-security-policy']) {
    throw new Error(
      `${pathIn(pagesDir(), '_headers')} gives ${pathname} no Content-Security-Policy`,
    );
  }
  return headers;
}
