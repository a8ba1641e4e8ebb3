/**
 * The instructor's busy times from her own calendar's secret address (Google Calendar, iCloud,
 * Outlook): every event that takes her time within the range, as merged spans of real time.
 *
 * Busy: every occurrence of every event, recurring ones expanded (occurrences.ts), tentative ones
 * included; an all-day date blocks that whole date in the studio's zone. Not busy: events shown
 * as free (TRANSP:TRANSPARENT, or Outlook's X-MICROSOFT-CDO-BUSYSTATUS:FREE) and cancelled ones
 * (STATUS:CANCELLED, also on one moved or dropped occurrence). Google marks all-day events free
 * unless set to "Busy", so a day off there must say Busy (or be blocked on the desk).
 * An event the parser cannot make sense of is counted in `unreadable`, never guessed at.
 *
 * Bounded: a calendar with more events, or more busy times within the range, than READ_LIMITS
 * allows is refused whole (TooMuchCalendarError), and the last good copy stays in use. The time it
 * takes is bounded by busy-reader.ts, which runs this in a worker thread it ends when its time is
 * up; Node runs that worker from these files as they are, so their imports name their files.
 */
import ical from 'node-ical';
import { clip, mergeIntervals, type Interval } from '../../shared/booking/intervals.ts';
import { anchorFloatingTimes, looksLikeCalendar } from './ics-text.ts';
import { occurrences } from './occurrences.ts';

export interface BusyTimes {
  busy: Interval[];
  /** Events (VEVENTs) in the calendar, read or not. */
  events: number;
  /** Events skipped because they could not be read (no start, a broken RDATE). */
  unreadable: number;
}

/** The whole calendar could not be read: keep the last good copy and say so. */
export class UnreadableCalendarError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UnreadableCalendarError';
  }
}

/** The calendar asks for more work than the site does for it: its message is in her words. */
export class TooMuchCalendarError extends UnreadableCalendarError {
  constructor(message: string) {
    super(message);
    this.name = 'TooMuchCalendarError';
  }
}

export interface ReadLimits {
  /** Events (VEVENTs) read at most: about what 5 MB of the smallest real events hold. */
  events: number;
  /** Busy times within the range at most, every event's occurrences together. */
  occurrences: number;
}

export const READ_LIMITS: ReadLimits = { events: 20_000, occurrences: 20_000 };

const count = (n: number) => n.toLocaleString('en-US');

/** A property's text, whether node-ical kept it plain or with its parameters. */
function textOf(value: unknown): string {
  const text = typeof value === 'object' && value && 'val' in value ? value.val : value;
  return typeof text === 'string' ? text.trim().toUpperCase() : '';
}

export function takesTime(event: Record<string, unknown>): boolean {
  return (
    textOf(event.status) !== 'CANCELLED' &&
    textOf(event.transparency) !== 'TRANSPARENT' &&
    textOf(event['MICROSOFT-CDO-BUSYSTATUS']) !== 'FREE'
  );
}

export async function readBusyTimes(
  text: string,
  range: Interval,
  timeZone: string,
  limits: ReadLimits = READ_LIMITS,
): Promise<BusyTimes> {
  if (!looksLikeCalendar(text)) throw new UnreadableCalendarError('This is not an iCalendar file.');
  const anchored = anchorFloatingTimes(text, timeZone);
  if (eventCount(anchored) > limits.events) {
    throw new TooMuchCalendarError(
      `Your calendar has more than ${count(limits.events)} events, more than the site reads.`,
    );
  }
  // The asynchronous parser reads a long calendar in batches, leaving the event loop free.
  const parsed = await ical.async.parseICS(anchored).catch((cause) => {
    // Its cause may quote a line of her calendar: kept as the cause, not put in the message.
    throw new UnreadableCalendarError('The calendar could not be parsed.', { cause });
  });
  const spans: Interval[] = [];
  let unreadable = 0;
  let events = 0;
  for (const event of Object.values(parsed)) {
    if (event?.type !== 'VEVENT') continue;
    events += 1;
    try {
      if (!(event.start instanceof Date)) throw new Error('an event without a start');
      for (const occurrence of occurrences(event, range, timeZone)) {
        const inside = takesTime(occurrence.event) && clip(occurrence.span, range.start, range.end);
        if (inside) spans.push(inside);
      }
    } catch {
      unreadable += 1;
    }
    if (spans.length > limits.occurrences) {
      throw new TooMuchCalendarError(
        `Your calendar has more than ${count(limits.occurrences)} busy times in the coming weeks, more than the site reads.`,
      );
    }
  }
  return { busy: mergeIntervals(spans), events, unreadable };
}

/** How many events the (unfolded) text holds, counted before the parser is given it. */
function eventCount(text: string): number {
  return text.match(/^BEGIN:VEVENT\r?$/gim)?.length ?? 0;
}
