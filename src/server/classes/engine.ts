/**
 * The small group classes: the timetable with the places left, booking a place, the waitlist of a
 * full class, and the timed steps (an offer that lapses passes to the next person; at a class's
 * cutoff no more offers, and a class below its minimum is cancelled, everyone told).
 *
 * Every change and the mails that tell of it are one transaction (the outbox's `enqueue` in the
 * caller's transaction). What the moment is comes from the studio's clock (platform/clock.ts), so
 * the tests move it and nothing waits.
 */
import { failed, ok, type Result } from '../../shared/result';
import { CLASS_NOTICES, type ClassBookingRequest } from '../../shared/classes/form';
import { now, sqlNow } from '../platform/clock';
import { query, transaction, type Queryable } from '../platform/db';
import type { Outbox } from '../platform/outbox';
import type { Problem } from '../request/responses';
import { queue } from '../request/steps';
import { refundRest, type Refund } from '../payments/store';
import {
  cutoffOf,
  holdMsOf,
  horizonOf,
  occurrenceAt,
  timetableOccurrences,
  type ClassOccurrence,
} from './occurrences';
import { classSettings, type ClassSettings } from './settings';
import {
  ClassRefusal,
  bookOfferedPlace,
  bookedCount,
  cancelPlaceRow,
  ensureClassDate,
  firstWaiting,
  joinWaitlist,
  lapsePlace,
  livePlaces,
  dropPlaceHold,
  loadClassDate,
  lockClassDate,
  mailRef,
  markOffered,
  setWaitStatus,
  storedDatesBetween,
  takePlace,
  waitEntryByClaim,
  type ClassDate,
  type Person,
  type Place,
  type RequestFacts,
} from './store';

/** The kinds of mail the classes queue (listed with their composers in src/server/mail-kinds.ts). */
export type ClassMailKind =
  | 'class-visitor'
  | 'class-reminder'
  | 'class-studio'
  | 'class-cancel-visitor'
  | 'class-calendar'
  | 'class-waitlist'
  | 'class-offer'
  | 'class-waitlist-closed';

/** The outbox the classes queue in: their own mails, and the studio's of a refund Stripe refused. */
export type ClassOutbox = Pick<Outbox<ClassMailKind | 'refund-refused'>, 'enqueue' | 'deliverNow'>;

/** The refs of a waitlist entry's mails: joined, offered a place, closed without one. */
export const WAIT_MAIL = { joined: 0, offer: 1, closed: 2 } as const;

export type ClassState = 'open' | 'full' | 'closed' | 'cancelled';

/** A class of the coming weeks as the page shows it. */
export interface ClassView {
  key: string;
  title: string;
  start: Date;
  end: Date;
  capacity: number;
  priceCents: number;
  placesLeft: number;
  /** open: places to book; full: the waitlist is open; closed: past its cutoff, or begun. */
  state: ClassState;
  /** Why a class is closed to booking or cancelled, in a visitor's words. */
  why?: string;
}

function stateOf(
  at: Date,
  start: Date,
  settings: ClassSettings,
  stored: (ClassDate & { booked: number }) | undefined,
  placesLeft: number,
): ClassState {
  if (stored?.cancelledAt) return 'cancelled';
  if (at >= start) return 'closed';
  if (at < cutoffOf(start, settings)) return placesLeft > 0 ? 'open' : 'full';
  // After the cutoff, a class that kept its minimum still takes bookings, with no waitlist.
  const running = stored?.cutOffAt && stored.booked >= stored.minimum;
  return running && placesLeft > 0 ? 'open' : 'closed';
}

/** The classes from `at` to the end of the weeks visitors can book, with the places left. */
export async function upcomingClasses(at = now()): Promise<ClassView[]> {
  const settings = classSettings();
  const horizon = horizonOf(at, settings);
  const stored = await storedDatesBetween(at, horizon);
  const byKey = new Map(stored.map((d) => [`${d.key}@${d.start.toISOString()}`, d]));
  const views: ClassView[] = [];
  for (const occurrence of timetableOccurrences(settings, at, horizon)) {
    const key = `${occurrence.key}@${occurrence.start.toISOString()}`;
    const date = byKey.get(key);
    byKey.delete(key);
    views.push(view(at, settings, date ?? occurrence, date));
  }
  // Single dates added on the desk.
  for (const date of byKey.values()) views.push(view(at, settings, date, date));
  return views.sort((a, b) => a.start.getTime() - b.start.getTime());
}

function view(
  at: Date,
  settings: ClassSettings,
  what: ClassOccurrence | ClassDate,
  stored: (ClassDate & { taken: number; booked: number }) | undefined,
): ClassView {
  const placesLeft = Math.max(0, what.capacity - (stored?.taken ?? 0));
  return {
    key: what.key,
    title: what.title,
    start: what.start,
    end: what.end,
    capacity: what.capacity,
    priceCents: what.priceCents,
    placesLeft,
    ...withWhy(at, settings, what, stored, stateOf(at, what.start, settings, stored, placesLeft)),
  };
}

/** The state of a class, and, when it cannot be booked, why, in a visitor's words. */
function withWhy(
  at: Date,
  settings: ClassSettings,
  what: ClassOccurrence | ClassDate,
  stored: (ClassDate & { taken: number }) | undefined,
  state: ClassState,
): { state: ClassState; why?: string } {
  const hours = settings.timetable.cutoffHours;
  const before = `${hours} ${hours === 1 ? 'hour' : 'hours'} before it starts`;
  if (state === 'cancelled') {
    return {
      state,
      why:
        stored?.cancelReason === 'minimum'
          ? `Fewer than ${what.minimum} people had booked ${before}, so it will not take place.`
          : 'The studio has had to cancel it.',
    };
  }
  if (state !== 'closed') return { state };
  if (at >= what.start) return { state, why: 'It has begun.' };
  return {
    state,
    why:
      stored && stored.taken >= what.capacity
        ? `It is full, and its waitlist closed ${before}.`
        : `Booking closes ${before} unless ${what.minimum} ${what.minimum === 1 ? 'person has' : 'people have'} booked by then.`,
  };
}

/** The class a form names: its stored date, or the timetable's (not stored until booked). */
export interface ChosenClass {
  occurrence: ClassOccurrence;
  dateId?: string;
  /** Set by the insert when this booking made the class date: the studio's invite is owed. */
  madeDate?: string;
}

const unprocessable = (error: string): Problem => ({
  status: 422,
  error,
  fieldErrors: { class: error },
});

/** The class a form posts (`class` and `start`), from the timetable or the desk's dates. */
async function chosenClass(
  key: string,
  start: string,
  at: Date,
): Promise<Result<ChosenClass, Problem>> {
  const settings = classSettings();
  const when = new Date(start);
  const [stored] = (await storedDatesBetween(when, new Date(when.getTime() + 1))).filter(
    (d) => d.key === key,
  );
  const occurrence = stored ?? occurrenceAt(settings, key, when);
  if (!occurrence || when >= horizonOf(at, settings)) {
    return failed(unprocessable('Please choose a class from the timetable.'));
  }
  return ok({ occurrence, ...(stored ? { dateId: stored.id } : {}) });
}

/**
 * The booking form's own check: the class is one of the timetable's, and the price the page
 * showed is its price in content (else 422, nothing stored). Whether a place is left is the
 * database's to say, in the insert.
 */
export async function checkClassBooking(
  data: ClassBookingRequest,
): Promise<Result<ChosenClass, Problem>> {
  const chosen = await chosenClass(data.class, data.start, now());
  if (!chosen.ok) return chosen;
  const { priceCents } = chosen.value.occurrence;
  if (data.price !== undefined && Math.round(data.price * 100) !== priceCents) {
    return failed({
      status: 422,
      error: CLASS_NOTICES.priceChanged,
      fieldErrors: { price: CLASS_NOTICES.priceChanged },
    });
  }
  return chosen;
}

/** The waitlist form's own check: the class is one of the timetable's. */
export const checkWaitlist = (data: { class: string; start: string }) =>
  chosenClass(data.class, data.start, now());

/**
 * The class date to book into, in the caller's transaction: made when first booked (`created`:
 * the studio's calendar invite is then owed), then held with a share lock for the rest of the
 * transaction, so the cutoff's step (which locks it to count) never runs beside a booking.
 * Refuses a class cancelled, begun, or past its cutoff below its minimum.
 */
async function dateToBook(
  tx: Queryable,
  chosen: ChosenClass,
): Promise<{ date: ClassDate; created: boolean }> {
  const made = await ensureClassDate(tx, chosen.occurrence);
  await tx.query('SELECT 1 FROM class_dates WHERE id = $1 FOR SHARE', [made.date.id]);
  const date = (await loadClassDate(made.date.id, tx))!;
  const at = now();
  const settings = classSettings();
  if (date.cancelledAt || at >= date.start) throw new ClassRefusal('closed');
  if (at >= cutoffOf(date.start, settings)) {
    const running = date.cutOffAt && (await bookedCount(tx, date.id)) >= date.minimum;
    if (!running) throw new ClassRefusal('closed');
  }
  return { date, created: made.created };
}

export type BookingReceived = RequestFacts;

/** What a booking or a waitlist request stored: its row, and the class date it made, if any. */
export interface Stored {
  id: string | undefined;
  /** The place as stored, when one was (read back by nobody). */
  place?: Place;
  /** The class date this request made (its first booking): the studio's invite is owed. */
  madeDate?: string;
}

/**
 * Books a place in the caller's transaction (classes/book.ts storePlace queues its mails); paid
 * online, its place is held until `heldUntil` (classes/payment.ts). A full class (a held place is
 * taken), or a person already booked in it, throws a `ClassRefusal`.
 */
export async function bookPlace(
  tx: Queryable,
  person: Person,
  received: BookingReceived,
  chosen: ChosenClass,
  heldUntil?: Date,
): Promise<Stored> {
  const { date, created } = await dateToBook(tx, chosen);
  const taken = await takePlace(tx, date, person, {
    status: received.spam ? 'spam' : 'booked',
    received,
    origin: received.origin,
    heldUntil,
  });
  if (taken === 'full' || taken === 'already') throw new ClassRefusal(taken);
  return { id: taken?.id, place: taken, ...(created ? { madeDate: date.id } : {}) };
}

/** How long before a class its reminder is due. */
const REMINDER_BEFORE_MS = 24 * 3_600_000;

/**
 * The mails a place booked owes: the confirmation with its invite, the studio's notice, and the
 * participant's reminder a day before the class (when it is booked more than a day ahead).
 */
export function placeMails(placeId: string, start: Date, at = now()) {
  const remindAt = new Date(start.getTime() - REMINDER_BEFORE_MS);
  return [
    { kind: 'class-visitor' as const, ref: mailRef(placeId, 0) },
    { kind: 'class-studio' as const, ref: mailRef(placeId, 0) },
    ...(remindAt > at
      ? [{ kind: 'class-reminder' as const, ref: mailRef(placeId, 0), notBefore: remindAt }]
      : []),
  ];
}

/**
 * Joins a full class's waitlist in the caller's transaction (classes/book.ts storeWaitlist queues the mail). A
 * class with a place left, or past its cutoff, throws a `ClassRefusal`.
 */
export async function joinClassWaitlist(
  tx: Queryable,
  person: Person,
  received: BookingReceived,
  chosen: ChosenClass,
): Promise<Stored> {
  const { date, created } = await dateToBook(tx, chosen);
  if (now() >= cutoffOf(date.start, classSettings())) throw new ClassRefusal('waitlist-closed');
  const live = await tx.query(
    'SELECT count(*)::int AS n FROM class_places WHERE class_date_id = $1 AND place_no IS NOT NULL',
    [date.id],
  );
  if (Number((live.rows[0] as { n: number }).n) < date.capacity) {
    throw new ClassRefusal('not-full');
  }
  const id = await joinWaitlist(tx, date.id, person, received);
  return { id, ...(created ? { madeDate: date.id } : {}) };
}

/**
 * Offers the free places of a class to the people waiting, first come first served, in the
 * caller's transaction: each offer holds a place ('offered') for the hold time and mails
 * the claim link. None after the cutoff, or for a cancelled class. The outbox ids of
 * the offers' mails.
 */
export async function offerFreePlaces(
  tx: Queryable,
  dateId: string,
  outbox: ClassOutbox,
  at = now(),
): Promise<string[]> {
  const settings = classSettings();
  const date = await lockClassDate(tx, dateId);
  if (!date || date.cancelledAt || date.cutOffAt || at >= cutoffOf(date.start, settings)) {
    return [];
  }
  const mails: string[] = [];
  for (;;) {
    const entry = await firstWaiting(tx, dateId);
    if (!entry) break;
    const place = await takePlace(tx, date, entry, { status: 'offered', origin: entry.origin });
    if (place === 'full' || place === undefined) break;
    if (place === 'already') {
      // They booked a place themselves meanwhile.
      await setWaitStatus(tx, entry.id, 'closed');
      continue;
    }
    // Held for the hold time, and never past the class's start.
    const until = Math.min(at.getTime() + holdMsOf(settings), date.start.getTime());
    await markOffered(tx, entry.id, place.id, new Date(until));
    const id = await outbox.enqueue(tx, 'class-offer', mailRef(entry.id, WAIT_MAIL.offer));
    if (id) mails.push(id);
  }
  return mails;
}

/** What claiming an offer came to. */
export type ClaimOutcome =
  | { kind: 'claimed'; placeId: string; mails: string[] }
  | { kind: 'already'; placeId: string }
  | { kind: 'lapsed' | 'closed' | 'unknown' };

/**
 * Claims the place an offer holds (the claim link's POST); a repeat changes nothing more. Paid
 * online, the place is held until `heldUntil` while its checkout is open, and its mails wait for
 * the payment (classes/payment.ts).
 */
export async function claimOffer(
  tx: Queryable,
  token: string,
  outbox: ClassOutbox,
  heldUntil?: Date,
): Promise<ClaimOutcome> {
  const entry = await waitEntryByClaim(token, tx);
  if (!entry) return { kind: 'unknown' };
  if (entry.status === 'claimed' && entry.placeId)
    return { kind: 'already', placeId: entry.placeId };
  if (entry.status !== 'offered' || !entry.placeId) {
    return { kind: entry.status === 'lapsed' ? 'lapsed' : 'closed' };
  }
  if (entry.offerExpiresAt && entry.offerExpiresAt <= now()) return { kind: 'lapsed' };
  if (!(await bookOfferedPlace(tx, entry.placeId, heldUntil))) return { kind: 'closed' };
  await setWaitStatus(tx, entry.id, 'claimed');
  if (heldUntil) return { kind: 'claimed', placeId: entry.placeId, mails: [] };
  return {
    kind: 'claimed',
    placeId: entry.placeId,
    mails: await queue(
      tx,
      outbox,
      placeMails(entry.placeId, (await loadClassDate(entry.classDateId, tx))!.start),
    ),
  };
}

/**
 * Cancels a booked place (the manage link's POST, or the desk's `by`): its number freed and offered
 * to the waitlist, the cancellation mailed, in one transaction. The mails' outbox ids, or
 * `undefined` when it was not booked (a repeat changes nothing more).
 */
export async function cancelPlace(
  tx: Queryable,
  placeId: string,
  by: string,
  outbox: ClassOutbox,
  note: string | null = null,
): Promise<string[] | undefined> {
  const sequence = await cancelPlaceRow(tx, placeId, by, note);
  if (sequence === undefined) return undefined;
  const ids = [
    await outbox.enqueue(tx, 'class-cancel-visitor', mailRef(placeId, sequence)),
    await outbox.enqueue(tx, 'class-studio', mailRef(placeId, sequence)),
  ].filter((id): id is string => id !== undefined);
  const { rows } = await tx.query('SELECT class_date_id FROM class_places WHERE id = $1', [
    placeId,
  ]);
  const dateId = (rows[0] as { class_date_id: string }).class_date_id;
  return [...ids, ...(await offerFreePlaces(tx, dateId, outbox))];
}

/**
 * Cancels a whole class in the caller's transaction (at its cutoff below its minimum, or on the
 * desk): every place cancelled and told, every offer and waiting person closed and told, and the
 * instructor's calendar told. The outbox ids; none when it was cancelled already.
 */
export async function cancelClass(
  tx: Queryable,
  dateId: string,
  reason: 'minimum' | 'studio',
  by: string,
  outbox: ClassOutbox,
  note: string | null = null,
): Promise<string[]> {
  const { rows } = await tx.query(
    `UPDATE class_dates
        SET cancelled_at = ${sqlNow()}, cancel_reason = $2, cancelled_by = $3, cancel_note = $4,
            cut_off_at = COALESCE(cut_off_at, ${sqlNow()}), sequence = sequence + 1,
            updated_at = ${sqlNow()}
      WHERE id = $1 AND cancelled_at IS NULL
  RETURNING sequence`,
    [dateId, reason, by, note],
  );
  const row = rows[0] as { sequence: number } | undefined;
  if (!row) return [];
  const ids: (string | undefined)[] = [
    await outbox.enqueue(tx, 'class-calendar', mailRef(dateId, Number(row.sequence))),
  ];
  for (const place of await livePlaces(tx, dateId)) {
    if (place.payment === 'held') {
      // Still being paid for, never confirmed: its place given back, no mail; a payment that
      // comes later finds the class cancelled and is refunded (classes/payment.ts).
      await dropPlaceHold(tx, place.id);
    } else if (place.status === 'booked') {
      const sequence = await cancelPlaceRow(
        tx,
        place.id,
        reason === 'minimum' ? 'minimum' : by,
        note,
      );
      if (sequence !== undefined) {
        ids.push(await outbox.enqueue(tx, 'class-cancel-visitor', mailRef(place.id, sequence)));
      }
    } else {
      await lapsePlace(tx, place.id);
    }
  }
  ids.push(...(await closeWaitlist(tx, dateId, outbox, true)));
  return ids.filter((id): id is string => id !== undefined);
}

/**
 * Closes a class's waitlist: everyone waiting told no place is theirs. At the cutoff an offer
 * already made still holds until it ends; when the class is cancelled, offers close too.
 */
async function closeWaitlist(
  tx: Queryable,
  dateId: string,
  outbox: ClassOutbox,
  offersToo: boolean,
): Promise<string[]> {
  const { rows } = await tx.query(
    `UPDATE class_waitlist SET status = 'closed', updated_at = ${sqlNow()}
      WHERE class_date_id = $1 AND (status = 'waiting' OR ($2::boolean AND status = 'offered'))
  RETURNING id, place_id`,
    [dateId, offersToo],
  );
  const ids: string[] = [];
  for (const entry of rows as { id: string; place_id: string | null }[]) {
    if (entry.place_id) await lapsePlace(tx, entry.place_id);
    const id = await outbox.enqueue(
      tx,
      'class-waitlist-closed',
      mailRef(entry.id, WAIT_MAIL.closed),
    );
    if (id) ids.push(id);
  }
  return ids;
}

export interface StepsSummary {
  /** Places held for an online checkout that ran out unpaid. */
  released: number;
  lapsed: number;
  offered: number;
  cutOff: number;
  cancelled: number;
  mails: string[];
  /** Refunds of places paid online in classes cancelled below their minimum, to send to Stripe. */
  refunds: Refund[];
}

/**
 * The timed steps, run by the scheduled function `classes-steps` on the studio's clock:
 * 0. places held for an online checkout that ran out unpaid are given back, and offered;
 * 1. offers whose hold ran out lapse, and their places pass to the next person waiting;
 * 2. places free while people wait (a race the offer missed) are offered;
 * 3. each class whose cutoff has come is cut off: below its minimum it is cancelled, everyone
 *    told; otherwise its waitlist closes (no offers from now on), those still waiting told.
 * Each class is its own transaction; a run that stops halfway leaves the rest for the next one.
 */
export async function runClassSteps(outbox: ClassOutbox, at = now()): Promise<StepsSummary> {
  const settings = classSettings();
  const summary: StepsSummary = {
    released: 0,
    lapsed: 0,
    offered: 0,
    cutOff: 0,
    cancelled: 0,
    mails: [],
    refunds: [],
  };
  const cutoffMs = Math.round(settings.timetable.cutoffHours * 3_600_000);

  // A place held while an online checkout was open (issue 33), not paid in time: given back.
  const holds = await query<{ id: string; class_date_id: string }>(
    `SELECT id, class_date_id FROM class_places
      WHERE payment = 'held' AND place_no IS NOT NULL AND held_until <= $1`,
    [at.toISOString()],
  );
  for (const hold of holds) {
    await transaction(async (tx) => {
      const { rows } = await tx.query(
        `UPDATE class_places SET status = 'lapsed', place_no = NULL, updated_at = ${sqlNow()}
          WHERE id = $1 AND payment = 'held' AND place_no IS NOT NULL AND held_until <= $2
      RETURNING id`,
        [hold.id, at.toISOString()],
      );
      if (rows.length === 0) return;
      summary.released++;
      const mails = await offerFreePlaces(tx, hold.class_date_id, outbox, at);
      summary.offered += mails.length;
      summary.mails.push(...mails);
    });
  }

  const expired = await query<{ id: string; class_date_id: string }>(
    `SELECT id, class_date_id FROM class_waitlist
      WHERE status = 'offered' AND offer_expires_at <= $1 ORDER BY offer_expires_at`,
    [at.toISOString()],
  );
  for (const entry of expired) {
    await transaction(async (tx) => {
      const { rows } = await tx.query(
        `UPDATE class_waitlist SET status = 'lapsed', updated_at = ${sqlNow()}
          WHERE id = $1 AND status = 'offered' AND offer_expires_at <= $2
      RETURNING place_id`,
        [entry.id, at.toISOString()],
      );
      const placeId = (rows[0] as { place_id: string | null } | undefined)?.place_id;
      if (!placeId) return;
      summary.lapsed++;
      await lapsePlace(tx, placeId);
      const mails = await offerFreePlaces(tx, entry.class_date_id, outbox, at);
      summary.offered += mails.length;
      summary.mails.push(...mails);
    });
  }

  const waiting = await query<{ id: string }>(
    `SELECT DISTINCT d.id FROM class_dates d JOIN class_waitlist w ON w.class_date_id = d.id
      WHERE w.status = 'waiting' AND d.cancelled_at IS NULL AND d.cut_off_at IS NULL
        AND d.starts_at - make_interval(secs => $2::double precision / 1000) > $1
        AND (SELECT count(*) FROM class_places s
              WHERE s.class_date_id = d.id AND s.place_no IS NOT NULL) < d.capacity`,
    [at.toISOString(), cutoffMs],
  );
  for (const { id } of waiting) {
    await transaction(async (tx) => {
      const mails = await offerFreePlaces(tx, id, outbox, at);
      summary.offered += mails.length;
      summary.mails.push(...mails);
    });
  }

  const due = await query<{ id: string }>(
    `SELECT id FROM class_dates
      WHERE cut_off_at IS NULL AND cancelled_at IS NULL
        AND starts_at - make_interval(secs => $2::double precision / 1000) <= $1
      ORDER BY starts_at`,
    [at.toISOString(), cutoffMs],
  );
  for (const { id } of due) {
    await transaction(async (tx) => {
      const date = await lockClassDate(tx, id);
      if (!date || date.cutOffAt || date.cancelledAt) return;
      summary.cutOff++;
      if ((await bookedCount(tx, id)) < date.minimum) {
        summary.cancelled++;
        // Each place paid online is refunded in full, once (the desk's cancel of a class uses
        // the same key), before the mails that say so are queued.
        for (const place of await livePlaces(tx, id)) {
          if (place.status !== 'booked' || place.payment !== 'paid') continue;
          const refund = await refundRest(tx, 'place', place.id, 'site', 'class-cancelled');
          if (refund) summary.refunds.push(refund);
        }
        summary.mails.push(...(await cancelClass(tx, id, 'minimum', 'minimum', outbox)));
        return;
      }
      await tx.query(
        `UPDATE class_dates SET cut_off_at = ${sqlNow()}, updated_at = ${sqlNow()}
          WHERE id = $1`,
        [id],
      );
      summary.mails.push(...(await closeWaitlist(tx, id, outbox, false)));
    });
  }
  return summary;
}
