/**
 * The steps of the class forms that are their own, called in order by functions/book-class.ts
 * and functions/class-waitlist.ts between the steps every form takes (request/steps.ts):
 *
 *   checkClassBooking / checkWaitlist (engine.ts: a class of the timetable, and the price the
 *   page showed its price in content, else 422) → storePlace / storeWaitlist (the row stored and
 *   its mails queued in one transaction; a refusal the transaction raised, full, already booked,
 *   closed, is 409 in the visitor's words; a submission id already stored stores and sends
 *   nothing more) → answerPlace / answerWaitlist (the place's page, where a post without script
 *   goes; the waitlist's page).
 */
import type { ClassBookingRequest, WaitlistRequest } from '../../shared/classes/form';
import { CLASS_NOTICES } from '../../shared/classes/form';
import { failed, ok, type Result } from '../../shared/result';
import { PAGES } from '../../shared/site-paths';
import { transaction, type Queryable } from '../platform/db';
import { seeOther } from '../request/pages';
import type { Problem } from '../request/responses';
import {
  answer,
  keptAsSpam,
  otherRequest,
  queue,
  repeated,
  sameRequest,
  type FormOutbox,
  type QueuedMail,
  type Received,
} from '../request/steps';
import {
  WAIT_MAIL,
  bookPlace,
  joinClassWaitlist,
  placeMails,
  type ChosenClass,
  type ClassMailKind,
  type Stored,
} from './engine';
import {
  ClassRefusal,
  leaveToken,
  loadPlace,
  loadWaitEntry,
  placeBySubmission,
  placeToken,
  waitEntryBySubmission,
  type Place,
} from './store';

/** The mails a place booked queues: its own (`placeMails`), and the studio's invite of a class date it made. */
export const CLASS_MAILS = [
  'class-visitor',
  'class-studio',
  'class-reminder',
  'class-calendar',
] as const;

/** The mail of joining a waitlist. */
export const WAITLIST_MAILS = ['class-waitlist'] as const;

const WORDS: Record<ClassRefusal['reason'], string> = {
  full: CLASS_NOTICES.full,
  already: CLASS_NOTICES.already,
  closed: CLASS_NOTICES.closed,
  price: CLASS_NOTICES.priceChanged,
  'not-full': CLASS_NOTICES.notFull,
  waiting: CLASS_NOTICES.alreadyWaiting,
  'waitlist-closed': CLASS_NOTICES.waitlistClosed,
};

/** A refusal the transaction raised (full, already booked, closed): 409 with its words. */
export function classProblem(refusal: ClassRefusal): Problem {
  return { status: 409, error: WORDS[refusal.reason], details: { reason: refusal.reason } };
}

/**
 * What a class form stored: its row's id (none for a repeat), the mails to send now, and the
 * place as stored or as a repeat found it, so that neither the answer nor the checkout reads it
 * again.
 */
export interface ClassStored {
  id: string | undefined;
  queued: string[];
  place?: Place;
}

/**
 * Stores a row and queues its mails in one transaction: `store` inserts it (no id for a
 * submission id already stored: nothing more is queued) and `mails` names what it owes. A
 * `ClassRefusal` raised inside is the visitor's 409; a row taken for spam is kept, never mailed.
 */
async function storeClassRow<K extends ClassMailKind>(
  outbox: FormOutbox<K>,
  received: Received,
  table: 'class_places' | 'class_waitlist',
  store: (tx: Queryable) => Promise<Stored>,
  mails: (id: string, madeDate: string | undefined) => QueuedMail<K>[],
): Promise<Result<ClassStored, Problem>> {
  try {
    return await transaction(async (tx) => {
      const { id, madeDate, place } = await store(tx);
      if (id === undefined) {
        const same = await repeated(tx, table, received);
        return same.ok ? ok({ id, queued: [] }) : same;
      }
      if (received.spam) {
        keptAsSpam('class', id, received.spam);
        return ok({ id, queued: [], place });
      }
      return ok({ id, queued: await queue(tx, outbox, mails(id, madeDate)), place });
    });
  } catch (error) {
    if (error instanceof ClassRefusal) return failed(classProblem(error));
    throw error;
  }
}

/**
 * Books the place (Postgres refuses one too many, whichever instance) and queues the
 * confirmation with its invite, the studio's notice, the reminder a day before, and the studio's
 * own invite of the class date when this place made it. Paid online (`heldUntil`), the place is
 * held and nothing is queued: the mails wait for the payment (classes/payment.ts).
 */
export function storePlace(
  outbox: FormOutbox<(typeof CLASS_MAILS)[number]>,
  request: ClassBookingRequest,
  received: Received,
  chosen: ChosenClass,
  heldUntil?: Date,
): Promise<Result<ClassStored, Problem>> {
  return storeClassRow(
    outbox,
    received,
    'class_places',
    (tx) => bookPlace(tx, request, received, chosen, heldUntil),
    (id, madeDate) =>
      heldUntil
        ? []
        : [
            ...placeMails(id, chosen.occurrence.start),
            ...(madeDate ? [{ kind: 'class-calendar' as const, ref: `${madeDate}:0` }] : []),
          ],
  );
}

/** Joins the waitlist of a full class, in the order people came, and queues the mail saying so. */
export function storeWaitlist(
  outbox: FormOutbox<(typeof WAITLIST_MAILS)[number]>,
  request: WaitlistRequest,
  received: Received,
  chosen: ChosenClass,
): Promise<Result<ClassStored, Problem>> {
  // A class with a waitlist is full, so it is stored already: joining never makes its date.
  return storeClassRow(
    outbox,
    received,
    'class_waitlist',
    (tx) => joinClassWaitlist(tx, request, received, chosen),
    (id) => [{ kind: 'class-waitlist', ref: `${id}:${WAIT_MAIL.joined}` }],
  );
}

/**
 * A submission id already booked (a retry, a double click, Back and Send again): answered from
 * its place, or 409 when it was sent with other details; `undefined` for a new submission. It
 * skips the checks, which its own place would fail (the class may be full with it).
 */
export async function findPlaceRepeat(
  received: Received,
): Promise<Result<ClassStored | undefined, Problem>> {
  const earlier = await placeBySubmission(received.submissionId);
  if (!earlier) return ok(undefined);
  if (!sameRequest(earlier.requestSha256, received)) return failed(otherRequest());
  return ok({ id: undefined, queued: [], place: earlier });
}

/** Where a repeated post without script goes: a page that says it was sent, without its link. */
export const CLASS_REPEAT_PAGE = `${PAGES.classManage}?repeat=1`;

/**
 * The answer to a place booked (or, for a repeat, the place its submission made): its page, with
 * the link to cancel it; a post without script goes there. A post without script that repeats
 * one is told it was sent, and never given its link (as for sessions and consultations).
 */
export async function answerPlace(stored: ClassStored, received: Received): Promise<Response> {
  if (stored.id === undefined && received.format === 'form') return seeOther(CLASS_REPEAT_PAGE);
  const place =
    stored.place ??
    (stored.id ? await loadPlace(stored.id) : await placeBySubmission(received.submissionId));
  if (!place || place.status !== 'booked') return answer(received, PAGES.classes);
  const manage = `${PAGES.classManage}?token=${placeToken(place)}`;
  return answer(received, `${manage}&done=booked`, { booking: { manage } });
}

/**
 * The answer to joining a waitlist: the page that names the class, says what happens next and
 * offers to leave the waitlist (its link's token); a post without script goes there.
 */
export async function answerWaitlist(stored: ClassStored, received: Received): Promise<Response> {
  const entry = stored.id
    ? await loadWaitEntry(stored.id)
    : await waitEntryBySubmission(received.submissionId);
  const token = entry && leaveToken(entry);
  const waiting = token ? `${PAGES.classWaiting}?token=${token}` : PAGES.classWaiting;
  return answer(received, waiting, { waiting });
}
