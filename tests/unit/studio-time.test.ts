import { Temporal } from 'temporal-polyfill';
import { describe, expect, test } from 'vitest';
import { readNow } from '../../src/lib/clock';
import {
  describeWhen,
  isoWithOffset,
  isTimeZone,
  zonedTime,
  type ZonedResult,
} from '../../src/lib/studio-time';

const LA = 'America/Los_Angeles';

function at(result: ZonedResult): Temporal.ZonedDateTime {
  if (!result.ok) throw new Error(result.message);
  return result.at;
}
const message = (result: ZonedResult) => (result.ok ? '' : result.message);
const utc = (zoned: Temporal.ZonedDateTime) => zoned.toInstant().toString();
// ICU puts thin and narrow no-break spaces around ranges and before AM/PM.
const plain = (text: string | undefined) => text?.replace(/[\u2009\u202f]/g, ' ');

describe('a local time written in a content file', () => {
  test('in summer it is read at the studio’s daylight offset, in winter at its standard offset', () => {
    expect(utc(at(zonedTime('2026-06-14 09:00', LA)))).toBe('2026-06-14T16:00:00Z');
    expect(utc(at(zonedTime('2026-12-05 09:00', LA)))).toBe('2026-12-05T17:00:00Z');
    expect(utc(at(zonedTime('2026-06-14T09:00', LA)))).toBe('2026-06-14T16:00:00Z');
    expect(utc(at(zonedTime('2026-06-14 09:00:30', LA)))).toBe('2026-06-14T16:00:30Z');
  });

  test('the same wall time is another instant in another zone', () => {
    expect(utc(at(zonedTime('2026-06-14 09:00', 'Europe/Berlin')))).toBe('2026-06-14T07:00:00Z');
  });

  test('01:30 on 2026-11-01 happens twice in Los Angeles: refused, offering both offsets', () => {
    expect(message(zonedTime('2026-11-01 01:30', LA))).toBe(
      '2026-11-01 01:30 happens twice in America/Los_Angeles: the clocks go back from 02:00 to 01:00 that night. ' +
        'Write 2026-11-01 01:30-07:00 for the first one or 2026-11-01 01:30-08:00 for the second',
    );
  });

  test('with its offset written, the repeated 01:30 is the first or the second one, an hour apart', () => {
    const first = at(zonedTime('2026-11-01 01:30-07:00', LA));
    const second = at(zonedTime('2026-11-01 01:30 -08:00', LA));
    expect(utc(first)).toBe('2026-11-01T08:30:00Z');
    expect(utc(second)).toBe('2026-11-01T09:30:00Z');
  });

  test('02:30 on 2027-03-14 does not exist in Los Angeles: refused, saying the clocks skip 02:00 to 03:00', () => {
    expect(message(zonedTime('2027-03-14 02:30', LA))).toBe(
      '2027-03-14 02:30 does not exist in America/Los_Angeles: the clocks go forward from 02:00 to 03:00 that night. Choose another time',
    );
    expect(message(zonedTime('2027-03-14 02:00', LA))).toMatch(/does not exist/);
  });

  test('the minutes either side of the skipped hour are times like any other', () => {
    expect(utc(at(zonedTime('2027-03-14 01:59', LA)))).toBe('2027-03-14T09:59:00Z');
    expect(utc(at(zonedTime('2027-03-14 03:00', LA)))).toBe('2027-03-14T10:00:00Z');
  });

  test('an offset the zone does not have at that time is refused', () => {
    expect(message(zonedTime('2026-06-14 09:00-08:00', LA))).toMatch(
      /^2026-06-14 09:00-08:00 is not a time in America\/Los_Angeles/,
    );
  });

  test('text that is not a date and time, or a day not on the calendar, is refused with what to write', () => {
    expect(message(zonedTime('June 14, 9am', LA))).toBe(
      '"June 14, 9am" is not a date and time: write it as 2026-06-14 09:00 (24-hour clock, local time)',
    );
    expect(message(zonedTime('2026-06-14', LA))).toMatch(/write it as 2026-06-14 09:00/);
    expect(message(zonedTime('2026-02-30 09:00', LA))).toBe(
      '"2026-02-30 09:00" is not a date on the calendar',
    );
  });

  test('an evening class over the night clocks go back lasts its real length, one hour more than the wall suggests', () => {
    const start = at(zonedTime('2026-10-31 22:00', LA));
    const end = at(zonedTime('2026-11-01 01:30-08:00', LA));
    expect(start.until(end, { largestUnit: 'hours' }).toString()).toBe('PT4H30M');
  });
});

describe('IANA time zone names', () => {
  test('a real zone and UTC are accepted; an invented one and an abbreviation are not', () => {
    expect(isTimeZone('America/Los_Angeles')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Pacific/Nowhere')).toBe(false);
    expect(isTimeZone('PST')).toBe(false);
  });
});

describe('when an event happens, in words', () => {
  test('an event within one day: its date, and its times with the zone they are in', () => {
    const when = describeWhen(
      at(zonedTime('2026-06-14 09:00', LA)),
      at(zonedTime('2026-06-14 11:00', LA)),
    );
    expect(when.date).toBe('Sunday, June 14, 2026');
    expect(plain(when.time)).toBe('9:00 – 11:00 AM PDT');
  });

  test('a winter event says PST, and one in Berlin says its own zone', () => {
    const winter = describeWhen(
      at(zonedTime('2026-12-05 18:00', LA)),
      at(zonedTime('2026-12-05 19:30', LA)),
    );
    expect(plain(winter.time)).toBe('6:00 – 7:30 PM PST');
    const berlin = describeWhen(
      at(zonedTime('2026-06-14 10:00', 'Europe/Berlin')),
      at(zonedTime('2026-06-14 11:00', 'Europe/Berlin')),
    );
    expect(plain(berlin.time)).toBe('10:00 – 11:00 AM GMT+2');
  });

  test('an event over the night the clocks go back names both offsets, in one line', () => {
    const when = describeWhen(
      at(zonedTime('2026-10-31 22:00', LA)),
      at(zonedTime('2026-11-01 01:30-08:00', LA)),
    );
    expect(plain(when.date)).toBe(
      'Saturday, October 31, 2026 at 10:00 PM PDT – Sunday, November 1, 2026 at 1:30 AM PST',
    );
    expect(when.time).toBeUndefined();
  });

  test('machine-readable times keep the offset, to the minute', () => {
    expect(isoWithOffset(at(zonedTime('2026-11-01 01:30-08:00', LA)))).toBe(
      '2026-11-01T01:30-08:00',
    );
  });
});

describe("the build's clock", () => {
  test('BUILD_NOW sets it to the instant written; unset, it is the real time', () => {
    expect(readNow({ BUILD_NOW: '2026-10-20T17:00:00Z' }).toString()).toBe('2026-10-20T17:00:00Z');
    expect(readNow({ BUILD_NOW: '2026-10-20T10:00:00-07:00' }).toString()).toBe(
      '2026-10-20T17:00:00Z',
    );
    const before = Temporal.Now.instant();
    const now = readNow({});
    const after = Temporal.Now.instant();
    expect(Temporal.Instant.compare(now, before)).toBeGreaterThanOrEqual(0);
    expect(Temporal.Instant.compare(now, after)).toBeLessThanOrEqual(0);
  });

  test('a BUILD_NOW without an offset stops the build, naming the setting and an example', () => {
    expect(() => readNow({ BUILD_NOW: '2026-10-20 10:00' })).toThrow(
      'BUILD_NOW must be an instant with its offset, e.g. 2026-06-01T12:00:00Z (got "2026-10-20 10:00")',
    );
  });
});
