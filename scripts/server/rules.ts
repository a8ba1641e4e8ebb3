/**
 * The site's `_headers` and `_redirects` (in the published folder) and the `[[headers]]` and
 * `[[redirects]]` of netlify.toml, parsed by Netlify's own parsers (`@netlify/headers-parser`,
 * `@netlify/redirect-parser`). A syntax error stops the server at start, naming it, as it fails a
 * Netlify deploy. Redirects are matched by Netlify's own rules engine (`@netlify/redirects`, the
 * WebAssembly build of the redirector Netlify's edge runs): splats, placeholders, query
 * conditions, `force` and status codes behave as deployed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllHeaders, type Header } from '@netlify/headers-parser';
import { parseAllRedirects } from '@netlify/redirect-parser';
import { RedirectsHandler } from '@netlify/redirects';
import type { SiteConfig } from './netlify-config.ts';

export type RedirectMatch = NonNullable<Awaited<ReturnType<RedirectsHandler['match']>>>;

export interface Rules {
  /** The headers every matching `_headers` rule gives a path (a later rule wins a name). */
  headersFor(pathname: string): Record<string, string>;
  /** Whether the site has any redirect rules at all. */
  hasRedirects: boolean;
  /** The redirect rule a request matches, if the site has any rules. */
  redirectFor(request: Request): Promise<RedirectMatch | undefined>;
}

function failOn(errors: unknown[], what: string) {
  if (errors.length === 0) return;
  const messages = errors.map((error) => (error as Error)?.message ?? String(error));
  throw new Error(`${what} has errors:\n${messages.join('\n')}`);
}

/**
 * The headers of a published folder's `_headers` (and of netlify.toml's `[[headers]]`, given its
 * path) for a path: those of every matching rule, a later rule winning a name, as Netlify's own
 * local tools apply them. The one reader of `_headers` for npm start and the bench's CDN.
 */
export async function loadHeaders(
  publishDir: string,
  configPath?: string,
): Promise<(pathname: string) => Record<string, string>> {
  const headersFile = join(publishDir, '_headers');
  const parsed = await parseAllHeaders({
    headersFiles: existsSync(headersFile) ? [headersFile] : [],
    netlifyConfigPath: configPath,
    configHeaders: [],
    minimal: false,
  });
  failOn(parsed.errors, '_headers');
  const rules = (parsed.headers as Header[]).map((rule) => ({
    test: (path: string) => rule.forRegExp.test(path),
    values: Object.entries(rule.values).map(([name, value]) => [name.toLowerCase(), value]),
  }));
  return (pathname) => {
    const headers: Record<string, string> = {};
    for (const rule of rules) {
      if (!rule.test(pathname)) continue;
      for (const [name, value] of rule.values) headers[name] = value;
    }
    return headers;
  };
}

export async function loadRules(site: SiteConfig): Promise<Rules> {
  const redirectsFile = join(site.publishDir, '_redirects');
  const headersFor = await loadHeaders(site.publishDir, site.configPath);

  const parsedRedirects = await parseAllRedirects({
    redirectsFiles: existsSync(redirectsFile) ? [redirectsFile] : [],
    netlifyConfigPath: site.configPath,
    configRedirects: [],
    minimal: false,
  });
  failOn(parsedRedirects.errors, '_redirects');
  // The engine reads the same files itself; it is only made when there is a rule to match.
  // (Being made for `netlify dev`, it skips one rule: the single-page-app fallback
  // `/* /index.html 200`, which this multi-page site does not have.)
  const redirects =
    parsedRedirects.redirects.length > 0
      ? new RedirectsHandler({
          configPath: site.configPath,
          configRedirects: [],
          jwtRoleClaim: '',
          jwtSecret: '',
          projectDir: site.publishDir,
          publicDir: site.publishDir,
        })
      : undefined;
  if (redirects) console.log(`Redirect rules: ${parsedRedirects.redirects.length}`);

  return {
    hasRedirects: redirects !== undefined,
    headersFor,
    async redirectFor(request) {
      if (!redirects) return undefined;
      try {
        return await redirects.match(request);
      } catch {
        // The engine's "force 404" rules build an invalid URL (new URL('')): a 404 is meant.
        return { force: true, statusCode: 404 } as RedirectMatch;
      }
    },
  };
}
