/**
 * A request's path, normalised once before anything routes it, and refused when it is written
 * in a way no page of the site ever is.
 *
 * Why refuse rather than tidy up: `//evil.example/..%2fabout/` named `about.html` once decoded,
 * and the slash-removing redirect answered `Location: //evil.example/..%2fabout`, which a browser
 * follows to another site; `//_headers` and `/.%2f_headers` reached a file that is never served,
 * and `//records` the desk's page without its `_headers` rules. Netlify's CDN merges repeated
 * slashes; here a path with an empty segment, an encoded slash or backslash, a control character
 * or a dot segment is simply not found (404), which no link of the site can produce.
 *
 * What passes is used for everything after: the file looked up, the `_headers` rules applied
 * (to the decoded path, so `/r%65cords` gets the desk's rules), and every `Location` built.
 */

/** A path that passed: as the URL wrote it (percent-encoded), and decoded. */
export interface RequestPath {
  /** Percent-encoded, as in the request's URL: what a `Location` is built from. */
  encoded: string;
  /** Decoded once: what names a file and what the `_headers` rules are matched against. */
  decoded: string;
}

const ENCODED_SEPARATOR = /%(2f|5c|00)/i;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `pathname` (a WHATWG URL's, so `.` and `..` segments are already resolved) normalised, or
 * `undefined` when it must be refused.
 */
export function normalPath(pathname: string): RequestPath | undefined {
  if (!pathname.startsWith('/') || ENCODED_SEPARATOR.test(pathname)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('//') || decoded.includes('\\') || CONTROL.test(decoded)) return undefined;
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..')) return undefined;
  return { encoded: pathname, decoded };
}
