import { describe, expect, test } from 'vitest';
import { studioFormats } from '../../src/islands/records/format';

// ICU puts thin and narrow no-break spaces around ranges and before AM/PM.
const plain = (text: string) => text.replace(/[\u2009\u202f]/g, ' ');
const LA = studioFormats('America/Los_Angeles');

describe('a span on the Consultations screen', () => {
  test('a blocked whole day reads as that day, all day', () => {
    expect(plain(LA.span('2026-12-14T08:00:00Z', '2026-12-15T08:00:00Z'))).toBe(
      'Mon, Dec 14 (all day)',
    );
  });

  test('blocked whole days read as the first and the last day, all day', () => {
    expect(plain(LA.span('2026-12-14T08:00:00Z', '2026-12-17T08:00:00Z'))).toBe(
      'Mon, Dec 14 – Wed, Dec 16 (all day)',
    );
    // Across the change to daylight time (Sunday, March 8, 2026 has 23 hours).
    expect(plain(LA.span('2026-03-07T08:00:00Z', '2026-03-09T07:00:00Z'))).toBe(
      'Sat, Mar 7 – Sun, Mar 8 (all day)',
    );
  });

  test('a span with hours keeps them', () => {
    expect(plain(LA.span('2026-12-14T17:00:00Z', '2026-12-14T19:30:00Z'))).toBe(
      'Mon, Dec 14, 9:00 – 11:30 AM PST',
    );
    // Midnight to noon is not a whole day.
    expect(plain(LA.span('2026-12-14T08:00:00Z', '2026-12-14T20:00:00Z'))).toMatch(/12:00 AM/);
  });
});
