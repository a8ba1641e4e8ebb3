/**
 * The slips a content field takes as meant (src/shared/content-fields.ts): only where what she
 * meant is plain; anything else is left for the field's message.
 */
import { describe, expect, test } from 'vitest';
import { clockOf, dollarsOf, weekdayOf } from '../../src/shared/content-fields';

describe('taken as meant', () => {
  test.each([
    ['$125', 125],
    ['125.00', 125],
    ['$ 22.50', 22.5],
    ['$1,250', 1250],
  ])('the price %s is %d dollars', (written, dollars) => {
    expect(dollarsOf(written)).toBe(dollars);
  });

  test.each([
    ['Thu', 'Th'],
    ['thursday', 'Th'],
    ['THURS.', 'Th'],
    ['th', 'Th'],
    ['Sat', 'Sa'],
    ['Sunday', 'Su'],
    ['tue', 'Tu'],
  ])('the day %s is %s', (written, day) => {
    expect(weekdayOf(written)).toBe(day);
  });

  test.each([
    ['6:00', '06:00'],
    ['6 PM', '18:00'],
    ['6:30pm', '18:30'],
    ['12 am', '00:00'],
    ['12:15 p.m.', '12:15'],
  ])('the time %s is %s', (written, time) => {
    expect(clockOf(written)).toBe(time);
  });
});

describe('left as written, for the message to say what to write', () => {
  test.each(['one hundred', '125 dollars', '$12.345', '1,25'])('the price %s', (written) => {
    expect(dollarsOf(written)).toBe(written);
  });

  test.each(['T', 'S', 'Tx', 'Holiday'])('the day %s', (written) => {
    expect(weekdayOf(written)).toBe(written);
  });

  test.each(['6', '25:00', '13 PM', 'noon'])('the time %s', (written) => {
    expect(clockOf(written)).toBe(written);
  });
});
