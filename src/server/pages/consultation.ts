/**
 * What the pages about the consultation, rendered on demand (src/pages/consultation.astro and
 * consultation/manage.astro), ask of the server: the one door from src/pages into src/server
 * (eslint.config.js).
 */
import type { Context } from '@netlify/functions';
import { BOOKING_LABELS, bookingProblemNotice } from '../../shared/booking/form';
import type { SlotDay } from '../../shared/booking/slots';
import { changeBooking, showManagePage, type ManageAnswer } from '../booking/manage';
import { offeredSlots } from '../booking/offer';
import { takenAnswer, type TakenAnswer } from '../booking/taken';
import { outbox } from '../mail-kinds';
import { PERSONAL } from '../platform/on-demand';
import { siteFacts } from '../platform/site-facts';
import { afterAnswer } from '../request/guard';
import { linkFault } from '../request/link-function';
import { methodNotAllowed } from '../request/responses';

export { methodNotAllowed, PERSONAL };
export type { ManageModel } from '../booking/views';

/** The slots free right now; a stale calendar is read again after the answer, on Netlify. */
export function freeSlotsNow(context: Context | undefined): Promise<SlotDay[]> {
  return offeredSlots({ later: (work) => afterAnswer(context, work) });
}

const MANAGE = '/consultation/manage';

/** The fault page of the consultation's pages, in the booking's words. */
const consultationFault = (error: unknown, path: string) =>
  linkFault(path, error, ({ outage, status, headers }) => {
    const problem = {
      status,
      error: outage
        ? 'Your consultation cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers,
    };
    return {
      problem,
      words: {
        ...bookingProblemNotice(problem, siteFacts().email),
        title: 'Your consultation cannot be opened just now',
      },
      labels: BOOKING_LABELS,
      formPage: { href: '/consultation', label: 'Return to the free times' },
    };
  });

/**
 * /consultation/taken: a booking sent without script whose slot was taken meanwhile, sent again
 * here by the browser (a 307 from the booking function): the nearest free slots, and what was
 * typed, to keep in the page's form.
 */
export async function takenPage(request: Request): Promise<TakenAnswer> {
  try {
    return await takenAnswer(request);
  } catch (error) {
    return consultationFault(error, '/consultation/taken');
  }
}

/**
 * The page of one booking, opened from the link in its mails (`?token=`): GET shows it and
 * changes nothing (mail scanners open links); POST moves it to another free slot or cancels it.
 * Anything else is 405; a fault is logged by name only and answered with a page saying so.
 */
export async function manageAnswer(
  request: Request,
  context: Context | undefined,
): Promise<ManageAnswer> {
  try {
    if (request.method === 'POST') return await changeBooking(request, context, outbox);
    if (request.method === 'GET' || request.method === 'HEAD') {
      return await showManagePage(request, context);
    }
    return { response: methodNotAllowed('GET, HEAD, POST') };
  } catch (error) {
    return consultationFault(error, MANAGE);
  }
}
