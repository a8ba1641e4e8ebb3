import { publicOrigin } from './hosting';

/**
 * The site's address that links in mail point to (a booking's manage link, the waiver link):
 * its public address (`SITE_URL`, else Netlify's `URL`), and only when neither is set (a local
 * run) the address the request came to, so a forged `Host` header cannot make the studio mail a
 * link to someone else's site. The one place such links take their origin from.
 */
export function linkOrigin(req: Request): string {
  return publicOrigin() ?? new URL(req.url).origin;
}
