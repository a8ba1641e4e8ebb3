/**
 * What the pages the list's mail links open, rendered on demand (src/pages/notify/confirm.astro
 * and unsubscribe.astro), ask of the server: GET shows and changes nothing (mail scanners open
 * links), POST acts, anything else is 405; a fault is logged by name only and answered with a
 * page saying so.
 */
import type { Context } from '@netlify/functions';
import { listLinkFault } from '../list/link-function';
import {
  confirmFromPage,
  showConfirmPage,
  showUnsubscribePage,
  unsubscribeFromLink,
  type ListAnswer,
} from '../list/pages';
import { PERSONAL } from '../platform/on-demand';
import { methodNotAllowed } from '../request/responses';
import { PAGES } from '../../shared/site-paths';

export { PERSONAL };
export type { ListView } from '../list/pages';

async function answer(
  path: string,
  request: Request,
  handlers: { GET: () => Promise<ListAnswer>; POST: () => Promise<ListAnswer> },
): Promise<ListAnswer> {
  try {
    if (request.method === 'POST') return await handlers.POST();
    if (request.method === 'GET' || request.method === 'HEAD') return await handlers.GET();
    return { response: methodNotAllowed('GET, HEAD, POST') };
  } catch (error) {
    return listLinkFault(path, error);
  }
}

/** The link in a confirmation mail: GET shows it; POST confirms, once. */
export function confirmAnswer(request: Request, context: Context | undefined) {
  return answer(PAGES.listConfirm, request, {
    GET: () => showConfirmPage(request),
    POST: () => confirmFromPage(request, context),
  });
}

/** The unsubscribe link of every list mail: GET asks; POST (a button, or RFC 8058) unsubscribes. */
export function unsubscribeAnswer(request: Request) {
  return answer(PAGES.listUnsubscribe, request, {
    GET: () => showUnsubscribePage(request),
    POST: () => unsubscribeFromLink(request),
  });
}
