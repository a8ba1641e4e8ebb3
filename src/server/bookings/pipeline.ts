/**
 * The one pipeline every kind of booking is made by, in the same order (functions/book-*.ts):
 *
 *   guard (request/guard.ts: POST, origin, format, size, rate) → parse (the form's schema, 422)
 *   → repeat (a submission id already booked: answered from its row, 409 when its fields differ)
 *   → check (the kind's own: the time or the place free now, the caps; 409 or 422)
 *   → store (one transaction: the row, returned as stored, and its mails; held instead when paid
 *     online) → deliver the mails after the answer
 *   → pay (a booking that waits for its payment: Stripe Checkout) or answer.
 *
 * A kind says what each step means for it (`BookingFlow`); the function is what `bookingFunction`
 * makes of that. A refusal is answered in the visitor's words, as JSON or a page for a post
 * without script (`NoScript`); a fault is 503 (database down, nothing stored) or 500.
 */
import type { z } from 'zod';
import type { FormName } from '../../shared/form-answer';
import type { Result } from '../../shared/result';
import { answerCheckout, holdUntil, payOnline } from '../payments/checkout';
import { readSetting } from '../platform/settings';
import { guardPost, type FunctionContext } from '../request/guard';
import type { Problem } from '../request/responses';
import {
  deliver,
  fault,
  parse,
  receive,
  refuse,
  type FormOutbox,
  type NoScript,
  type Received,
} from '../request/steps';

/** A form's fields, and the submission id the browser made for them (if it ran). */
type Fields = z.ZodType<{ submissionId?: string; [field: string]: unknown }>;

export interface BookingFlow<Schema extends Fields, Checked, Booked> {
  form: FormName;
  /** The largest body the form can send. */
  maxBytes: number;
  schema: Schema;
  noScript: NoScript;
  /** The outbox its mails are queued in, delivered after the answer. */
  outbox: Pick<FormOutbox<string>, 'deliverNow'>;
  /** A submission id already booked: what it booked; `undefined` for a new one. */
  repeat(received: Received): Promise<Result<Booked | undefined, Problem>>;
  /** The kind's checks of a new booking: what it will store. */
  check(request: z.output<Schema>, received: Received): Promise<Result<Checked, Problem>>;
  /** What it costs when paid online (none: never paid online). */
  price?(checked: Checked): number;
  /** Stores it and queues its mails; held until `holdUntil` while the visitor pays. */
  store(
    request: z.output<Schema>,
    received: Received,
    checked: Checked,
    holdUntil: Date | undefined,
  ): Promise<Result<Booked, Problem>>;
  /** The mails it queued, to deliver now (none for a repeat). */
  queued(booked: Booked): string[];
  /** The checkout of one that waits for its payment (a repeat's too); `undefined` when none. */
  checkout?(booked: Booked, received: Received): Promise<Result<string, Problem> | undefined>;
  answer(booked: Booked, received: Received): Response | Promise<Response>;
}

export function bookingFunction<Schema extends Fields, Checked, Booked>(
  flow: BookingFlow<Schema, Checked, Booked>,
) {
  return async function book(req: Request, context?: FunctionContext): Promise<Response> {
    const refusal = (problem: Problem) => refuse(req, problem, flow.noScript);
    try {
      const posted = await guardPost(req, context, {
        form: flow.form,
        maxBytes: flow.maxBytes,
        rateLimit: readSetting('BOOKING_RATE_LIMIT'),
      });
      if (!posted.ok) return await refusal(posted.problem);
      const { body } = posted.value;
      const request = parse(flow.schema, body);
      if (!request.ok) return await refusal(request.problem);
      const received = receive(flow.form, posted.value, body, request.value, context);
      const repeat = await flow.repeat(received);
      if (!repeat.ok) return await refusal(repeat.problem);
      let booked = repeat.value;
      if (booked === undefined) {
        const checked = await flow.check(request.value, received);
        if (!checked.ok) return await refusal(checked.problem);
        const price = flow.price?.(checked.value);
        // Spam is kept for the desk, never held for a payment nor sent to Stripe.
        const paid = price !== undefined && payOnline(price) && !received.spam;
        const stored = await flow.store(
          request.value,
          received,
          checked.value,
          paid ? holdUntil() : undefined,
        );
        if (!stored.ok) return await refusal(stored.problem);
        booked = stored.value;
        await deliver(context, flow.outbox, flow.queued(booked));
      }
      const checkout = await flow.checkout?.(booked, received);
      if (!checkout) return await flow.answer(booked, received);
      if (!checkout.ok) return await refusal(checkout.problem);
      // Paid online: it is held, and the visitor goes to Stripe's page to pay for it.
      return answerCheckout(received, checkout.value);
    } catch (error) {
      return refusal(fault(flow.form, error));
    }
  };
}
