/**
 * The caching of a page rendered on demand, in one place. A page of free times (/consultation,
 * /book/<type>, /classes) may be kept by a shared cache for 45 seconds and served 15 more while
 * the cache asks again (Netlify's CDN reads `Netlify-CDN-Cache-Control`, other CDNs
 * `CDN-Cache-Control`); browsers always ask again. So what a visitor sees is never more than a
 * minute old, and a booking is always checked against the database itself. A page that could not
 * read what it shows (the database is down) is kept by nobody and asks to be tried again.
 */

/** How long a shared cache may keep a page of free times, and serve it stale while it asks again. */
export const FREE_TIMES_CACHE = { seconds: 45, staleSeconds: 15 } as const;

/** A page a shared cache may keep for a while; browsers always ask again. */
export function publicCache(
  headers: Headers,
  { seconds, staleSeconds }: { seconds: number; staleSeconds: number } = FREE_TIMES_CACHE,
): void {
  const shared = `s-maxage=${seconds}, stale-while-revalidate=${staleSeconds}`;
  headers.set('cache-control', 'public, max-age=0, must-revalidate');
  headers.set('netlify-cdn-cache-control', `public, durable, ${shared}`);
  headers.set('cdn-cache-control', `public, ${shared}`);
}

/** A page that could not be made now: stored by nobody, to be tried again in a while. */
export function unavailableNow(headers: Headers, retryAfterSeconds = 30): void {
  headers.set('cache-control', 'no-store');
  headers.set('retry-after', String(retryAfterSeconds));
}
