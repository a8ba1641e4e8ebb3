/**
 * What the desk's Bookings screen does with the classes (the screen itself is the desk's; a
 * place paid at the studio or a no-show is the place's kind, bookings/kinds.ts): adding a single
 * class date, and cancelling one date (a timetable date not booked yet is stored cancelled,
 * so the timetable skips it) with everyone booked or waiting told. Each runs in the caller's transaction, so the
 * desk writes its access-log line in the same one; the outbox ids are returned for `deliverNow`.
 */
import { randomUUID } from 'node:crypto';
import { query, type Queryable } from '../platform/db';
import { cancelClass, type ClassOutbox } from './engine';
import { classUid } from './invite';
import { occurrenceAt } from './occurrences';
import { centsOf, classSettings } from './settings';
import { ensureClassDate, type ClassDate } from './store';

export interface SingleDate {
  title: string;
  start: Date;
  lengthMinutes: number;
  /** The timetable's defaults when left out; the price from small-group.md. */
  capacity?: number;
  minimum?: number;
  price?: number;
}

/** Adds a single class date outside the timetable (the desk's), bookable like any other. */
export async function addClassDate(
  tx: Queryable,
  single: SingleDate,
  by: string,
): Promise<ClassDate> {
  const settings = classSettings();
  const slug = single.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
  const { date } = await ensureClassDate(
    tx,
    {
      key: `desk-${slug || 'class'}-${randomUUID().slice(0, 8)}`,
      title: single.title,
      start: single.start,
      end: new Date(single.start.getTime() + single.lengthMinutes * 60_000),
      capacity: single.capacity ?? settings.timetable.capacity,
      minimum: single.minimum ?? settings.timetable.minimum,
      priceCents: single.price === undefined ? settings.defaultPriceCents : centsOf(single.price),
    },
    by,
  );
  return date;
}

/**
 * Cancels one class date on the desk: a stored one (everyone booked and waiting told, her
 * calendar too), or a date of the timetable nobody booked yet (stored cancelled, so visitors no
 * longer see it as bookable). The outbox ids; `undefined` when `key` has no date at `start`.
 */
export async function cancelClassDate(
  tx: Queryable,
  key: string,
  start: Date,
  by: string,
  outbox: ClassOutbox,
  note: string | null = null,
): Promise<string[] | undefined> {
  const { rows } = await tx.query(
    'SELECT id FROM class_dates WHERE class_key = $1 AND starts_at = $2',
    [key, start.toISOString()],
  );
  let id = (rows[0] as { id: string } | undefined)?.id;
  if (!id) {
    const occurrence = occurrenceAt(classSettings(), key, start);
    if (!occurrence) return undefined;
    id = (await ensureClassDate(tx, occurrence)).date.id;
  }
  return cancelClass(tx, id, 'studio', by, outbox, note);
}

/** A class date as the instructor's bookings feed lists it: no participant named. */
export interface FeedClass {
  /** The UID of her own invite of the class (invite.ts `classUid`), so the feed and it agree. */
  uid: string;
  sequence: number;
  start: Date;
  end: Date;
  summary: string;
  description: string;
}

/**
 * The class dates still on, from `from`, with their places booked, for the bookings feed (the
 * feed adds them beside the consultations and sessions). A date nobody booked is not listed.
 */
export async function classesForFeed(from: Date, host: string): Promise<FeedClass[]> {
  const rows = await query<{
    id: string;
    title: string;
    starts_at: Date;
    ends_at: Date;
    sequence: number;
    capacity: number;
    booked: number;
  }>(
    `SELECT d.id, d.title, d.starts_at, d.ends_at, d.sequence, d.capacity,
            count(s.id) FILTER (WHERE s.status = 'booked')::int AS booked
       FROM class_dates d LEFT JOIN class_places s ON s.class_date_id = d.id
      WHERE d.cancelled_at IS NULL AND d.ends_at > $1
      GROUP BY d.id HAVING count(s.id) FILTER (WHERE s.status = 'booked') > 0
      ORDER BY d.starts_at`,
    [from.toISOString()],
  );
  return rows.map((row) => ({
    uid: classUid(row.id, host),
    sequence: Number(row.sequence),
    start: new Date(row.starts_at),
    end: new Date(row.ends_at),
    summary: `${row.title} (${row.booked} of ${row.capacity})`,
    description: `${row.booked} of ${row.capacity} places booked. The roster is on the records desk.`,
  }));
}
