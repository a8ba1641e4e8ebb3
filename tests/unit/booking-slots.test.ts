import { afterEach, describe, expect, test, vi } from 'vitest';
import { findSlot, nearestSlots } from '../../src/shared/booking/nearest';
import { freeSlots, heldSpan, slotRange } from '../../src/shared/booking/slots';
import { availability, day, span, STUDIO_ZONE } from '../fixtures/booking';

// Sunday 7 March 2027, 4:00 AM in Portland (PST, UTC-8): the week ahead has no clock change.
const SUNDAY = new Date('2027-03-07T12:00:00Z');

type Query = Parameters<typeof freeSlots>[0];
const QUERY: Query = {
  availability: availability(),
  timeZone: STUDIO_ZONE,
  now: SUNDAY,
  bookings: [],
};

function slots(changes: Parameters<typeof availability>[0] = {}, more: Partial<Query> = {}) {
  return freeSlots({ ...QUERY, availability: availability(changes), ...more });
}

const startsOn = (days: ReturnType<typeof slots>, date: string) =>
  day(days, date)?.slots.map((slot) => slot.time) ?? [];

afterEach(() => {
  vi.useRealTimers();
});

describe('free consultation slots', () => {
  test('a weekday offers every 15 minutes of both windows, each with its instant and the studio-local label', () => {
    const monday = day(slots(), '2027-03-08')!;

    expect(monday.label).toBe('Monday, March 8');
    expect(monday.slots).toHaveLength(10 + 8);
    expect(monday.slots[0]).toEqual({
      start: '2027-03-08T17:00:00Z',
      end: '2027-03-08T17:15:00Z',
      time: '09:00',
      label: '9:00 AM PST',
    });
    expect(monday.slots.at(9)?.time).toBe('11:15');
    expect(monday.slots.at(10)?.label).toBe('3:00 PM PST');
    expect(monday.slots.at(-1)).toMatchObject({ time: '16:45', end: '2027-03-09T01:00:00Z' });
  });

  test('days are the studio’s dates in order, and a day without windows (Sunday) is left out', () => {
    const dates = slots().map((entry) => entry.date);

    expect(dates.slice(0, 7)).toEqual([
      '2027-03-08',
      '2027-03-09',
      '2027-03-10',
      '2027-03-11',
      '2027-03-12',
      '2027-03-13',
      '2027-03-15',
    ]);
    expect(startsOn(slots(), '2027-03-13')).toHaveLength(8);
  });

  test('the first slot offered is at least the notice after now, counted to the minute', () => {
    // Monday 8 March, 3:00 AM PST: with 12 hours' notice, 3:00 PM is the earliest start.
    const atThree = slots({}, { now: new Date('2027-03-08T11:00:00Z') });
    const aMinuteLater = slots({}, { now: new Date('2027-03-08T11:01:00Z') });

    expect(atThree[0]?.date).toBe('2027-03-08');
    expect(atThree[0]?.slots[0]?.time).toBe('15:00');
    expect(aMinuteLater[0]?.slots[0]?.time).toBe('15:15');
  });

  test('slots run through the horizon’s last day, counted in the studio’s dates, and no further', () => {
    const days = slots({ horizonDays: 21 });

    // Today is 7 March: the 21st day after it is Sunday 28 March, which has no window.
    expect(days.at(-1)?.date).toBe('2027-03-27');
    expect(slots({ horizonDays: 22 }).at(-1)?.date).toBe('2027-03-29');
    // From now + 12 hours to the midnight (PDT by then) that ends Sunday 28 March.
    expect(slotRange({ ...QUERY, availability: availability({ horizonDays: 21 }) })).toEqual(
      span('2027-03-08T00:00:00Z', '2027-03-29T07:00:00Z'),
    );
  });

  test('a booking blocks itself and the buffer after it, and no slot starts within a buffer before it', () => {
    const bookings = [span('2027-03-09T18:00:00Z', '2027-03-09T18:15:00Z')]; // 10:00 AM PST

    const tuesday = startsOn(slots({}, { bookings }), '2027-03-09');

    expect(tuesday).toContain('09:30');
    expect(tuesday).not.toContain('09:45');
    expect(tuesday).not.toContain('10:00');
    expect(tuesday).not.toContain('10:15');
    expect(tuesday).toContain('10:30');
  });

  test('a booking at the end of a window still keeps its buffer on the side inside the window', () => {
    const bookings = [span('2027-03-09T19:15:00Z', '2027-03-09T19:30:00Z')]; // 11:15 AM PST

    const morning = startsOn(slots({}, { bookings }), '2027-03-09').filter((t) => t < '12:00');

    expect(morning.slice(-2)).toEqual(['10:30', '10:45']);
  });

  test('what a booking holds is its own span and the buffer after it', () => {
    const booking = span('2027-03-09T18:00:00Z', '2027-03-09T18:15:00Z');

    expect(heldSpan(booking, availability({ bufferMinutes: 15 }))).toEqual(
      span('2027-03-09T18:00:00Z', '2027-03-09T18:30:00Z'),
    );
    expect(heldSpan(booking, availability({ bufferMinutes: 0 }))).toEqual(booking);
  });

  test('without a buffer the slot right after a booking is offered', () => {
    const bookings = [span('2027-03-09T18:00:00Z', '2027-03-09T18:15:00Z')];

    const tuesday = startsOn(slots({ bufferMinutes: 0 }, { bookings }), '2027-03-09');

    expect(tuesday).toEqual(expect.arrayContaining(['09:45', '10:15']));
    expect(tuesday).not.toContain('10:00');
  });

  test('a span blocked on the desk removes every slot whose consultation or buffer reaches into it', () => {
    const blocked = [span('2027-03-10T00:30:00Z', '2027-03-10T01:00:00Z')]; // 4:30-5:00 PM PST

    const afternoon = startsOn(slots({}, { blocked }), '2027-03-09').filter((t) => t > '12:00');

    expect(afternoon.slice(-2)).toEqual(['15:45', '16:00']);
  });

  test('busy times from the calendar remove the slots they touch, and a whole busy day disappears', () => {
    const blocked = [
      span('2027-03-11T17:20:00Z', '2027-03-11T17:40:00Z'), // Thursday 9:20-9:40 AM PST
      span('2027-03-12T08:00:00Z', '2027-03-13T08:00:00Z'), // all of Friday in Portland
    ];

    const days = slots({}, { blocked });

    expect(startsOn(days, '2027-03-11').slice(0, 2)).toEqual(['09:45', '10:00']);
    expect(day(days, '2027-03-12')).toBeUndefined();
    expect(startsOn(days, '2027-03-13')).toHaveLength(8);
  });

  test('without a step, slots start every consultation length', () => {
    const monday = startsOn(slots({ lengthMinutes: 30, stepMinutes: undefined }), '2027-03-08');

    expect(monday.slice(0, 5)).toEqual(['09:00', '09:30', '10:00', '10:30', '11:00']);
    expect(monday).toHaveLength(5 + 4);
  });

  test('now is what the caller passes: the system clock changes nothing', () => {
    const before = slots();
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2031-01-01T00:00:00Z'));

    expect(slots()).toEqual(before);
  });

  test('the zone the server runs in changes nothing', () => {
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const inUtc = slots();
      process.env.TZ = 'Asia/Kolkata';
      expect(new Date(2027, 0, 1).getTimezoneOffset()).toBe(-330);
      expect(slots()).toEqual(inUtc);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('the days kept from one request to the next', () => {
  test('asking again with the same availability gives the same slots, each a copy of its own', () => {
    const kept = availability();
    const first = freeSlots({ ...QUERY, availability: kept });
    const firstMonday = structuredClone(day(first, '2027-03-08'));
    day(first, '2027-03-08')!.slots[0].label = 'changed by a caller';
    const again = freeSlots({
      ...QUERY,
      availability: kept,
      now: new Date('2027-03-07T13:00:00Z'),
    });
    expect(day(again, '2027-03-08')).toEqual(firstMonday);
  });

  test('a changed availability is read afresh, even as the same object', () => {
    const kept = availability();
    expect(startsOn(freeSlots({ ...QUERY, availability: kept }), '2027-03-08')).toHaveLength(18);
    kept.windows = [{ days: ['Mo'], from: '09:00', to: '10:00' }];
    expect(startsOn(freeSlots({ ...QUERY, availability: kept }), '2027-03-08')).toEqual([
      '09:00',
      '09:15',
      '09:30',
      '09:45',
    ]);
  });

  test('the zone is part of what is kept', () => {
    const kept = availability();
    const portland = day(freeSlots({ ...QUERY, availability: kept }), '2027-03-08')!;
    const newYork = day(
      freeSlots({ ...QUERY, availability: kept, timeZone: 'America/New_York' }),
      '2027-03-08',
    )!;
    expect(portland.slots[0]).toMatchObject({
      start: '2027-03-08T17:00:00Z',
      label: '9:00 AM PST',
    });
    expect(newYork.slots[0]).toMatchObject({ start: '2027-03-08T14:00:00Z', label: '9:00 AM EST' });
  });
});

describe('when the chosen slot was taken meanwhile', () => {
  const bookings = [span('2027-03-09T18:00:00Z', '2027-03-09T18:15:00Z')]; // Tuesday 10:00 AM

  test('the nearest free slots around it are offered, in time order', () => {
    const nearest = nearestSlots(slots({}, { bookings }), new Date('2027-03-09T18:00:00Z'));

    expect(nearest.map((slot) => slot.label)).toEqual([
      '9:15 AM PST',
      '9:30 AM PST',
      '10:30 AM PST',
    ]);
  });

  test('the nearest slots may lie on another day', () => {
    const wanted = new Date('2027-03-13T18:45:00Z'); // Saturday 10:45 AM, the last slot of the week
    const blocked = [span('2027-03-13T17:00:00Z', '2027-03-13T19:00:00Z')];

    const nearest = nearestSlots(slots({}, { blocked }), wanted, 2);

    expect(nearest.map((slot) => slot.start)).toEqual([
      '2027-03-13T00:30:00Z', // Friday 4:30 PM PST
      '2027-03-13T00:45:00Z', // Friday 4:45 PM PST
    ]);
  });

  test('a posted start is found while it is free, and not once it is taken or if it is no slot', () => {
    const free = slots();
    const taken = slots({}, { bookings });

    expect(findSlot(free, '2027-03-09T18:00:00Z')?.label).toBe('10:00 AM PST');
    expect(findSlot(free, '2027-03-09T10:00:00.000-08:00')?.start).toBe('2027-03-09T18:00:00Z');
    expect(findSlot(taken, '2027-03-09T18:00:00Z')).toBeUndefined();
    expect(findSlot(free, '2027-03-09T18:05:00Z')).toBeUndefined();
    expect(findSlot(free, 'tomorrow at ten')).toBeUndefined();
  });
});
