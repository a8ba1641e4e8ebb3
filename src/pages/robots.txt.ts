import type { APIRoute } from 'astro';

// The records desk (/records, /records/sign-in) and the content editor (/admin) are the studio's
// own: no crawler belongs there.
// (Its pages say noindex too; robots.txt only asks, and names the path to anyone who reads it,
// which is why the desk's safety is its sign-in, not its address.)
export const GET: APIRoute = ({ site }) =>
  new Response(
    `User-agent: *\nAllow: /\nDisallow: /records\nDisallow: /admin\n\nSitemap: ${new URL('/sitemap-index.xml', site)}\n`,
    { headers: { 'content-type': 'text/plain; charset=utf-8' } },
  );
