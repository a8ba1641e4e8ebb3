/**
 * Portland's clocks change on Sunday 14 March 2027 (2:00 AM becomes 3:00 AM: PST, UTC-8, to PDT,
 * UTC-7) and on Sunday 1 November 2026 (2:00 AM PDT becomes 1:00 AM PST: 1:00-1:59 happens twice).
 * These windows are deliberately placed across those hours.
 */
import { describe, expect, test } from 'vitest';
import type { BookingWindow } from '../../src/shared/booking/availability';
import type { Interval } from '../../src/shared/booking/intervals';
import { freeSlots } from '../../src/shared/booking/slots';
import { allSlots, availability, day, span, STUDIO_ZONE } from '../fixtures/booking';

function sundaySlots(
  date: string,
  windows: BookingWindow[],
  now: string,
  bookings: Interval[] = [],
) {
  const days = freeSlots({
    availability: availability({ windows, noticeHours: 0, horizonDays: 14 }),
    timeZone: STUDIO_ZONE,
    now: new Date(now),
    bookings,
  });
  return { days, sunday: day(days, date)?.slots ?? [] };
}

const NIGHT: BookingWindow = { days: ['Su'], from: '01:00', to: '04:00' };

describe('the spring-forward night (2027-03-14)', () => {
  const before = '2027-03-13T20:00:00Z'; // Saturday noon PST

  test('a window across the skipped hour offers its two real hours, none labelled 2:xx', () => {
    const { sunday } = sundaySlots('2027-03-14', [NIGHT], before);

    expect(sunday.map((slot) => slot.label)).toEqual([
      '1:00 AM PST',
      '1:15 AM PST',
      '1:30 AM PST',
      '1:45 AM PST',
      '3:00 AM PDT',
      '3:15 AM PDT',
      '3:30 AM PDT',
      '3:45 AM PDT',
    ]);
    expect(sunday.map((slot) => slot.start)).toEqual([
      '2027-03-14T09:00:00Z',
      '2027-03-14T09:15:00Z',
      '2027-03-14T09:30:00Z',
      '2027-03-14T09:45:00Z',
      '2027-03-14T10:00:00Z',
      '2027-03-14T10:15:00Z',
      '2027-03-14T10:30:00Z',
      '2027-03-14T10:45:00Z',
    ]);
    expect(sunday.filter((slot) => slot.time.startsWith('02:'))).toEqual([]);
  });

  test('a window set to start at a skipped time (2:30 AM) starts at the same instant, 3:30 AM PDT', () => {
    const { sunday } = sundaySlots('2027-03-14', [{ ...NIGHT, from: '02:30' }], before);

    expect(sunday.map((slot) => [slot.time, slot.start])).toEqual([
      ['03:30', '2027-03-14T10:30:00Z'],
      ['03:45', '2027-03-14T10:45:00Z'],
    ]);
  });

  test('a daytime window keeps its count on the change day, one hour earlier in UTC than the week before', () => {
    const morning: BookingWindow = { days: ['Su'], from: '09:00', to: '11:30' };
    const { days, sunday } = sundaySlots('2027-03-14', [morning], '2027-03-06T20:00:00Z');
    const weekBefore = day(days, '2027-03-07')!.slots;

    expect(sunday).toHaveLength(10);
    expect(weekBefore).toHaveLength(10);
    expect(weekBefore[0]).toMatchObject({ start: '2027-03-07T17:00:00Z', label: '9:00 AM PST' });
    expect(sunday[0]).toMatchObject({ start: '2027-03-14T16:00:00Z', label: '9:00 AM PDT' });
  });

  test('the buffer after a booking counts real minutes across the skipped hour', () => {
    const bookings = [span('2027-03-14T09:45:00Z', '2027-03-14T10:00:00Z')]; // 1:45 AM PST
    const { sunday } = sundaySlots('2027-03-14', [NIGHT], before, bookings);

    const labels = sunday.map((slot) => slot.label);
    expect(labels).not.toContain('3:00 AM PDT'); // 15 real minutes after 1:45 AM PST ends
    expect(labels).toContain('3:15 AM PDT');
    expect(labels).toContain('1:15 AM PST');
    expect(labels).not.toContain('1:30 AM PST');
  });

  test('notice is counted in real hours: 12 hours after 8 PM Saturday is 9 AM Sunday', () => {
    const morning: BookingWindow = { days: ['Su'], from: '08:00', to: '10:00' };
    const days = freeSlots({
      availability: availability({ windows: [morning], noticeHours: 12 }),
      timeZone: STUDIO_ZONE,
      now: new Date('2027-03-14T04:00:00Z'), // Saturday 8:00 PM PST
      bookings: [],
    });

    expect(days[0]?.date).toBe('2027-03-14');
    expect(days[0]?.slots[0]).toMatchObject({
      label: '9:00 AM PDT',
      start: '2027-03-14T16:00:00Z',
    });
  });
});

describe('the fall-back night (2026-11-01)', () => {
  const before = '2026-10-31T19:00:00Z'; // Saturday noon PDT
  const window: BookingWindow = { days: ['Su'], from: '00:30', to: '02:30' };

  test('a window across the repeated hour offers its three real hours, each 1:xx once as PDT and once as PST', () => {
    const { sunday } = sundaySlots('2026-11-01', [window], before);

    expect(sunday.map((slot) => slot.label)).toEqual([
      '12:30 AM PDT',
      '12:45 AM PDT',
      '1:00 AM PDT',
      '1:15 AM PDT',
      '1:30 AM PDT',
      '1:45 AM PDT',
      '1:00 AM PST',
      '1:15 AM PST',
      '1:30 AM PST',
      '1:45 AM PST',
      '2:00 AM PST',
      '2:15 AM PST',
    ]);
    expect(sunday[0]?.start).toBe('2026-11-01T07:30:00Z');
    expect(sunday.find((slot) => slot.label === '1:00 AM PDT')?.start).toBe('2026-11-01T08:00:00Z');
    expect(sunday.find((slot) => slot.label === '1:00 AM PST')?.start).toBe('2026-11-01T09:00:00Z');
    expect(sunday.at(-1)).toMatchObject({
      start: '2026-11-01T10:15:00Z',
      end: '2026-11-01T10:30:00Z',
    });
  });

  test('a window that starts in the repeated hour starts at its first occurrence', () => {
    const { sunday } = sundaySlots(
      '2026-11-01',
      [{ days: ['Su'], from: '01:30', to: '02:00' }],
      before,
    );

    expect(sunday[0]).toMatchObject({ label: '1:30 AM PDT', start: '2026-11-01T08:30:00Z' });
    expect(sunday).toHaveLength(6); // 1:30 PDT to 2:00 PST is 90 real minutes
  });

  test('a booking in the first 1:30 AM leaves the second one free', () => {
    const bookings = [span('2026-11-01T08:30:00Z', '2026-11-01T08:45:00Z')]; // 1:30 AM PDT
    const { sunday } = sundaySlots('2026-11-01', [window], before, bookings);

    const labels = sunday.map((slot) => slot.label);
    expect(labels).not.toContain('1:30 AM PDT');
    expect(labels).toContain('1:30 AM PST');
  });

  test('a daytime window keeps its count on the change day, one hour later in UTC than the day before', () => {
    const morning: BookingWindow = { days: ['Sa', 'Su'], from: '09:00', to: '11:30' };
    const { days, sunday } = sundaySlots('2026-11-01', [morning], '2026-10-30T19:00:00Z');

    expect(sunday).toHaveLength(10);
    expect(day(days, '2026-10-31')!.slots[0]).toMatchObject({
      start: '2026-10-31T16:00:00Z',
      label: '9:00 AM PDT',
    });
    expect(sunday[0]).toMatchObject({ start: '2026-11-01T17:00:00Z', label: '9:00 AM PST' });
  });
});

describe('across both changes', () => {
  test('three weeks around each change offer no instant twice, and every label is the instant read in Portland', () => {
    const windows: BookingWindow[] = [
      { days: ['Sa', 'Su'], from: '00:00', to: '04:00' },
      { days: ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'], from: '09:00', to: '11:30' },
    ];
    const read = new Intl.DateTimeFormat('en-US', {
      timeZone: STUDIO_ZONE,
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    });
    for (const now of ['2026-10-25T12:00:00Z', '2027-03-07T12:00:00Z']) {
      const slots = allSlots(
        freeSlots({
          availability: availability({ windows, noticeHours: 0, horizonDays: 21 }),
          timeZone: STUDIO_ZONE,
          now: new Date(now),
          bookings: [],
        }),
      );
      const starts = slots.map((slot) => slot.start);

      expect(new Set(starts).size).toBe(starts.length);
      expect([...starts].sort()).toEqual(starts);
      for (const slot of slots) {
        expect(slot.label).toBe(read.format(new Date(slot.start)).replace(/\s/g, ' '));
      }
    }
  });
});
