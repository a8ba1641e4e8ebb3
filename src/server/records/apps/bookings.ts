/**
 * Bookings (under /bookings): consultations, sessions and classes of today and to come, and what
 * she does with one booking (each change in the access log: ../bookings.ts). A whole class date
 * is ./classes.ts.
 */
import { Hono } from 'hono';
import { dollars } from '../../../shared/money';
import { z } from '../../../shared/zod';
import { outbox } from '../../mail-kinds';
import { afterAnswer } from '../../request/guard';
import {
  afterChange,
  bookingsOverview,
  cancelOne,
  markNoShow,
  markPaidAtStudio,
  refundPayment,
  type Refusal,
} from '../bookings';
import { answer, body, refuse, refuseFields, signedIn, type DeskEnv } from '../router';
import { note } from './schemas';

const bookingId = z.uuid('Please choose a booking from the list.');
const payable = z.enum(['session', 'place'], 'Please choose a session or a place in a class.');
const booking = z.object({
  kind: z.enum(['consultation', 'session', 'place'], 'Please choose a booking from the list.'),
  id: bookingId,
});
const AMOUNT = 'Please write the amount in dollars, like 45 or 22.50.';
/** Dollars as she types them ("45", "$22.50"), in cents; empty: all that is left. */
const amount = z
  .string(AMOUNT)
  .trim()
  .optional()
  .transform((text) => text || undefined)
  .pipe(
    z
      .string()
      .regex(/^\$?\d{1,6}(\.\d{1,2})?$/, AMOUNT)
      .transform((text) => Math.round(Number(text.replace('$', '')) * 100))
      .refine(
        (cents) => cents > 0,
        'Please write an amount above $0, or leave it empty for all of it.',
      )
      .optional(),
  );

/** What the desk says when an action on one booking changes nothing. */
export const BOOKING_REFUSALS: Record<Refusal, [404 | 409, string]> = {
  missing: [404, 'There is no such booking (it may have been erased).'],
  'already-paid': [409, 'That booking is marked paid already.'],
  paying: [
    409,
    'That person is paying online right now: the booking shows as paid once the payment comes through.',
  ],
  cancelled: [409, 'That booking is cancelled already.'],
  'not-begun': [409, 'A booking can be marked a no-show once its time has begun.'],
  over: [409, 'That booking is over, so it can no longer be cancelled.'],
  'not-paid-online': [
    409,
    'That booking was not paid online, so there is nothing to refund here. Give back money paid at the studio as it was paid.',
  ],
  refunded: [409, 'That payment has been refunded in full already.'],
  'too-much': [409, 'That is more than is left to refund.'],
  'stripe-refused': [
    409,
    'Stripe would not make this refund, so nothing was refunded. Refund it again later, or give the money back another way.',
  ],
  'not-paid-studio': [
    409,
    'That booking is not marked paid at the studio, so there is nothing to take back. A payment made online is refunded instead.',
  ],
};

/** Stripe's refusal of a refund, with Stripe's own words when it gave some. */
const stripeRefused = (words: string | undefined) =>
  words
    ? `Stripe would not make this refund, so nothing was refunded (Stripe said: “${words}”). Refund it again later, or give the money back another way.`
    : BOOKING_REFUSALS['stripe-refused'][1];

export const bookings = new Hono<DeskEnv>()
  .get('/', signedIn(), async (c) => answer(c, await bookingsOverview()))
  .post(
    '/paid',
    signedIn(),
    body(
      z.object({
        kind: payable,
        id: bookingId,
        // Left out: paid. False takes back a mark made by mistake.
        paid: z.boolean('Please say whether they paid.').default(true),
      }),
    ),
    async (c) => {
      const { kind, id, paid } = c.req.valid('json');
      const outcome = await markPaidAtStudio(c.var.staff, kind, id, paid);
      if (!outcome.ok) return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      return answer(c, { id, paid });
    },
  )
  .post(
    '/no-show',
    signedIn(),
    body(
      z.object({
        kind: payable,
        id: bookingId,
        noShow: z.boolean('Please say whether they came.'),
      }),
    ),
    async (c) => {
      const { kind, id, noShow } = c.req.valid('json');
      const outcome = await markNoShow(c.var.staff, kind, id, noShow);
      if (!outcome.ok) return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      return answer(c, { id, noShow });
    },
  )
  .post('/cancel', signedIn(), body(booking.extend({ note })), async (c) => {
    const { kind, id, note } = c.req.valid('json');
    const outcome = await cancelOne(c.var.staff, kind, id, note);
    if (!outcome.ok) return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
    await afterAnswer(c.env?.context, afterChange(outcome));
    return answer(c, {
      id,
      cancelled: true,
      refundedCents: outcome.refunds.reduce((sum, r) => sum + r.amountCents, 0),
    });
  })
  .post(
    '/refund',
    signedIn(),
    body(
      z.object({
        kind: payable,
        id: bookingId,
        amount,
        request: z.uuid('Please reload the page and press Refund again.'),
      }),
    ),
    async (c) => {
      const { kind, id, amount: cents, request } = c.req.valid('json');
      const outcome = await refundPayment(c.var.staff, kind, id, cents, request);
      if (!outcome.ok) {
        if (outcome.why === 'too-much' && outcome.most !== undefined) {
          return refuseFields(c, {
            amount: `At most ${dollars(outcome.most)} is left to refund.`,
          });
        }
        if (outcome.why === 'stripe-refused') return refuse(c, 409, stripeRefused(outcome.words));
        return refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      }
      if (outcome.mails.length > 0) {
        await afterAnswer(c.env?.context, outbox.deliverNow(outcome.mails));
      }
      return answer(c, {
        id,
        refundedCents: outcome.refund.amountCents,
        confirmed: outcome.confirmed,
      });
    },
  );
