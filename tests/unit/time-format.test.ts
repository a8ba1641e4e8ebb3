/**
 * The site's one module of date and time formatters (src/shared/time-format.ts): what each
 * writes, in the zone it is given, whatever zone the process runs in.
 */
import { Temporal } from 'temporal-polyfill';
import { describe, expect, test } from 'vitest';
import {
  clockTime,
  dayLabel,
  eventDate,
  eventSpan,
  eventTimes,
  fullDateLabel,
  isoDay,
  momentLabel,
  monthBadge,
  shortDate,
  shortDateYear,
  shortMoment,
  startsDay,
  timeLabel,
  timeRangeLabel,
  zoneName,
} from '../../src/shared/time-format';

const PORTLAND = 'America/Los_Angeles';
// Monday 15 March 2027, 9:00 in Portland (the day after the clocks went forward).
const NINE = new Date('2027-03-15T16:00:00Z');
const NINE_15 = new Date('2027-03-15T16:15:00Z');

describe("the booking's labels, with plain spaces", () => {
  test('a time, a day, a date and a moment in the studio’s zone, from any kind of moment', () => {
    for (const at of [
      NINE,
      NINE.getTime(),
      NINE.toISOString(),
      Temporal.Instant.from(NINE.toISOString()),
    ]) {
      expect(timeLabel(at, PORTLAND)).toBe('9:00 AM PDT');
      expect(clockTime(at, PORTLAND)).toBe('09:00');
      expect(fullDateLabel(at, PORTLAND)).toBe('Monday, March 15, 2027');
      expect(momentLabel(at, PORTLAND)).toBe('Monday, March 15, 2027, 9:00 AM PDT');
    }
    expect(timeLabel(NINE, 'Europe/Berlin')).toBe('5:00 PM GMT+1');
    expect(dayLabel(Temporal.PlainDate.from('2027-03-14'))).toBe('Sunday, March 14');
  });

  test('a span within a day, and the zone as people name it', () => {
    expect(timeRangeLabel(NINE, NINE_15, PORTLAND)).toBe('9:00 – 9:15 AM PDT');
    expect(zoneName(PORTLAND)).toBe('Pacific Time');
  });
});

describe("the events' lines, as ICU writes them", () => {
  const plain = (text: string) => text.replace(/[\u2009\u202f]/g, ' ');

  test('a date, the times of a day, a span of days, the month of the badge', () => {
    expect(eventDate(NINE, PORTLAND)).toBe('Monday, March 15, 2027');
    expect(plain(eventTimes(NINE, NINE_15, PORTLAND))).toBe('9:00 – 9:15 AM PDT');
    // ICU's own spaces are kept: the same text Intl writes.
    expect(eventTimes(NINE, NINE_15, PORTLAND)).toBe(
      new Intl.DateTimeFormat('en-US', {
        timeZone: PORTLAND,
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
      }).formatRange(NINE, NINE_15),
    );
    expect(plain(eventSpan(NINE, new Date('2027-03-16T16:00:00Z'), PORTLAND))).toMatch(
      /^Monday, March 15, 2027 at 9:00 AM PDT – Tuesday, March 16, 2027 at 9:00 AM PDT$/,
    );
    expect(monthBadge(NINE, PORTLAND)).toBe('Mar');
  });
});

describe("the desk's", () => {
  test('the day of a moment in the zone, as a file name carries it', () => {
    const lateEvening = new Date('2026-11-23T07:30:00Z');
    expect(isoDay(lateEvening, PORTLAND)).toBe('2026-11-22');
    expect(isoDay(lateEvening, 'UTC')).toBe('2026-11-23');
  });

  test('whether a moment starts a day in the zone', () => {
    expect(startsDay(new Date('2027-03-15T07:00:00Z'), PORTLAND)).toBe(true);
    expect(startsDay(NINE, PORTLAND)).toBe(false);
  });

  test('short dates and moments', () => {
    expect(shortDate(NINE, PORTLAND)).toBe('Mon, Mar 15');
    expect(shortDateYear(NINE, PORTLAND)).toBe('Mon, Mar 15, 2027');
    expect(shortMoment(NINE, PORTLAND).replace(/\u202f/g, ' ')).toBe('Mon, Mar 15, 9:00 AM PDT');
  });
});
