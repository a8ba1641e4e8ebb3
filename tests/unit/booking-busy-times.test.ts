/**
 * The instructor's calendar, as Google Calendar, iCloud and Outlook publish it at a secret address
 * (fixtures in tests/fixtures/calendars, written in each one's shape), read into busy spans. Every
 * case runs with the server in several zones: the answer must depend only on the calendar and the
 * studio's zone.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readBusyTimes, UnreadableCalendarError } from '../../src/server/booking/busy-times';
import { freeSlots, slotRange } from '../../src/shared/booking/slots';
import { availability, day, span, STUDIO_ZONE } from '../fixtures/booking';

const fixture = (name: string) =>
  readFileSync(resolve(import.meta.dirname, '../fixtures/calendars', name), 'utf8');

// Monday 1 March 2027, midnight in Portland, to Thursday 15 April.
const RANGE = span('2027-03-01T08:00:00Z', '2027-04-15T07:00:00Z');

const busy = async (text: string, range = RANGE) => {
  const result = await readBusyTimes(text, range, STUDIO_ZONE);
  return {
    unreadable: result.unreadable,
    busy: result.busy.map(({ start, end }) => [start.toISOString(), end.toISOString()]),
  };
};

const iso = (from: string, to: string) => {
  const { start, end } = span(from, to);
  return [start.toISOString(), end.toISOString()];
};

/** A one-event calendar around the given VEVENT lines. */
const calendar = (...lines: string[]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    'UID:one@example.org',
    'DTSTAMP:20270101T000000Z',
    ...lines,
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n');

describe.each(['UTC', 'America/Los_Angeles', 'Pacific/Auckland', 'Asia/Kolkata'])(
  'busy times read on a server in %s',
  (zone) => {
    let before: string | undefined;
    beforeAll(() => {
      before = process.env.TZ;
      process.env.TZ = zone;
    });
    afterAll(() => {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    });

    test('Google: a weekly class without its EXDATE, with its moved instance and without its cancelled one; all-day days off; a dentist visit; no free or cancelled event', async () => {
      expect(await busy(fixture('google.ics'))).toEqual({
        unreadable: 0,
        busy: [
          iso('2027-03-02T17:00:00Z', '2027-03-02T18:00:00Z'), // Tue 9 AM PST
          iso('2027-03-04T23:30:00Z', '2027-03-05T00:30:00Z'), // dentist, 3:30 PM PST
          iso('2027-03-09T17:00:00Z', '2027-03-09T18:00:00Z'),
          // 16 March is an EXDATE; 19 March is a day off, midnight to midnight in Portland (PDT).
          iso('2027-03-19T07:00:00Z', '2027-03-20T07:00:00Z'),
          iso('2027-03-24T22:00:00Z', '2027-03-24T23:00:00Z'), // 23 March moved to Wed 3 PM PDT
          // 30 March: that occurrence is cancelled. 1-2 April: two days of training.
          iso('2027-04-01T07:00:00Z', '2027-04-03T07:00:00Z'),
          iso('2027-04-06T16:00:00Z', '2027-04-06T17:00:00Z'), // Tue 9 AM PDT, an hour earlier in UTC
          iso('2027-04-13T16:00:00Z', '2027-04-13T17:00:00Z'),
        ],
      });
    });

    test('iCloud: a weekly call set in London moves in Portland time across both zones’ clock changes, and touching spans merge', async () => {
      expect(await busy(fixture('icloud.ics'))).toEqual({
        unreadable: 0,
        busy: [
          iso('2027-03-05T17:00:00Z', '2027-03-05T18:00:00Z'), // 5 PM GMT = 9 AM PST
          iso('2027-03-12T17:00:00Z', '2027-03-12T18:30:00Z'), // the call, then physio to 10:30 PST
          iso('2027-03-19T17:00:00Z', '2027-03-19T18:00:00Z'), // 5 PM GMT = 10 AM PDT
          iso('2027-03-26T17:00:00Z', '2027-03-26T18:00:00Z'),
          iso('2027-04-02T16:00:00Z', '2027-04-02T17:00:00Z'), // 5 PM BST = 9 AM PDT
          iso('2027-04-09T16:00:00Z', '2027-04-09T17:00:00Z'),
        ],
      });
    });

    test('Outlook: Windows zone names, a weekly event across the change, tentative as busy, free and cancelled not, an all-day out-of-office', async () => {
      expect(await busy(fixture('outlook.ics'))).toEqual({
        unreadable: 0,
        busy: [
          iso('2027-03-05T00:00:00Z', '2027-03-05T00:30:00Z'), // Thu 4 PM PST
          iso('2027-03-09T21:00:00Z', '2027-03-09T22:00:00Z'), // accountant, 1 PM PST
          iso('2027-03-12T00:00:00Z', '2027-03-12T00:30:00Z'),
          iso('2027-03-15T16:30:00Z', '2027-03-15T17:00:00Z'), // tentative hold, 9:30 PDT
          iso('2027-03-18T23:00:00Z', '2027-03-18T23:30:00Z'), // Thu 4 PM PDT
          iso('2027-03-22T07:00:00Z', '2027-03-23T07:00:00Z'), // out of office all day
          iso('2027-03-25T23:00:00Z', '2027-03-25T23:30:00Z'),
        ],
      });
    });

    test('floating times are the studio’s wall clock, recurring ones too across the change', async () => {
      expect(await busy(fixture('floating.ics'))).toEqual({
        unreadable: 0,
        busy: [
          iso('2027-03-08T16:00:00Z', '2027-03-08T16:30:00Z'), // 8 AM PST
          iso('2027-03-11T21:00:00Z', '2027-03-11T22:00:00Z'), // 1 PM PST
          iso('2027-03-15T15:00:00Z', '2027-03-15T15:30:00Z'), // 8 AM PDT
          iso('2027-03-22T15:00:00Z', '2027-03-22T15:30:00Z'),
        ],
      });
    });

    test('a weekly event across the fall-back change keeps its wall-clock time', async () => {
      const text = calendar(
        'DTSTART;TZID=America/Los_Angeles:20261025T090000',
        'DTEND;TZID=America/Los_Angeles:20261025T100000',
        'RRULE:FREQ=WEEKLY;COUNT=3',
      );
      const range = span('2026-10-20T00:00:00Z', '2026-11-20T00:00:00Z');

      expect((await busy(text, range)).busy).toEqual([
        iso('2026-10-25T16:00:00Z', '2026-10-25T17:00:00Z'), // 9 AM PDT
        iso('2026-11-01T17:00:00Z', '2026-11-01T18:00:00Z'), // 9 AM PST
        iso('2026-11-08T17:00:00Z', '2026-11-08T18:00:00Z'),
      ]);
    });

    test('a Windows zone name without a VTIMEZONE is read as its IANA zone', async () => {
      const text = calendar(
        'DTSTART;TZID=W. Europe Standard Time:20270310T090000',
        'DTEND;TZID=W. Europe Standard Time:20270310T100000',
      );

      expect((await busy(text)).busy).toEqual([
        iso('2027-03-10T08:00:00Z', '2027-03-10T09:00:00Z'),
      ]);
    });

    test('RDATE adds dates (times in their zone, whole days, periods), less those an EXDATE removes', async () => {
      const text = calendar(
        'DTSTART;TZID=America/Los_Angeles:20270302T120000',
        'DTEND;TZID=America/Los_Angeles:20270302T123000',
        'RDATE;TZID=America/Los_Angeles:20270309T120000,20270316T120000,20270323T120000',
        'RDATE;VALUE=PERIOD:20270325T180000Z/20270325T200000Z,20270326T180000Z/PT45M',
        'RDATE;VALUE=DATE:20270329',
        'EXDATE;TZID=America/Los_Angeles:20270316T120000',
      );

      expect((await busy(text)).busy).toEqual([
        iso('2027-03-02T20:00:00Z', '2027-03-02T20:30:00Z'), // DTSTART, noon PST
        iso('2027-03-09T20:00:00Z', '2027-03-09T20:30:00Z'),
        iso('2027-03-23T19:00:00Z', '2027-03-23T19:30:00Z'), // noon PDT
        iso('2027-03-25T18:00:00Z', '2027-03-25T20:00:00Z'),
        iso('2027-03-26T18:00:00Z', '2027-03-26T18:45:00Z'),
        iso('2027-03-29T07:00:00Z', '2027-03-30T07:00:00Z'),
      ]);
    });

    test('an RDATE occurrence moved by a RECURRENCE-ID override is busy at its new time only', async () => {
      const text = calendar(
        'DTSTART;TZID=America/Los_Angeles:20270302T120000',
        'DTEND;TZID=America/Los_Angeles:20270302T123000',
        'RDATE;TZID=America/Los_Angeles:20270309T120000',
      ).replace(
        'END:VCALENDAR',
        [
          'BEGIN:VEVENT',
          'UID:one@example.org',
          'DTSTAMP:20270101T000000Z',
          'RECURRENCE-ID;TZID=America/Los_Angeles:20270309T120000',
          'DTSTART;TZID=America/Los_Angeles:20270310T150000',
          'DTEND;TZID=America/Los_Angeles:20270310T153000',
          'END:VEVENT',
          'END:VCALENDAR',
        ].join('\r\n'),
      );

      expect((await busy(text)).busy).toEqual([
        iso('2027-03-02T20:00:00Z', '2027-03-02T20:30:00Z'),
        iso('2027-03-10T23:00:00Z', '2027-03-10T23:30:00Z'), // moved to Wednesday 3 PM PST
      ]);
    });

    test('only the part within the range is returned: an event running into it, a long all-day event', async () => {
      const range = span('2027-03-10T18:30:00Z', '2027-03-12T08:00:00Z');
      const text = [
        calendar('DTSTART:20270310T180000Z', 'DTEND:20270310T190000Z').replace('END:VCALENDAR', ''),
        'BEGIN:VEVENT',
        'UID:two@example.org',
        'DTSTAMP:20270101T000000Z',
        'DTSTART;VALUE=DATE:20270308',
        'DTEND;VALUE=DATE:20270320',
        'END:VEVENT',
        'END:VCALENDAR',
      ].join('\r\n');

      expect((await busy(text, range)).busy).toEqual([
        iso('2027-03-10T18:30:00Z', '2027-03-12T08:00:00Z'),
      ]);
    });
  },
);

describe('what is not a calendar, or not all readable', () => {
  test('an HTML page (a sign-in page, an expired link) is refused as not a calendar', async () => {
    const page = '<!DOCTYPE html><html><body>Sign in to continue</body></html>';

    await expect(readBusyTimes(page, RANGE, STUDIO_ZONE)).rejects.toThrow(
      new UnreadableCalendarError('This is not an iCalendar file.'),
    );
  });

  test('a calendar the parser cannot read at all is an error, not an empty calendar', async () => {
    const broken = calendar('DTSTART:20270302T180000Z', 'DTSTART:20270302T190000Z');

    await expect(readBusyTimes(broken, RANGE, STUDIO_ZONE)).rejects.toBeInstanceOf(
      UnreadableCalendarError,
    );
  });

  test('a calendar with no events is not busy at all', async () => {
    const empty = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n';

    expect(await busy(empty)).toEqual({ unreadable: 0, busy: [] });
  });

  test('an event with a broken date is counted as unreadable and the rest is still read', async () => {
    const text = calendar(
      'DTSTART;TZID=America/Los_Angeles:20270302T120000',
      'DTEND;TZID=America/Los_Angeles:20270302T123000',
      'RDATE:next tuesday',
    ).replace(
      'END:VCALENDAR',
      [
        'BEGIN:VEVENT',
        'UID:two@example.org',
        'DTSTAMP:20270101T000000Z',
        'DTSTART:20270303T180000Z',
        'DTEND:20270303T190000Z',
        'END:VEVENT',
        'END:VCALENDAR',
      ].join('\r\n'),
    );

    expect(await busy(text)).toEqual({
      unreadable: 1,
      busy: [iso('2027-03-03T18:00:00Z', '2027-03-03T19:00:00Z')],
    });
  });
});

describe('busy times and slots together', () => {
  test('the calendar read over the slots’ own range takes away the slots its events touch', async () => {
    const query = {
      availability: availability(),
      timeZone: STUDIO_ZONE,
      now: new Date('2027-03-07T12:00:00Z'),
      bookings: [],
    };
    const { busy } = await readBusyTimes(fixture('google.ics'), slotRange(query), STUDIO_ZONE);

    const days = freeSlots({ ...query, blocked: busy });

    // The Tuesday class, 9:00-10:00 AM: the morning's first slot is 10:00.
    expect(day(days, '2027-03-09')?.slots[0]?.time).toBe('10:00');
    // Friday 19 March is a day off; Monday is untouched.
    expect(day(days, '2027-03-19')).toBeUndefined();
    expect(day(days, '2027-03-08')?.slots).toHaveLength(18);
  });
});
