/**
 * The kinds of booking that have a price (a private or in-home session, a place in a class), as
 * the desk acts on them: each kind answers for its own table, so the desk never writes a kind's
 * SQL or branches on which kind it holds. A session's functions are in booking/, a place's in
 * classes/; the mails each queues are its own.
 */
import type { PayableKind } from '../../shared/desk-api';
import { cancelAndTell } from '../booking/session-manage';
import {
  lockSessionForDesk,
  sessionsCancelled,
  sessionsOfPerson,
  setSessionNoShow,
  setSessionPaidAtStudio,
} from '../booking/session-store';
import { consultationsCancelled, consultationsOfPerson } from '../booking/store';
import { cancelPlace } from '../classes/engine';
import {
  lockPlaceForDesk,
  placesCancelled,
  placesOfPerson,
  setPlaceNoShow,
  setPlacePaidAtStudio,
  waitlistOfPerson,
} from '../classes/store';
import type { outbox as siteOutbox } from '../mail-kinds';
import type { Queryable } from '../platform/db';
import type { DeskLock } from './lock';
import type { Cancellations, Cancelled, PersonBooking, PersonRecords } from './person';

export type { DeskLock };

export interface PricedKind {
  /** Locks the booking; none when it is spam, or a hold that lapsed and never was a booking. */
  lock(tx: Queryable, id: string): Promise<DeskLock | undefined>;
  /** Records it paid at the studio by `by`; `null` takes that mark back. */
  setPaidAtStudio(tx: Queryable, id: string, by: string | null): Promise<void>;
  /** Marks it a no-show by `by`; `null` takes the mark back. */
  setNoShow(tx: Queryable, id: string, by: string | null): Promise<void>;
  /**
   * Cancels it for `by` with her note, and queues the mails that tell the person and her
   * calendar (a place's freed number offered to the waitlist too): their ids, or `undefined`
   * when it was over or cancelled already (nothing changed).
   */
  cancel(
    tx: Queryable,
    id: string,
    by: string,
    note: string | null,
    outbox: typeof siteOutbox,
  ): Promise<string[] | undefined>;
  /** The access log's word for a cancel from the desk. */
  cancelAction: 'cancel-session' | 'cancel-place';
}

export const PRICED_KINDS: Record<PayableKind, PricedKind> = {
  session: {
    lock: lockSessionForDesk,
    setPaidAtStudio: setSessionPaidAtStudio,
    setNoShow: setSessionNoShow,
    cancel: (tx, id, by, note, outbox) => cancelAndTell(tx, outbox, id, by, note),
    cancelAction: 'cancel-session',
  },
  place: {
    lock: lockPlaceForDesk,
    setPaidAtStudio: setPlacePaidAtStudio,
    setNoShow: setPlaceNoShow,
    cancel: (tx, id, by, note, outbox) => cancelPlace(tx, id, by, outbox, note),
    cancelAction: 'cancel-place',
  },
};

/** Every kind's records of a person, read (and locked) in this order... */
const OF_A_PERSON: readonly PersonRecords[] = [
  consultationsOfPerson,
  sessionsOfPerson,
  placesOfPerson,
  waitlistOfPerson,
];

/** ...and deleted in this: a waitlist entry before the place it was offered. */
const ERASED_IN_ORDER: readonly PersonRecords[] = [
  consultationsOfPerson,
  sessionsOfPerson,
  waitlistOfPerson,
  placesOfPerson,
];

/**
 * Everything booked under `address` (consultations, sessions, class places, waitlist entries),
 * latest first; locked for the rest of the transaction when `lock`.
 */
export async function bookingsOfPerson(
  db: Queryable,
  address: string,
  lock: boolean,
): Promise<PersonBooking[]> {
  const all: PersonBooking[] = [];
  for (const kind of OF_A_PERSON) all.push(...(await kind.of(db, address, lock)));
  return all.sort((a, b) => new Date(b.starts_at).getTime() - new Date(a.starts_at).getTime());
}

/** Deletes the bookings of any kind among `ids`, in the caller's transaction. */
export async function deleteBookings(db: Queryable, ids: string[]): Promise<void> {
  for (const kind of ERASED_IN_ORDER) await kind.erase(db, ids);
}

/** Each kind's cancellations, by the kind's name (a restore carries them across: see below). */
const CANCELLATIONS = {
  consultation: consultationsCancelled,
  session: sessionsCancelled,
  place: placesCancelled,
} satisfies Record<string, Cancellations>;

export type CancelledBookings = Partial<Record<keyof typeof CANCELLATIONS, Cancelled[]>>;

/** What `db` says was cancelled, of every kind (the database a restore replaces). */
export async function cancelledBookings(db: Queryable): Promise<CancelledBookings> {
  const all: CancelledBookings = {};
  for (const [kind, cancellations] of Object.entries(CANCELLATIONS)) {
    all[kind as keyof typeof CANCELLATIONS] = await cancellations.read(db);
  }
  return all;
}

/** Cancels again, in the caller's transaction, what `cancelled` names and is live here: how many. */
export async function cancelBookingsAgain(
  tx: Queryable,
  cancelled: CancelledBookings,
): Promise<number> {
  let count = 0;
  for (const [kind, cancellations] of Object.entries(CANCELLATIONS)) {
    count += await cancellations.again(tx, cancelled[kind as keyof typeof CANCELLATIONS] ?? []);
  }
  return count;
}
