import type { Config } from '@netlify/functions';
import { showUnsubscribePage, unsubscribeFromLink } from '../src/server/notify/pages';
import { linkFunction } from '../src/server/notify/link-function';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/notify/unsubscribe' };

/**
 * The unsubscribe link of every list mail: GET asks and changes nothing; POST (the page's button,
 * or a mail client's RFC 8058 one-click) unsubscribes at once.
 */
export default linkFunction(PAGES.notifyUnsubscribe, {
  GET: (req) => showUnsubscribePage(req),
  POST: (req) => unsubscribeFromLink(req),
});
