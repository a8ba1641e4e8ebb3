/**
 * The site's icon as a `data:` address written into each page's head, so a page costs one
 * request, not two: on a slow phone the separate `/favicon.svg` request competes with the page
 * itself in its first round trips. The file stays in public/ for anything that asks for it by
 * name. The pages' Content-Security-Policy allows `img-src data:` already.
 */
import svg from '../../public/favicon.svg?raw';

/**
 * An SVG as a `data:` URL, escaped only where a URL must be (`%`, `#`, angle brackets, and `"`,
 * written as `'` so that the attribute it goes in stays closed): about half the size of
 * `encodeURIComponent`'s.
 */
export function svgDataUrl(source: string): string {
  const escaped = source
    .trim()
    .replace(/\s+/g, ' ')
    .replaceAll('"', "'")
    .replace(/[%#<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `data:image/svg+xml,${escaped}`;
}

export const FAVICON_URL = svgDataUrl(svg);
