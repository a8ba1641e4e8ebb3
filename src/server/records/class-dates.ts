/**
 * Adding a single class date on the desk's Bookings screen: a class of her timetable on another
 * day or time, or a class of its own name, bookable on /classes like any other. A time that has
 * passed, or whose booking has closed already (its cutoff: nobody could book it, and the cutoff's
 * step would cancel it at once below its minimum), or one overlapping another class still on (stored, or a date of the timetable), is
 * refused in her words and nothing is stored. Adds run one at a time (a lock held for the
 * transaction), so two at once cannot both take the same hour; the date and its access-log
 * line are written in one transaction.
 */
import { Temporal } from 'temporal-polyfill';
import * as zoned from '../../shared/booking/zoned';
import { singleDateOutlook } from '../../shared/desk-api';
import { fullDateLabel, shortMoment, timeRangeLabel } from '../../shared/time-format';
import type { Staff } from '../auth/sessions';
import { addClassDate } from '../classes/desk';
import { datesAround } from '../classes/store';
import { horizonOf, timetableOccurrences } from '../classes/occurrences';
import { centsOf, classSettings } from '../classes/settings';
import { now } from '../platform/clock';
import { transaction } from '../platform/db';
import { logAccess } from './access-log';

export interface SingleDateInput {
  /** The timetable class it is a date of (its name), or undefined for a class of its own. */
  from?: string;
  /** The name of a class of its own (ignored with `from`). */
  name?: string;
  /** YYYY-MM-DD and HH:MM, on the studio's clock. */
  date: string;
  time: string;
  /** Left out: the timetable class's (or, for a class of its own, the timetable's defaults). */
  lengthMinutes?: number;
  capacity?: number;
  priceCents?: number;
}

export type AddedDate =
  | {
      ok: true;
      id: string;
      key: string;
      title: string;
      start: string;
      listedFrom: string | null;
      /** What the classes page does with it, in her words. */
      outlook: string;
    }
  | { ok: false; field: keyof SingleDateInput | 'class'; words: string };

/** The lock that lets one add at a time look for overlaps and insert. */
const ADD_LOCK = 'desk-add-class-date';

export async function addSingleDate(staff: Staff, input: SingleDateInput): Promise<AddedDate> {
  const settings = classSettings();
  const { timetable, timeZone } = settings;
  const entry = input.from ? timetable.classes.find((c) => c.name === input.from) : undefined;
  if (input.from && !entry) {
    return { ok: false, field: 'class', words: 'Please choose a class of your timetable.' };
  }
  const title = entry?.name ?? input.name?.trim() ?? '';
  if (!title) {
    return { ok: false, field: 'name', words: 'Please name the class, or choose one of yours.' };
  }
  const lengthMinutes = input.lengthMinutes ?? entry?.lengthMinutes;
  if (lengthMinutes === undefined) {
    return { ok: false, field: 'lengthMinutes', words: 'Please say how long the class lasts.' };
  }
  const capacity = input.capacity ?? entry?.capacity ?? timetable.capacity;
  const minimum = Math.min(entry?.minimum ?? timetable.minimum, capacity);
  const priceCents =
    input.priceCents ??
    (entry?.price === undefined ? settings.defaultPriceCents : centsOf(entry.price));

  const start = zoned.dateOf(
    zoned.instantAt(Temporal.PlainDate.from(input.date), input.time, timeZone),
  );
  const end = new Date(start.getTime() + lengthMinutes * 60_000);
  const at = now();
  if (start <= at) {
    return {
      ok: false,
      field: 'date',
      words: 'That time has passed: please choose a date and time to come.',
    };
  }
  const outlook = singleDateOutlook(
    start,
    at,
    { cutoffHours: timetable.cutoffHours, minimum },
    (moment) => shortMoment(moment, timeZone),
  );
  if (!outlook.bookable) return { ok: false, field: 'time', words: outlook.words };
  if (zoned.localDate(zoned.instantOf(end), timeZone).toString() !== input.date) {
    return {
      ok: false,
      field: 'lengthMinutes',
      words: 'The class would end after midnight: please start it earlier or make it shorter.',
    };
  }

  return transaction(async (tx): Promise<AddedDate> => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1::text))', [ADD_LOCK]);
    const stored = await datesAround(tx, start, end);
    const known = new Set(stored.map((d) => `${d.class_key}@${new Date(d.starts_at).getTime()}`));
    const taken = [
      ...stored
        .filter((d) => d.cancelled_at === null)
        .map((d) => ({ title: d.title, start: new Date(d.starts_at), end: new Date(d.ends_at) })),
      // The timetable's dates not stored yet (a stored one is above, cancelled or not).
      ...timetableOccurrences(settings, new Date(start.getTime() - 86_400_000), end).filter(
        (o) => !known.has(`${o.key}@${o.start.getTime()}`),
      ),
    ].find((other) => other.start < end && other.end > start);
    if (taken) {
      return {
        ok: false,
        field: 'time',
        words: `That overlaps ${taken.title} on ${fullDateLabel(taken.start, timeZone)}, ${timeRangeLabel(taken.start, taken.end, timeZone)}: please choose another time.`,
      };
    }
    const date = await addClassDate(
      tx,
      { title, start, lengthMinutes, capacity, minimum, price: priceCents / 100 },
      staff.email,
    );
    await logAccess(
      staff,
      {
        action: 'add-class',
        recordKind: 'booking',
        recordId: date.id,
        detail: { start: start.toISOString(), lengthMinutes, capacity, priceCents },
      },
      tx,
    );
    const horizon = horizonOf(at, settings);
    return {
      ok: true,
      id: date.id,
      key: date.key,
      title,
      start: start.toISOString(),
      outlook: outlook.words,
      // Visitors see the weeks ahead the timetable says: a date later than that shows from then.
      listedFrom:
        start < horizon
          ? null
          : new Date(
              start.getTime() - settings.timetable.weeksAhead * 7 * 86_400_000,
            ).toISOString(),
    };
  });
}
