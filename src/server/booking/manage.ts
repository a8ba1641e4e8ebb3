/**
 * The manage page of a booking (the link in every mail about it): a GET shows it and changes
 * nothing, since mail scanners open every link; a POST moves it ("choose another time") or
 * cancels it, and a POST repeated changes nothing more. Each change is one transaction that also
 * queues its mails (the new invite and reminder after a move; the cancellations after a cancel),
 * and the answer is a 303 back to the page, which then shows the booking as it now is.
 *
 * The page itself is src/pages/consultation/manage.astro (rendered on demand): these return
 * either what it shows (`page`, with its status) or an answer of their own (a 303, a refusal).
 */
import { slotSchema } from '../../shared/booking/form';
import { isToken } from '../platform/tokens';
import type { Outbox } from '../platform/outbox';
import { now } from '../platform/clock';
import { transaction } from '../platform/db';
import { queue } from '../request/steps';
import { afterAnswer, guardPost, type FunctionContext } from '../request/guard';
import { refusalOf, seeOther, type Refused } from '../request/pages';
import { readSetting } from '../platform/settings';
import { siteFacts } from '../platform/site-facts';
import { bookingMails, type BookingMailKind } from './appointment-mail';
import { checkSlot, nearestTo, offeredSlots } from './offer';
import {
  bookingByToken,
  cancelBooking,
  isSlotTaken,
  mailRef,
  moveBooking,
  type Booking,
} from './store';
import {
  manageModel,
  repeatModel,
  unknownLinkModel,
  type ManageDone,
  type ManageModel,
} from './views';
import type { SlotDay } from '../../shared/booking/slots';
import { BOOKING_LABELS, bookingProblemNotice, type OfferedSlot } from '../../shared/booking/form';
import { PAGES, managePath } from '../../shared/site-paths';

const DONE = new Set<ManageDone>(['booked', 'moved', 'cancelled']);

/** What the manage page answers: the page with what it shows, or an answer of its own. */
export type ManageAnswer = { page: ManageModel; status: number } | { response: Response } | Refused;

const page = (model: ManageModel, status = 200): ManageAnswer => ({ page: model, status });

async function found(token: unknown): Promise<Booking | undefined> {
  return isToken(token) ? bookingByToken(token) : undefined;
}

/** The page of the booking, as it is now. */
async function show(
  booking: Booking,
  token: string,
  options: {
    done?: ManageDone;
    problem?: { text: string; nearest?: OfferedSlot[] };
    status?: number;
    context?: FunctionContext;
  } = {},
): Promise<ManageAnswer> {
  const at = now();
  const live = !booking.cancelledAt && booking.start.getTime() > at.getTime();
  const days = live
    ? otherTimes(
        await offeredSlots({
          except: booking.id,
          later: (work) => afterAnswer(options.context, work),
        }),
        booking,
      )
    : [];
  const problem = options.problem && {
    ...options.problem,
    nearest: options.problem.nearest?.filter((slot) => !isItsTime(slot.start, booking)),
  };
  return page(manageModel(booking, token, { now: at, days, ...options, problem }), options.status);
}

/**
 * The times a booking can move to: the free ones (its own hold set aside, so its neighbours are
 * free) other than its own time, which is not another time.
 */
function otherTimes(days: SlotDay[], booking: Booking): SlotDay[] {
  return days
    .map((day) => ({ ...day, slots: day.slots.filter((slot) => !isItsTime(slot.start, booking)) }))
    .filter((day) => day.slots.length > 0);
}

function isItsTime(start: string, booking: Booking): boolean {
  return new Date(start).getTime() === booking.start.getTime();
}

/** GET: the booking, its time and place, and the forms to move or cancel it. */
export async function showManagePage(
  req: Request,
  context?: FunctionContext,
): Promise<ManageAnswer> {
  const url = new URL(req.url);
  const token = url.searchParams.get('token');
  if (!token && url.searchParams.get('repeat') !== null) return page(repeatModel());
  const booking = await found(token);
  if (!booking || !token) return page(unknownLinkModel(), 404);
  const done = url.searchParams.get('booked') !== null ? 'booked' : url.searchParams.get('done');
  return show(booking, token, {
    done: DONE.has(done as ManageDone) ? (done as ManageDone) : undefined,
    context,
  });
}

/** The site's outbox, as far as a booking's mails go (the function passes it in). */
export type BookingOutbox = Pick<Outbox<BookingMailKind>, 'enqueue' | 'deliverNow'>;

/** POST: `action=cancel`, or `action=move` with a `slot`; then back to the page (303). */
export async function changeBooking(
  req: Request,
  context: FunctionContext | undefined,
  outbox: BookingOutbox,
): Promise<ManageAnswer> {
  const guarded = await guardPost(req, context, {
    form: 'booking',
    maxBytes: 8 * 1024,
    rateLimit: readSetting('BOOKING_RATE_LIMIT'),
  });
  if (!guarded.ok) {
    return refusalOf({
      problem: guarded.problem,
      words: bookingProblemNotice(guarded.problem, siteFacts().email),
      labels: BOOKING_LABELS,
      formPage: { href: PAGES.consultation, label: 'Return to the free times' },
    });
  }
  const { body } = guarded.value;
  const token = body.token;
  const booking = await found(token);
  if (!booking || typeof token !== 'string') return page(unknownLinkModel(), 404);
  const back = (done?: ManageDone): ManageAnswer => ({
    response: seeOther(`${managePath(token)}${done ? `&done=${done}` : ''}`),
  });

  if (body.action === 'cancel') {
    const ids = await transaction(async (tx) => {
      const sequence = await cancelBooking(tx, booking.id, 'visitor');
      if (sequence === undefined) return [];
      const ref = mailRef(booking.id, sequence);
      return queue(tx, outbox, [
        { kind: 'booking-cancel-visitor', ref },
        { kind: 'booking-cancel-studio', ref },
      ]);
    });
    if (ids.length > 0) await afterAnswer(context, outbox.deliverNow(ids));
    return back('cancelled');
  }

  if (body.action !== 'move') {
    return show(booking, token, {
      status: 400,
      problem: { text: 'The form could not be read. Please reload the page and try again.' },
      context,
    });
  }
  const slot = slotSchema.safeParse(body.slot);
  if (!slot.success) {
    return show(booking, token, {
      status: 422,
      problem: { text: slot.error.issues[0]?.message ?? 'Please choose a time.' },
      context,
    });
  }
  if (booking.cancelledAt || booking.start.getTime() <= now().getTime()) {
    return show(booking, token, {
      status: 409,
      problem: { text: 'This consultation can no longer be moved.' },
      context,
    });
  }
  // Its own time is not offered (a page from before, or a hand-made post): nothing to move.
  if (isItsTime(slot.data, booking)) {
    return show(booking, token, {
      status: 422,
      problem: { text: 'Please choose one of the times offered.' },
      context,
    });
  }
  const later = (work: Promise<unknown>) => afterAnswer(context, work);
  const checked = await checkSlot(slot.data, { except: booking.id, later });
  if (!checked.ok) {
    return show(booking, token, {
      status: checked.taken ? 409 : 422,
      problem: checked.taken
        ? {
            text: 'That time has just been taken. Please choose another one.',
            nearest: checked.nearest,
          }
        : { text: 'Please choose one of the times offered.' },
      context,
    });
  }
  let ids: string[];
  try {
    ids = await transaction(async (tx) => {
      const sequence = await moveBooking(tx, booking.id, checked.slot);
      if (sequence === undefined) return [];
      return queue(tx, outbox, bookingMails(booking.id, checked.slot.start, sequence));
    });
  } catch (error) {
    if (!isSlotTaken(error)) throw error;
    return show(booking, token, {
      status: 409,
      problem: {
        text: 'That time has just been taken. Please choose another one.',
        nearest: await nearestTo(slot.data, { except: booking.id }),
      },
      context,
    });
  }
  if (ids.length > 0) await afterAnswer(context, outbox.deliverNow(ids));
  return back(ids.length > 0 ? 'moved' : undefined);
}
