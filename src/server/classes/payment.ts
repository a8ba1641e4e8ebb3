/**
 * A place in a class paid online, when the studio's Stripe keys are set (docs/payments.md), on
 * the one payment layer the sessions use (src/server/payments/): the place is taken as held
 * (`payment = 'held'` until `held_until`, content's `payOnlineHoldMinutes`) — a held place is a
 * taken place, so the constraints of class_places still refuse one too many — then Stripe Checkout
 * is opened for the class's price in content. The place is confirmed, and its mails queued, only
 * when Stripe says it is paid (`placePayable`); a checkout that lapses gives the place back (the
 * webhook's expiry, or the classes' scheduled steps) and offers it to the waitlist. A payment
 * after the hold lapsed takes a place again when one is free; otherwise it is refunded.
 */
import type { Result } from '../../shared/result';
import { PAGES } from '../../shared/site-paths';
import { fullDateLabel, timeLabel } from '../../shared/time-format';
import { openHeldCheckout, payOnline } from '../payments/checkout';
import { stripeAccount, type StripeAccount } from '../payments/stripe';
import type { Payable } from '../payments/webhook';
import { now } from '../platform/clock';
import type { Queryable } from '../platform/db';
import type { Problem } from '../request/responses';
import type { FormOutbox } from '../request/steps';
import { offerFreePlaces, placeMails, type ClassMailKind, type ClassOutbox } from './engine';
import { classSettings } from './settings';
import {
  loadClassDate,
  loadPlace,
  mailRef,
  placeBySubmission,
  markPlacePaid,
  dropPlaceHold,
  retakePlacePaid,
  placeToken,
  unclaimPlace,
  type ClassDate,
  type Place,
} from './store';

/**
 * Gives back a place whose checkout lapsed or could not open, and offers it to the
 * people waiting: the offers' mails (none when it held no place).
 */
export async function releasePlaceHold(
  tx: Queryable,
  placeId: string,
  outbox: ClassOutbox,
): Promise<string[]> {
  const dateId = await dropPlaceHold(tx, placeId);
  return dateId ? offerFreePlaces(tx, dateId, outbox) : [];
}

/** The class's side of a payment settling, queuing its mails in `outbox`. */
export const placePayable = (
  outbox: FormOutbox<ClassMailKind | 'payment-refunded' | 'payment-mismatch' | 'refund-refused'>,
): Payable => ({
  async confirm(tx, id) {
    const { rows } = await tx.query(
      'SELECT class_date_id, payment, status FROM class_places WHERE id = $1 FOR UPDATE',
      [id],
    );
    const place = rows[0] as { class_date_id: string; payment: string; status: string } | undefined;
    if (!place) return { outcome: 'taken', mails: [] };
    if (place.payment === 'paid') return { outcome: 'already', mails: [] };
    // The class date is locked as a booking locks it: never beside its cutoff's count.
    await tx.query('SELECT 1 FROM class_dates WHERE id = $1 FOR SHARE', [place.class_date_id]);
    const date = (await loadClassDate(place.class_date_id, tx))!;
    const paid =
      (await markPlacePaid(tx, id)) ||
      (place.status === 'lapsed' &&
        !date.cancelledAt &&
        date.start > now() &&
        (await retakePlacePaid(tx, id, date)) === true);
    if (!paid) return { outcome: 'taken', mails: [] };
    const mails: string[] = [];
    for (const mail of [
      ...placeMails(id, date.start),
      // The studio's invite of the class date, when no place booked before this one queued it.
      { kind: 'class-calendar' as const, ref: mailRef(date.id, 0) },
    ]) {
      const notBefore = 'notBefore' in mail ? mail.notBefore : undefined;
      const queued = await outbox.enqueue(tx, mail.kind, mail.ref, { notBefore });
      if (queued && !notBefore) mails.push(queued);
    }
    return { outcome: 'confirmed', mails };
  },

  release: (tx, id) => releasePlaceHold(tx, id, outbox),

  async tellRefunded(tx, refund, placeId) {
    // The ref starts with the place's id, as every mail about a place does (an erasure finds it).
    const queued = await outbox.enqueue(tx, 'payment-refunded', `${placeId}:refund-${refund.id}`);
    return queued ? [queued] : [];
  },

  async tellStudioMismatch(tx, refund, placeId) {
    const queued = await outbox.enqueue(tx, 'payment-mismatch', `${placeId}:refund-${refund.id}`);
    return queued ? [queued] : [];
  },
});

/**
 * Opens Stripe Checkout for a held place, for its class's price: where to send the visitor (a
 * repeated submission gets the same checkout). Stripe down: the hold is given back — a claimed
 * offer is offered again, as it was — and a 503 says so in words.
 */
export function openPlaceCheckout(
  account: StripeAccount,
  place: Place,
  date: ClassDate,
  outbox: ClassOutbox,
  { claimed = false } = {},
): Promise<Result<string, Problem>> {
  const manage = `${place.origin}${PAGES.classManage}?token=${placeToken(place)}`;
  const { timeZone } = classSettings();
  return openHeldCheckout(
    account,
    {
      kind: 'place',
      bookingId: place.id,
      heldUntil: place.heldUntil!,
      description: `${date.title}, ${fullDateLabel(date.start, timeZone)}, ${timeLabel(date.start, timeZone)}`,
      amountCents: date.priceCents,
      email: place.email,
      successUrl: `${manage}&paid=1`,
      cancelUrl: manage,
    },
    (tx) => (claimed ? unclaimPlace(tx, place.id) : releasePlaceHold(tx, place.id, outbox)),
  );
}

/** Whether a stored place still waits for its payment (a repeat of it opens its checkout). */
export const awaitsPayment = (place: Place) =>
  place.payment === 'held' && place.status === 'booked';

/**
 * The checkout of a place booked (by `stored`, or, for a repeat, by its submission id) that waits
 * for its payment, with the studio's Stripe keys set; `undefined` when it waits for none.
 */
export async function placeCheckout(
  stored: { id: string | undefined; place?: Place },
  submissionId: string,
  outbox: ClassOutbox,
): Promise<Result<string, Problem> | undefined> {
  // Without the studio's keys nothing waits for a payment: no place is read back.
  if (!stripeAccount()) return undefined;
  const place =
    stored.place ?? (await (stored.id ? loadPlace(stored.id) : placeBySubmission(submissionId)));
  if (!place || !awaitsPayment(place)) return undefined;
  const date = await loadClassDate(place.classDateId);
  const account = date && payOnline(date.priceCents);
  return account ? openPlaceCheckout(account, place, date, outbox) : undefined;
}
