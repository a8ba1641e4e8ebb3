/**
 * What a page rendered on demand (`export const prerender = false`: /consultation's free slots,
 * a booking's page, the list's link pages) gets after Astro renders it, so that it leaves the
 * server as a built page leaves the build (src/middleware.ts calls it):
 *
 * - its island scripts run after parsing (src/integrations/island-scripts.ts);
 * - its `<style>` keeps only the rules its classes and its islands' scripts can use
 *   (src/integrations/page-styles.ts), pruned once per instance for each set of classes;
 * - its headers are those the built `_headers` gives its path (read by Netlify's own parser),
 *   the site's Content-Security-Policy included, with the hash of its own pruned style added:
 *   Netlify applies `_headers` to static files only, never to a function's answer;
 * - it is compressed (brotli, else gzip) for a client that takes it, as Netlify's CDN does for
 *   static files.
 *
 * Its caching (`cache-control` and the CDN's) is the page's own, set in its frontmatter.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { deferIslandScripts } from '../../integrations/island-scripts';
import {
  pruneSheet,
  pruneStyles,
  scriptUrls,
  scriptWords,
  sheetClasses,
  wordsOf,
} from '../../integrations/page-styles';
import { decodeEntities, inlineCode } from '../../integrations/security-headers';
import { pageHeaders, pagesDir } from './built-pages';

/**
 * The headers of a page about one person (a booking, a place, a subscription): never stored by
 * any cache, never indexed, and no Referer leaves the site from it (its address holds a token).
 * `same-origin` rather than `no-referrer`: with no referrer at all, browsers send `Origin: null`
 * with the page's own form posts, which the same-origin check must refuse.
 */
export const PERSONAL: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'same-origin',
};

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

let addScriptWords: ReturnType<typeof scriptWords> | undefined;
const sheets = new Map<string, { classes: string[]; pruned: Map<string, string> }>();

/** `css` cut to the rules `words` can use; the same classes give the same sheet, cut once. */
function prunedOnce(css: string, words: ReadonlySet<string>): string {
  let sheet = sheets.get(css);
  if (!sheet) {
    sheet = { classes: sheetClasses(css), pruned: new Map() };
    sheets.set(css, sheet);
  }
  const key = sheet.classes.filter((name) => words.has(name)).join(' ');
  let pruned = sheet.pruned.get(key);
  if (pruned === undefined) {
    pruned = pruneSheet(css, words);
    sheet.pruned.set(key, pruned);
  }
  return pruned;
}

const sha256 = (code: string) =>
  `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`;

/** `policy` with `sources` added to its `directive`. */
function allow(policy: string, directive: string, sources: string[]): string {
  if (sources.length === 0) return policy;
  return policy
    .split(';')
    .map((part) => {
      const words = part.trim().split(/\s+/);
      if (words[0] !== directive) return part.trim();
      return [...words, ...sources.filter((source) => !words.includes(source))].join(' ');
    })
    .join('; ');
}

/** The page's HTML made as the build makes a built page's (see above). */
export async function finishHtml(html: string): Promise<{ html: string; styles: string[] }> {
  const deferred = deferIslandScripts(html);
  if (deferred === undefined) throw new Error('A page has an island but no Astro island loader');
  const words = wordsOf(decodeEntities(deferred));
  addScriptWords ??= scriptWords(pagesDir());
  await addScriptWords(scriptUrls(deferred), words);
  const finished = pruneStyles(deferred, words, prunedOnce);
  const { styles, attributes } = inlineCode(finished);
  return { html: finished, styles: [...styles, ...attributes] };
}

/** The answer of a page rendered on demand, finished (see above). */
export async function finishPage(request: Request, response: Response): Promise<Response> {
  if (!/^text\/html\b/i.test(response.headers.get('content-type') ?? '')) return response;
  const { html, styles } = await finishHtml(await response.text());
  const headers = await pageHeaders(new URL(request.url).pathname);
  headers['content-security-policy'] = allow(
    headers['content-security-policy'],
    'style-src',
    styles.map(sha256),
  );
  const accepted = request.headers.get('accept-encoding') ?? '';
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
  const answer = new Headers(headers);
  // The page's own headers (caching, robots) win over the path's.
  response.headers.forEach((value, name) => answer.set(name, value));
  answer.set('content-type', 'text/html; charset=utf-8');
  answer.set('vary', 'Accept-Encoding');
  answer.delete('content-length');
  if (encoding) answer.set('content-encoding', encoding);
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    status: response.status,
    headers: answer,
  });
}
