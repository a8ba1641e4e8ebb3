/**
 * The booking's pages, each the built page of the site with the function's part filled in
 * (platform/built-pages.ts): /consultation with the slots free now, and the manage page (also the
 * confirmation after a booking sent without script, and the answer to a slot taken meanwhile).
 *
 * Caching: /consultation is the same for everyone, so a shared cache may keep it for 45 seconds
 * and serve it 15 more while it asks again (Netlify's CDN reads `Netlify-CDN-Cache-Control`,
 * other CDNs `CDN-Cache-Control`); browsers always ask again. The slots are so never more than a
 * minute old, and a booking is always checked against the database itself. A page about one
 * booking is personal (platform/page-parts.ts PERSONAL).
 */
import type { OfferedSlot } from '../../shared/booking/form';
import { PAGES } from '../../shared/site-paths';
import { builtPage, fillPage, pageAnswer } from '../platform/built-pages';
import { escapeHtml } from '../../shared/html';
import { PERSONAL } from '../platform/page-parts';
import { siteFacts } from '../platform/site-facts';
import type { OfferOptions } from './offer';
import { offeredSlots } from './offer';
import { bookingSlots, takenView, type ManageView } from './views';

const SHARED_FOR_A_MINUTE = 'public, durable, s-maxage=45, stale-while-revalidate=15';

export const SHARED_CACHE: Readonly<Record<string, string>> = {
  'cache-control': 'public, max-age=0, must-revalidate',
  'netlify-cdn-cache-control': SHARED_FOR_A_MINUTE,
  'cdn-cache-control': 'public, s-maxage=45, stale-while-revalidate=15',
};

/** /consultation with the slots free now. */
export async function bookingPage(req: Request, options: OfferOptions = {}): Promise<Response> {
  const days = await offeredSlots(options);
  const html = fillPage(builtPage('consultation.html'), {
    'consultation-slots': bookingSlots(days),
  });
  return pageAnswer(req, PAGES.consultation, html, { headers: SHARED_CACHE });
}

/** A page about one booking (or none), in the site's layout; personal, never cached. */
export function personalPage(req: Request, view: ManageView, status = 200): Promise<Response> {
  const title = `${escapeHtml(view.title)} | ${escapeHtml(siteFacts().name)}`;
  const html = fillPage(builtPage('consultation/manage.html'), { page: view.html }, title);
  return pageAnswer(req, PAGES.manage, html, { status, headers: PERSONAL });
}

/** The answer to a booking sent without script whose slot was taken: the nearest free ones. */
export function takenPage(
  nearest: OfferedSlot[],
  typed: Record<string, unknown>,
  req: Request,
): Promise<Response> {
  return personalPage(req, takenView(nearest, typed), 409);
}

/** /consultation when the slots cannot be read (the database is down): it says so, uncached. */
export function unavailablePage(req: Request): Promise<Response> {
  const { email } = siteFacts();
  const words = `The free times cannot be shown just now. Please try again in a minute, or write to <a class="font-semibold text-sage-800 underline underline-offset-4" href="mailto:${escapeHtml(email)}">${escapeHtml(email)}</a>.`;
  const html = fillPage(builtPage('consultation.html'), {
    'consultation-slots': `<p role="alert" class="rounded-xl border border-clay-600 bg-sand-100 p-4 text-ink">${words}</p>`,
  });
  return pageAnswer(req, PAGES.consultation, html, {
    status: 503,
    headers: { 'cache-control': 'no-store', 'retry-after': '30' },
  });
}
