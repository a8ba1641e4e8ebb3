/**
 * The answer to a booking sent without script whose slot was taken meanwhile (the nearest free
 * ones, with everything typed kept): the built page `consultation/taken.html` with the
 * function's part filled in (platform/built-pages.ts). It is answered by the booking function
 * itself (functions/book-consultation.ts), so it is not yet a page rendered on demand like the
 * manage page (src/pages/consultation/manage.astro). Personal: never cached
 * (platform/page-parts.ts PERSONAL).
 */
import type { OfferedSlot } from '../../shared/booking/form';
import { builtPage, fillPage, pageAnswer } from '../platform/built-pages';
import { escapeHtml } from '../platform/mail';
import { PERSONAL } from '../platform/page-parts';
import { siteFacts } from '../platform/site-facts';
import { takenView } from './views';

export const MANAGE_PATH = '/consultation/manage';

/** The answer to a booking sent without script whose slot was taken: the nearest free ones. */
export function takenPage(
  nearest: OfferedSlot[],
  typed: Record<string, unknown>,
  req: Request,
): Promise<Response> {
  const view = takenView(nearest, typed);
  const title = `${escapeHtml(view.title)} | ${escapeHtml(siteFacts().name)}`;
  const html = fillPage(builtPage('consultation/taken.html'), { page: view.html }, title);
  return pageAnswer(req, MANAGE_PATH, html, { status: 409, headers: PERSONAL });
}
