/**
 * The page a booking sent without script lands on when its slot was taken between loading and
 * sending (src/pages/consultation/taken.astro): the booking function answers such a post with a
 * `307` here (request/pages.ts `sendFormTo`), so the browser sends the same form again to this
 * page. What was typed comes in that body, never in an address; the page offers the nearest free
 * slots in a form that keeps it. It books nothing: its form posts to the booking function again.
 */
import { BOOKING_FIELDS, slotSchema, type OfferedSlot } from '../../shared/booking/form';
import { PAGES } from '../../shared/site-paths';
import { acceptedOrigins } from '../platform/hosting';
import { seeOther, type Refused } from '../request/pages';
import { methodNotAllowed } from '../request/responses';
import { nearestTo } from './offer';

export type TypedBooking = Record<keyof typeof BOOKING_FIELDS, string>;

export type TakenAnswer =
  | { page: { nearest: OfferedSlot[]; typed: TypedBooking }; status: 409 }
  | { response: Response }
  | Refused;

/** The most a re-sent booking form can hold (the booking function's own cap). */
const MAX_BYTES = 16 * 1024;

/**
 * POST (the booking form, sent again by the browser): the nearest free slots to the one it
 * chose, and what was typed. Anything that is not that (a GET, a post from another site, a body
 * that is not a form) goes to the free times.
 */
export async function takenAnswer(req: Request): Promise<TakenAnswer> {
  if (req.method === 'GET' || req.method === 'HEAD')
    return { response: seeOther(PAGES.consultation) };
  if (req.method !== 'POST') return { response: methodNotAllowed('GET, HEAD, POST') };
  const origin = req.headers.get('origin');
  const type = req.headers.get('content-type') ?? '';
  if (
    (origin !== null && !acceptedOrigins().has(origin)) ||
    !type.startsWith('application/x-www-form-urlencoded')
  ) {
    return { response: seeOther(PAGES.consultation) };
  }
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_BYTES) return { response: seeOther(PAGES.consultation) };
  const form = new URLSearchParams(text);
  const typed = Object.fromEntries(
    Object.keys(BOOKING_FIELDS).map((name) => [name, form.get(name) ?? '']),
  ) as TypedBooking;
  const slot = slotSchema.safeParse(form.get('slot') ?? '');
  const nearest = slot.success ? await nearestTo(slot.data) : [];
  return { page: { nearest, typed }, status: 409 };
}
