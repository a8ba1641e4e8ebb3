/**
 * The desk's Consultations screen: the bookings to come and past (each with whether a waiver is
 * on file for its address), cancelling one with a note to the visitor, the spans blocked for a
 * holiday or a day off, the state of the instructor's own calendar (the busy feed), and the
 * secret address of her subscribable calendar of bookings. Every change is in the access log,
 * in the same transaction as the change.
 */
import { Temporal } from 'temporal-polyfill';
import type {
  BlockRow,
  BookingRow,
  BookingsPage,
  BookingsWhen,
  ConsultationsCalendar,
  CrowdedNetwork,
  SpamReason,
} from '../../shared/desk-api';
import { withinHours } from '../../shared/booking/window-starts';
import * as zoned from '../../shared/booking/zoned';
import type { Staff } from '../auth/sessions';
import { newToken, tokenHash } from '../platform/tokens';
import { withWaiverStatus } from './participants';
import { addBlock, currentBlocks, removeBlock } from '../booking/blocks';
import type { BookingMailKind } from '../booking/appointment-mail';
import { busyFeedState } from '../booking/busy-copy';
import { consultationSettings } from '../booking/consultation';
import {
  cancelBooking,
  consultationPage,
  crowdedConsultations,
  liveConsultationSpans,
  mailRef,
} from '../booking/store';
import { feedAddressMadeAt, storeFeedToken } from '../booking/subscription';
import { transaction } from '../platform/db';
import { readSetting } from '../platform/settings';
import type { Outbox } from '../platform/outbox';
import { logAccess } from './access-log';
import { pageOf, type Cursor } from './filters';

const PAGE = 50;

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

/** Upcoming bookings soonest first, or past ones latest first, a page at a time. */
export async function listBookings(when: BookingsWhen, after?: Cursor): Promise<BookingsPage> {
  const upcoming = when === 'upcoming';
  const rows = await consultationPage(upcoming, PAGE + 1, after);
  const { availability, timeZone } = consultationSettings();
  const page = pageOf(
    rows,
    (row): Omit<BookingRow, 'waiverStatus'> => ({
      id: row.id,
      start: new Date(row.starts_at).toISOString(),
      end: new Date(row.ends_at).toISOString(),
      name: row.name,
      email: row.email,
      phone: row.phone,
      topic: row.topic,
      createdAt: new Date(row.created_at).toISOString(),
      cancelledAt: iso(row.cancelled_at),
      cancelledBy: row.cancelled_by,
      cancelNote: row.cancel_note,
      spamReason: row.spam_reason as SpamReason | null,
      outsideHours:
        upcoming &&
        !row.cancelled_at &&
        !row.spam_reason &&
        !withinHours(
          availability,
          { start: new Date(row.starts_at), end: new Date(row.ends_at) },
          timeZone,
        ),
    }),
    PAGE,
  );
  return {
    ...page,
    items: await withWaiverStatus(page.items),
    timeZone,
    ...(upcoming && !after && { crowded: await crowdedNetworks() }),
  };
}

/**
 * The consultations to come that share one network, where one network holds several of them
 * (CROWDED_AT, or the network's cap when that is lower, but at least two): one person may be
 * holding several times under several addresses. Which network is never said, only which
 * bookings.
 */
async function crowdedNetworks(): Promise<CrowdedNetwork[]> {
  const at = Math.max(2, Math.min(CROWDED_AT, readSetting('CONSULTATION_UPCOMING_PER_NETWORK')));
  const rows = await crowdedConsultations(at);
  return rows.map((row) => ({
    bookings: row.ids.map((id, i) => ({
      id,
      name: row.names[i],
      start: new Date(row.starts[i]).toISOString(),
    })),
  }));
}

/** One network holding this many consultations to come is shown on the desk. */
export const CROWDED_AT = 3;

export type BookingOutbox = Pick<Outbox<BookingMailKind>, 'enqueue' | 'deliverNow'>;

const isBookingId = (id: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/**
 * Cancels a booking from the desk, with the studio's note to the visitor: the cancellation (and
 * its calendar CANCEL) to the visitor and to the studio's inbox, queued in the same transaction,
 * and the log line. `undefined` when there is no such booking or it was cancelled already.
 */
export async function cancelFromDesk(
  id: string,
  note: string,
  staff: Staff,
  outbox: BookingOutbox,
): Promise<string[] | undefined> {
  if (!isBookingId(id)) return undefined;
  return transaction(async (tx) => {
    const sequence = await cancelBooking(tx, id, staff.email, { note: note || null });
    if (sequence === undefined) return undefined;
    const ref = mailRef(id, sequence);
    const ids: string[] = [];
    for (const kind of ['booking-cancel-visitor', 'booking-cancel-studio'] as const) {
      const queued = await outbox.enqueue(tx, kind, ref);
      if (queued) ids.push(queued);
    }
    await logAccess(
      staff,
      {
        action: 'cancel-booking',
        recordKind: 'booking',
        recordId: id,
        detail: { note: note !== '' },
      },
      tx,
    );
    return ids;
  });
}

const asRow = (block: Awaited<ReturnType<typeof currentBlocks>>[number]): BlockRow => ({
  id: block.id,
  start: block.start.toISOString(),
  end: block.end.toISOString(),
  note: block.note,
  createdBy: block.createdBy,
  createdAt: block.createdAt.toISOString(),
});

/** How many live consultations still to come lie outside the weekly hours as they are now. */
async function outsideHoursCount(): Promise<number> {
  const { availability, timeZone } = consultationSettings();
  const rows = await liveConsultationSpans();
  return rows.filter(
    (row) =>
      !withinHours(
        availability,
        { start: new Date(row.starts_at), end: new Date(row.ends_at) },
        timeZone,
      ),
  ).length;
}

export async function consultationsCalendar(): Promise<ConsultationsCalendar> {
  const [busy, feed, blocks, outsideHours] = await Promise.all([
    busyFeedState(),
    feedAddressMadeAt(),
    currentBlocks(),
    outsideHoursCount(),
  ]);
  return {
    timeZone: consultationSettings().timeZone,
    outsideHours,
    busy: {
      configured: busy.configured,
      hint: busy.hint,
      fetchedAt: iso(busy.fetchedAt),
      events: busy.events,
      unreadable: busy.unreadable,
      checkedAt: iso(busy.checkedAt),
      error: busy.error,
    },
    feed: { exists: feed !== undefined, createdAt: iso(feed ?? null) },
    blocks: blocks.map(asRow),
  };
}

/** What the desk posts to block time: days in the studio's zone, and times for part of a day. */
export interface BlockInput {
  from: string;
  to: string;
  fromTime?: string;
  toTime?: string;
  note: string;
}

/** The span a block input names, in the studio's zone; `undefined` when it ends before it starts. */
export function blockSpan(input: BlockInput): { start: Date; end: Date } | undefined {
  const { timeZone } = consultationSettings();
  const first = Temporal.PlainDate.from(input.from);
  const last = Temporal.PlainDate.from(input.to);
  const start = input.fromTime
    ? zoned.dateOf(zoned.instantAt(first, input.fromTime, timeZone))
    : zoned.dateOf(zoned.startOfDay(first, timeZone));
  const end = input.toTime
    ? zoned.dateOf(zoned.instantAt(last, input.toTime, timeZone))
    : zoned.dateOf(zoned.startOfDay(last.add({ days: 1 }), timeZone));
  return end.getTime() > start.getTime() ? { start, end } : undefined;
}

export async function blockTime(
  input: BlockInput,
  staff: Staff,
): Promise<{ id: string; bookingsInside: number } | undefined> {
  const span = blockSpan(input);
  if (!span) return undefined;
  return transaction(async (tx) => {
    const added = await addBlock(tx, span, input.note, staff.email);
    await logAccess(
      staff,
      {
        action: 'block-time',
        recordKind: 'block',
        recordId: added.id,
        detail: { start: span.start.toISOString(), end: span.end.toISOString() },
      },
      tx,
    );
    return added;
  });
}

export async function unblockTime(id: string, staff: Staff): Promise<boolean> {
  return transaction(async (tx) => {
    const removed = await removeBlock(tx, id);
    if (removed) {
      await logAccess(staff, { action: 'unblock-time', recordKind: 'block', recordId: id }, tx);
    }
    return removed;
  });
}

/**
 * A new secret address for the instructor's subscribable calendar: its token is returned once,
 * to be shown once; only its SHA-256 is kept, and the previous address stops working.
 */
export async function newFeedToken(staff: Staff): Promise<string> {
  const token = newToken();
  await transaction(async (tx) => {
    await storeFeedToken(tx, tokenHash(token), staff.email);
    await logAccess(staff, { action: 'new-feed-address' }, tx);
  });
  return token;
}
