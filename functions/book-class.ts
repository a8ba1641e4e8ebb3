import type { Config } from '@netlify/functions';
import { CLASS_LABELS, classBookingSchema, classProblemNotice } from '../src/shared/classes/form';
import { PAGES } from '../src/shared/site-paths';
import { answerPlace, storePlace } from '../src/server/classes/book';
import { checkClassBooking } from '../src/server/classes/engine';
import { awaitsPayment, openPlaceCheckout } from '../src/server/classes/payment';
import { loadClassDate, loadPlace, placeBySubmission } from '../src/server/classes/store';
import { answerCheckout, holdUntil, payOnline } from '../src/server/payments/checkout';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { siteFacts } from '../src/server/platform/site-facts';
import { guardPost, type FunctionContext } from '../src/server/request/guard';
import { deliver, fault, parse, receive, refuse, type NoScript } from '../src/server/request/steps';

export const config: Config = { path: '/api/classes/book' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.classes, label: 'Return to the classes' },
  labels: CLASS_LABELS,
  words: (problem) => classProblemNotice(problem, siteFacts().email),
};

/**
 * A place in a small group class: the class (from the timetable in content, its price compared
 * with the price the page showed), the person; the place stored (Postgres refuses one too many),
 * the confirmation with its invite and the studio's notice queued with it. With the studio's
 * Stripe keys set, the place is held instead and the visitor sent to Stripe's page to pay the
 * class's price in content (src/server/classes/payment.ts); the mails wait for the payment.
 */
export default async function bookClass(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'class',
      maxBytes: 8 * 1024,
      rateLimit: readSetting('BOOKING_RATE_LIMIT'),
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const { body } = posted.value;
    const request = parse(classBookingSchema, body);
    if (!request.ok) return await refuse(req, request.problem, NO_SCRIPT);
    const received = receive('class', posted.value, body, request.value, context);
    const chosen = await checkClassBooking(request.value);
    if (!chosen.ok) return await refuse(req, chosen.problem, NO_SCRIPT);
    const pay = payOnline(chosen.value.occurrence.priceCents);
    const hold = pay && !received.spam ? holdUntil() : undefined;
    const stored = await storePlace(outbox, request.value, received, chosen.value, hold);
    if (!stored.ok) return await refuse(req, stored.problem, NO_SCRIPT);
    await deliver(context, outbox, stored.value.queued);
    const place = pay
      ? await (stored.value.id
          ? loadPlace(stored.value.id)
          : placeBySubmission(received.submissionId))
      : undefined;
    if (!pay || !place || !awaitsPayment(place)) return await answerPlace(stored.value, received);
    // Paid online: the place is held, and the visitor goes to Stripe's page to pay for it.
    const date = (await loadClassDate(place.classDateId))!;
    const checkout = await openPlaceCheckout(pay, place, date, outbox);
    if (!checkout.ok) return await refuse(req, checkout.problem, NO_SCRIPT);
    return answerCheckout(received, checkout.value);
  } catch (error) {
    return refuse(req, fault('class', error), NO_SCRIPT);
  }
}
