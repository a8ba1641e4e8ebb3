import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { ON_DEMAND_INLINE_SCRIPTS } from '../shared/booking/session-form-script.ts';

/**
 * Writes the site's Content-Security-Policy into `dist/_headers` once the pages are built, and an
 * `X-Robots-Tag` rule for every page that says `<meta name="robots" content="noindex">` (a link
 * page, a form's "sent" page, the 404 page), at each path it answers at: `/notify/sent` and its
 * twin `/notify/sent.html`. The meta tag alone leaves a crawler to fetch and parse the page; the
 * header says it on every answer, whatever the path was written as.
 *
 * Scripts and styles may come from the site itself and, inline, only as the exact blocks Astro
 * wrote into the pages (island loaders, the `client:interaction` directive, inlined CSS): each is
 * allowed by its SHA-256, so no `'unsafe-inline'` is needed and an injected script runs nowhere.
 * A header, unlike Astro's `<meta>` policy, can also forbid framing (`frame-ancestors`).
 *
 * One policy for the whole site (the union of every page's hashes) rather than one per page:
 * Netlify joins the values of every rule that matches a path, and two policies on one response
 * both apply, so a per-page rule beside the `/*` rule the 404 page needs would block its scripts.
 */
export default function securityHeaders(): AstroIntegration {
  return {
    name: 'security-headers',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const pages = await htmlFiles(root);
        const found = { scripts: new Set<string>(), styles: new Set<string>(), attributes: 0 };
        const unindexed: { paths: string[]; robots: string }[] = [];
        for (const page of pages) {
          const html = await readFile(page, 'utf8');
          const robots = robotsOf(html);
          if (robots) unindexed.push({ paths: pagePaths(relative(root, page)), robots });
          const inline = inlineCode(html);
          inline.scripts.forEach((code) => found.scripts.add(sha256(code)));
          inline.styles.forEach((code) => found.styles.add(sha256(code)));
          inline.attributes.forEach((code) => found.styles.add(sha256(code)));
          found.attributes += inline.attributes.length;
        }
        for (const css of await runtimeStyles(root)) found.styles.add(sha256(css));
        // Written only into pages rendered on demand, which are not among the built files.
        for (const code of ON_DEMAND_INLINE_SCRIPTS) found.scripts.add(sha256(code));
        const policy = contentSecurityPolicy({
          scriptHashes: [...found.scripts].sort(),
          styleHashes: [...found.styles].sort(),
          styleAttributes: found.attributes > 0,
        });
        await addToHeaders(join(root, '_headers'), policy);
        await addRobotsRules(join(root, '_headers'), unindexed);
        logger.info(
          `Content-Security-Policy: ${found.scripts.size} script and ${found.styles.size} style hashes from ${pages.length} pages`,
        );
      },
    },
  };
}

export interface PolicyParts {
  scriptHashes: string[];
  styleHashes: string[];
  /** The pages carry `style="..."` attributes, allowed by hash through `'unsafe-hashes'`. */
  styleAttributes: boolean;
}

export function contentSecurityPolicy({
  scriptHashes,
  styleHashes,
  styleAttributes,
}: PolicyParts): string {
  const quoted = (hashes: string[]) => hashes.map((hash) => `'${hash}'`);
  return [
    "default-src 'none'",
    ['script-src', "'self'", ...quoted(scriptHashes)].join(' '),
    [
      'style-src',
      "'self'",
      ...(styleAttributes ? ["'unsafe-hashes'"] : []),
      ...quoted(styleHashes),
    ].join(' '),
    // data: for the signature pad, which draws a saved signature from a PNG data URL.
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    // A booking paid online is answered with a 303 to Stripe Checkout's hosted page, and a
    // browser holds the redirects of a form's submission to form-action too (docs/payments.md).
    "form-action 'self' https://checkout.stripe.com",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The content editor's page's policy (/admin, src/server/pages/editor.ts), and no other page's:
 * its script from the site itself; the styles its components write as it runs (`'unsafe-inline'`
 * styles, never scripts); `'unsafe-eval'` for the schema checker Decap CMS compiles its
 * configuration's checks with (ajv); GitHub's API and pictures, which the deployed editor reads
 * and commits through, and the pictures she picks (`blob:`: shown, and read again to be saved).
 */
export function editorContentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    "script-src 'self' 'unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https://avatars.githubusercontent.com https://raw.githubusercontent.com",
    "font-src 'self' data:",
    "connect-src 'self' blob: https://api.github.com",
    "frame-src 'self' blob:",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function sha256(code: string): string {
  return `sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}`;
}

/** Every built page under `dir`. */
export async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const DATA_BLOCK = /\btype\s*=\s*["']?application\/(ld\+)?json/i;

/** The inline scripts (not data blocks), `<style>` blocks and style attributes of a page. */
export function inlineCode(html: string) {
  const scripts: string[] = [];
  for (const [, attributes, code] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(attributes) || DATA_BLOCK.test(attributes)) continue;
    scripts.push(code);
  }
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map(([, code]) => code);
  const attributes = [...html.matchAll(/\sstyle\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)].map(
    ([, double, single]) => decodeEntities(double ?? single),
  );
  return { scripts, styles, attributes };
}

export function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * Style sheets a library adds at run time. sonner (the notices) appends one `<style>` to the
 * head, empty first and then filled, so both states are allowed by hash — only when the built
 * scripts contain it.
 */
async function runtimeStyles(root: string): Promise<string[]> {
  const assets = await readdir(join(root, '_astro')).catch(() => [] as string[]);
  let usesSonner = false;
  for (const name of assets.filter((file) => file.endsWith('.js'))) {
    if ((await readFile(join(root, '_astro', name), 'utf8')).includes('data-sonner-toaster')) {
      usesSonner = true;
      break;
    }
  }
  if (!usesSonner) return [];
  const source = await readFile(createRequire(import.meta.url).resolve('sonner'), 'utf8');
  const literal = /__insertCSS\(("(?:[^"\\]|\\.)*")\)/.exec(source)?.[1];
  if (!literal) throw new Error('security-headers: cannot find the style sheet sonner injects');
  return ['', JSON.parse(literal) as string];
}

/** Puts the policy in the `/*` rule of `_headers` (creating the rule if there is none). */
async function addToHeaders(file: string, policy: string): Promise<void> {
  const current = await readFile(file, 'utf8').catch(() => '');
  const line = `  Content-Security-Policy: ${policy}`;
  const lines = current.split('\n').filter((text) => !/^\s+Content-Security-Policy:/i.test(text));
  const rule = lines.findIndex((text) => text.trim() === '/*');
  if (rule === -1) lines.unshift('/*', line, '');
  else lines.splice(rule + 1, 0, line);
  await writeFile(file, lines.join('\n'));
}

/** A page's `<meta name="robots" content>`, when it keeps the page out of search engines. */
export function robotsOf(html: string): string | undefined {
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/gi)) {
    if (!/\bname\s*=\s*["']?robots\b/i.test(tag)) continue;
    const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    const value = (content?.[1] ?? content?.[2] ?? '').trim();
    if (/\bnoindex\b/i.test(value)) return value;
  }
  return undefined;
}

/** The paths a built page answers at (`build.format: 'file'`): `/a/b` and `/a/b.html`. */
export function pagePaths(file: string): string[] {
  const path = `/${file.split(sep).join('/')}`;
  if (path === '/index.html') return ['/', '/index.html'];
  return [path.replace(/\.html$/, ''), path];
}

/**
 * Adds `X-Robots-Tag` rules for the pages that say noindex, except where a rule of `_headers`
 * already gives the path one (the records desk's `/records/*`): Netlify joins the values of
 * every matching rule, and one word said twice helps nobody.
 */
async function addRobotsRules(
  file: string,
  pages: { paths: string[]; robots: string }[],
): Promise<void> {
  const current = await readFile(file, 'utf8').catch(() => '');
  const covered = robotsRulePaths(current).map(
    (path) => new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`),
  );
  const rules = pages
    .flatMap(({ paths, robots }) => paths.map((path) => ({ path, robots })))
    .filter(({ path }) => !covered.some((rule) => rule.test(path)))
    .sort((a, b) => a.path.localeCompare(b.path))
    .map(({ path, robots }) => `${path}\n  X-Robots-Tag: ${robots}`);
  if (rules.length === 0) return;
  const note =
    '# Pages that say noindex in their <meta name="robots">, at every path they answer at\n# (written at build time by src/integrations/security-headers.ts).';
  await writeFile(file, `${current.replace(/\n*$/, '\n')}\n${note}\n${rules.join('\n')}\n`);
}

/** The paths of the `_headers` rules that already set `X-Robots-Tag`. */
function robotsRulePaths(headers: string): string[] {
  const paths: string[] = [];
  let path: string | undefined;
  for (const line of headers.split('\n')) {
    if (/^\S/.test(line) && !line.startsWith('#')) path = line.trim();
    else if (path && /^\s+X-Robots-Tag:/i.test(line)) paths.push(path);
  }
  return paths;
}
