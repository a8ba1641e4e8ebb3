import type { Config } from '@netlify/functions';
import { confirmFromPage, showConfirmPage } from '../src/server/notify/pages';
import { linkFunction } from '../src/server/notify/link-function';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/notify/confirm' };

/** The link in a confirmation mail: GET shows it and changes nothing; POST confirms, once. */
export default linkFunction(PAGES.notifyConfirm, {
  GET: (req) => showConfirmPage(req),
  POST: (req, context) => confirmFromPage(req, context),
});
