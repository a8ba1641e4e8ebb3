/**
 * Pages of the built site that a function fills in and answers itself (/consultation, whose free
 * slots change with every booking): the page is the one Astro built, header, footer, styles and
 * scripts included, read from PAGES_DIR (`dist/`, shipped beside the functions through
 * `included_files`: on Netlify the build runs before the functions are bundled, and `npm start`
 * bundles after building too). A function only puts its part where the page marks it,
 * `<div data-fill="name">...</div>`, so there is one layout, Astro's.
 *
 * Netlify applies `_headers` to static files only, never to a function's answer: the answer
 * takes the headers the built `_headers` gives the page's path (read by Netlify's own parser),
 * the build's Content-Security-Policy with its hashes included, so the filled page runs exactly
 * what the static page would. The functions write no inline script or style into a page.
 *
 * Like Netlify's CDN does for static files, the answer is compressed (brotli, else gzip) when the
 * client takes it.
 */
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { parseAllHeaders, type Header } from '@netlify/headers-parser';
import { pathIn, projectPath } from './paths';
import { readSetting } from './settings';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export function pagesDir(): string {
  return pathIn(projectPath('.'), readSetting('PAGES_DIR') ?? 'dist');
}

const pages = new Map<string, string>();

/** A built page (e.g. `consultation.html`), read once per instance. */
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

const marker = (name: string) => new RegExp(`<div data-fill="${name}"[^>]*>[\\s\\S]*?</div>`);

/**
 * `page` with each marked part replaced by its HTML (which the caller has escaped), and the
 * `<title>` set when given. A marker the page lacks is an error naming it: the page and the
 * function disagree, and nobody should get a page with a hole in it.
 */
export function fillPage(page: string, parts: Record<string, string>, title?: string): string {
  let filled = page;
  for (const [name, html] of Object.entries(parts)) {
    const found = marker(name);
    if (!found.test(filled)) throw new Error(`The built page has no <div data-fill="${name}">`);
    filled = filled.replace(found, () => html);
  }
  if (title !== undefined)
    filled = filled.replace(/<title>[^<]*<\/title>/, () => `<title>${title}</title>`);
  return filled;
}

export interface PageAnswer {
  status?: number;
  /** Headers beside the page's own (caching, robots). */
  headers?: Record<string, string>;
}

/** A filled page as the answer, with its path's headers, compressed for a client that takes it. */
export async function pageAnswer(
  req: Request,
  pathname: string,
  html: string,
  { status = 200, headers = {} }: PageAnswer = {},
): Promise<Response> {
  const accepted = req.headers.get('accept-encoding') ?? '';
  const raw = Buffer.from(html, 'utf8');
  let body: Buffer = raw;
  let encoding: string | undefined;
  if (/\bbr\b/.test(accepted)) {
    body = await brotli(raw, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
    encoding = 'br';
  } else if (/\bgzip\b/.test(accepted)) {
    body = await gzipAsync(raw, { level: 6 });
    encoding = 'gzip';
  }
  return new Response(req.method === 'HEAD' ? null : new Uint8Array(body), {
    status,
    headers: {
      ...(await pageHeaders(pathname)),
      'content-type': 'text/html; charset=utf-8',
      vary: 'Accept-Encoding',
      ...(encoding && { 'content-encoding': encoding }),
      ...headers,
    },
  });
}
