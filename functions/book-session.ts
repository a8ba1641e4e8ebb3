import type { Config } from '@netlify/functions';
import {
  SESSION_LABELS,
  SESSION_NOTICES,
  sessionBookingSchema,
} from '../src/shared/booking/session-form';
import { FIX_BELOW } from '../src/shared/form-answer';
import { PAGES } from '../src/shared/site-paths';
import {
  answerSession,
  checkSession,
  checkSessionType,
  findSessionRepeat,
  storeSession,
} from '../src/server/booking/session-book';
import { awaitsPayment, openSessionCheckout } from '../src/server/booking/session-checkout';
import { answerCheckout, holdUntil, payOnline } from '../src/server/payments/checkout';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { siteFacts } from '../src/server/platform/site-facts';
import { guardPost, type FunctionContext } from '../src/server/request/guard';
import { deliver, fault, parse, receive, refuse, type NoScript } from '../src/server/request/steps';

export const config: Config = { path: '/api/book-session' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.services, label: 'Return to the sessions' },
  labels: SESSION_LABELS,
  words: (problem) => ({
    title: SESSION_NOTICES.failed.title,
    text: problem.fieldErrors ? FIX_BELOW : problem.error,
    fallback: SESSION_NOTICES.failed.fallback(siteFacts().email),
  }),
};

/**
 * The booking form of a private or in-home session (/book/<type>): the session type, a free
 * time, the visitor's name and address (and where, for a session at their home) in; the price
 * taken from content alone (a posted price that differs, or an unknown type: 422, nothing
 * stored); the booking stored (Postgres refuses time any booking already holds) with the invites
 * to the visitor and the studio queued in the same transaction, and the reminder for a day before.
 */
export default async function bookSession(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'session',
      maxBytes: 16 * 1024,
      rateLimit: readSetting('BOOKING_RATE_LIMIT'),
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const { body } = posted.value;
    const request = parse(sessionBookingSchema, body);
    if (!request.ok) return await refuse(req, request.problem, NO_SCRIPT);
    const received = receive('session', posted.value, body, request.value, context);
    const type = checkSessionType(request.value);
    if (!type.ok) return await refuse(req, type.problem, NO_SCRIPT);
    const pay = payOnline(type.value.price);
    const repeat = await findSessionRepeat(received);
    if (!repeat.ok) return await refuse(req, repeat.problem, NO_SCRIPT);
    let booked = repeat.value;
    if (!booked) {
      const slot = await checkSession(request.value, received, type.value);
      if (!slot.ok) return await refuse(req, slot.problem, NO_SCRIPT);
      const hold = pay && !received.spam ? holdUntil() : undefined;
      const stored = await storeSession(
        outbox,
        request.value,
        received,
        type.value,
        slot.value,
        hold,
      );
      if (!stored.ok) return await refuse(req, stored.problem, NO_SCRIPT);
      booked = stored.value;
      if (!booked.repeat) await deliver(context, outbox, booked.queued);
    }
    if (!pay || !awaitsPayment(booked.booking)) return answerSession(booked, received);
    // Paid online: the time is held, and the visitor goes to Stripe's page to pay for it.
    const checkout = await openSessionCheckout(pay, booked.booking);
    if (!checkout.ok) return await refuse(req, checkout.problem, NO_SCRIPT);
    return answerCheckout(received, checkout.value);
  } catch (error) {
    return refuse(req, fault('session', error), NO_SCRIPT);
  }
}
