/**
 * content/consultation.yaml is edited by hand: each mistake gets a message that names the field
 * and says what to write instead. (That the build fails on them, naming the file, is in
 * content-schema.test.ts; this file checks every rule directly, as the functions use it.)
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { availabilitySchema } from '../../src/shared/booking/availability';
import { consultationPlace } from '../../src/shared/booking/place';
import { addressSchema, formatAddress, timeZoneSchema } from '../../src/shared/studio';

const VALID = {
  lengthMinutes: 15,
  bufferMinutes: 15,
  noticeHours: 12,
  horizonDays: 21,
  windows: [
    { days: ['Mo', 'Tu', 'We', 'Th', 'Fr'], from: '09:00', to: '11:30' },
    { days: ['Mo', 'Tu', 'We', 'Th', 'Fr'], from: '15:00', to: '17:00' },
    { days: ['Sa'], from: '09:00', to: '11:00' },
  ],
  where: 'studio',
};

/** Every problem as "path: message", as a person would read it. */
function problems(changes: Record<string, unknown>): string[] {
  const result = availabilitySchema.safeParse({ ...VALID, ...changes });
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const windows = (...list: { days: string[]; from: string; to: string }[]) => ({ windows: list });

describe('the consultation availability', () => {
  test('the shipped shape is accepted, with no buffer when none is given', () => {
    expect(problems({})).toEqual([]);
    const { bufferMinutes: _, ...withoutBuffer } = VALID;
    expect(availabilitySchema.parse(withoutBuffer).bufferMinutes).toBe(0);
  });

  test('a window that ends before it starts is refused, naming its end', () => {
    expect(problems(windows({ days: ['Mo'], from: '11:30', to: '09:00' }))).toEqual([
      'windows.0.to: ends at 09:00, which is not after its start, 11:30',
    ]);
  });

  test('a window that ends when it starts is refused too', () => {
    expect(problems(windows({ days: ['Mo'], from: '09:00', to: '09:00' }))).toEqual([
      'windows.0.to: ends at 09:00, which is not after its start, 09:00',
    ]);
  });

  test('a window too short for one consultation is refused', () => {
    expect(problems(windows({ days: ['Mo'], from: '09:00', to: '09:10' }))).toEqual([
      'windows.0.to: is shorter than one consultation (15 minutes)',
    ]);
  });

  test('an unknown weekday is refused, listing the ones to use', () => {
    expect(problems(windows({ days: ['Mo', 'Moonday'], from: '09:00', to: '10:00' }))).toEqual([
      'windows.0.days.1: Moonday is not a day: use Mo, Tu, We, Th, Fr, Sa or Su',
    ]);
  });

  test('a weekday written out (Monday, thu) is taken as meant', () => {
    const parsed = availabilitySchema.parse({
      ...VALID,
      ...windows({ days: ['Monday', 'thu', 'SAT'], from: '09:00', to: '10:00' }),
    });
    expect(parsed.windows[0]!.days).toEqual(['Mo', 'Th', 'Sa']);
  });

  test('a weekday listed twice in one window is refused', () => {
    expect(problems(windows({ days: ['Mo', 'Tu', 'Mo'], from: '09:00', to: '10:00' }))).toEqual([
      'windows.0.days: lists Mo twice',
    ]);
  });

  test('windows that overlap on a shared day are refused, naming the later one and the day', () => {
    const overlapping = windows(
      { days: ['Mo', 'Tu'], from: '09:00', to: '11:30' },
      { days: ['Tu', 'We'], from: '11:00', to: '12:00' },
    );

    expect(problems(overlapping)).toEqual(['windows.1: overlaps the window 09:00-11:30 on Tu']);
  });

  test('windows that only touch, or overlap on different days, are accepted', () => {
    const touching = windows(
      { days: ['Mo'], from: '09:00', to: '10:00' },
      { days: ['Mo'], from: '10:00', to: '11:00' },
      { days: ['Tu'], from: '09:30', to: '10:30' },
    );

    expect(problems(touching)).toEqual([]);
  });

  test.each([
    ['24:00', 'an hour past 23'],
    ['09:60', 'a minute past 59'],
    ['nine', 'words'],
  ])('a time written %s (%s) is refused, asking for HH:MM', (time) => {
    expect(problems(windows({ days: ['Mo'], from: time, to: '11:00' }))).toEqual([
      "windows.0.from: use a 24-hour time between 00:00 and 23:59, e.g. '09:00'",
    ]);
  });

  test.each([
    ['9:00', '09:00'],
    ['9am', '09:00'],
    ['9:30 AM', '09:30'],
  ])('a time written %s is taken as %s', (time, clock) => {
    const parsed = availabilitySchema.parse({
      ...VALID,
      ...windows({ days: ['Mo'], from: time, to: '11:00' }),
    });
    expect(parsed.windows[0]!.from).toBe(clock);
  });

  test('lengths, buffers and steps are whole minutes; notice and horizon are bounded', () => {
    expect(problems({ lengthMinutes: 15.5 })).toEqual([
      'lengthMinutes: use a whole number of minutes one consultation lasts, e.g. 15 (from 5 to 240)',
    ]);
    expect(problems({ stepMinutes: 0 })[0]).toMatch(/^stepMinutes: /);
    expect(problems({ bufferMinutes: -5 })[0]).toMatch(/^bufferMinutes: /);
    expect(problems({ noticeHours: -1 })[0]).toMatch(/^noticeHours: /);
    expect(problems({ horizonDays: 0 })[0]).toMatch(/^horizonDays: /);
    expect(problems({ horizonDays: 2.5 })).toEqual([
      'horizonDays: use a whole number of days ahead a visitor may book, e.g. 21 (from 1 to 366)',
    ]);
  });

  test('no windows at all is refused', () => {
    expect(problems({ windows: [] })[0]).toMatch(/^windows: /);
  });

  test('a field the schema does not know (a typo) is refused rather than ignored', () => {
    expect(problems({ bufferMinute: 10 })[0]).toMatch(/bufferMinute/);
  });

  test('consultations by video need the link; at the studio they need none', () => {
    expect(problems({ where: 'video' })).toEqual([
      'videoLink: give the video call link (videoLink) when consultations happen by video',
    ]);
    expect(problems({ where: 'video', videoLink: 'https://meet.example.com/still-point' })).toEqual(
      [],
    );
    expect(problems({ where: 'garden' })).toEqual(['where: use studio or video']);
    expect(problems({ where: 'video', videoLink: 'not a link' })[0]).toMatch(/^videoLink: /);
  });

  test('prettified for a log line, every problem names its field', () => {
    const result = availabilitySchema.safeParse({ ...VALID, noticeHours: 'twelve' });

    expect(z.prettifyError(result.error!)).toMatch(/noticeHours/);
  });
});

describe('where the consultation happens', () => {
  const address = addressSchema.parse({
    street: '2140 SE Division St',
    locality: 'Portland',
    region: 'OR',
    postalCode: '97202',
    country: 'US',
  });

  test('at the studio, visitors read its address on one line', () => {
    expect(consultationPlace({ where: 'studio' }, address)).toEqual({
      kind: 'studio',
      label: 'At the studio',
      address: '2140 SE Division St, Portland, OR 97202',
    });
    expect(formatAddress(address)).toBe('2140 SE Division St, Portland, OR 97202');
  });

  test('by video, visitors read that it is a video call and get the link', () => {
    const link = 'https://meet.example.com/still-point';

    expect(consultationPlace({ where: 'video', videoLink: link }, address)).toEqual({
      kind: 'video',
      label: 'By video call',
      link,
    });
  });

  test('the studio’s zone must be an IANA name, not an abbreviation or an offset', () => {
    expect(timeZoneSchema.safeParse('America/Los_Angeles').success).toBe(true);
    expect(timeZoneSchema.safeParse('UTC').success).toBe(true);
    for (const zone of ['PST', '+02:00', 'Pacific/Nowhere']) {
      expect(timeZoneSchema.safeParse(zone).error?.issues[0]?.message).toMatch(/IANA/);
    }
  });
});
