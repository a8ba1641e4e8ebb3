import type { Config } from '@netlify/functions';
import { BOOKING_LABELS, bookingProblemNotice, bookingSchema } from '../src/shared/booking/form';
import { answerBooking, checkBooking, findRepeat, storeBooking } from '../src/server/booking/book';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { siteFacts } from '../src/server/platform/site-facts';
import { guardPost, type FunctionContext } from '../src/server/request/guard';
import { sendFormTo } from '../src/server/request/pages';
import { deliver, fault, parse, receive, refuse, type NoScript } from '../src/server/request/steps';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/api/consultation/book' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.consultation, label: 'Return to the free times' },
  labels: BOOKING_LABELS,
  words: (problem) => bookingProblemNotice(problem, siteFacts().email),
  // A slot taken meanwhile: the browser sends the form again to the page that offers the nearest
  // free ones and keeps what was typed (src/pages/consultation/taken.astro).
  page: (problem) =>
    problem.status === 409 && Array.isArray(problem.details?.nearest)
      ? sendFormTo(PAGES.consultationTaken)
      : undefined,
};

/**
 * The booking form of /consultation: a free slot and the visitor's name and address in, the
 * booking stored (Postgres refuses a slot already held), the invites to the visitor and the
 * studio queued with it, and the reminder for a day before.
 */
export default async function bookConsultation(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'booking',
      maxBytes: 16 * 1024,
      rateLimit: readSetting('BOOKING_RATE_LIMIT'),
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const { body } = posted.value;
    const request = parse(bookingSchema, body);
    if (!request.ok) return await refuse(req, request.problem, NO_SCRIPT);
    const received = receive('booking', posted.value, body, request.value, context);
    const repeat = await findRepeat(received);
    if (!repeat.ok) return await refuse(req, repeat.problem, NO_SCRIPT);
    if (repeat.value) return answerBooking(repeat.value, received);
    const slot = await checkBooking(request.value, received);
    if (!slot.ok) return await refuse(req, slot.problem, NO_SCRIPT);
    const booked = await storeBooking(outbox, request.value, received, slot.value);
    if (!booked.ok) return await refuse(req, booked.problem, NO_SCRIPT);
    if (!booked.value.repeat) await deliver(context, outbox, booked.value.queued);
    return answerBooking(booked.value, received);
  } catch (error) {
    return refuse(req, fault('booking', error), NO_SCRIPT);
  }
}
