/**
 * content/classes.yaml: the defaults (4 places, minimum 2), a class's own numbers, the mistakes
 * only the whole timetable shows (a minimum above the places, two classes at once, a name twice)
 * in her words, and the dates it makes in the studio's zone across the night the clocks change.
 */
import { describe, expect, test } from 'vitest';
import { timetableSchema } from '../../src/shared/classes/timetable';
import { timetableOccurrences } from '../../src/server/classes/occurrences';

const VALID = {
  cutoffHours: 12,
  claimHoldHours: 3,
  cancelHoursBefore: 24,
  cancellationPolicy: 'You can cancel your place free of charge up to 24 hours before the class.',
  classes: [{ name: 'Mat Foundations', days: ['Tu', 'Th'], time: '18:00', lengthMinutes: 55 }],
};

const messages = (data: unknown) => {
  const result = timetableSchema.safeParse(data);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the schema', () => {
  test('places 4, minimum 2 and 4 weeks ahead unless content says otherwise', () => {
    expect(timetableSchema.parse(VALID)).toMatchObject({ capacity: 4, minimum: 2, weeksAhead: 4 });
  });

  test("a class's minimum above its places, two classes at once, a name twice: said in her words", () => {
    expect(
      messages({
        ...VALID,
        classes: [
          ...VALID.classes,
          {
            name: 'Reformer',
            days: ['Tu'],
            time: '18:30',
            lengthMinutes: 45,
            capacity: 2,
            minimum: 3,
          },
          { name: 'Mat Foundations', days: ['Sa'], time: '9:30 AM', lengthMinutes: 55 },
        ],
      }),
    ).toEqual([
      "classes.1.minimum: is 3, more than the class's 2 places: use a number up to 2, e.g. 2",
      'classes.1.time: overlaps Mat Foundations (18:00) on Tu',
      'classes.2.name: is the name of another class too: give each class its own name',
    ]);
  });

  test('a missing cutoff or hold says what to write', () => {
    const { cancelHoursBefore, cancellationPolicy, classes } = VALID;
    expect(messages({ cancelHoursBefore, cancellationPolicy, classes })).toEqual([
      'cutoffHours: missing: use a number of hours before a class, e.g. 12 (from 0 to 168)',
      'claimHoldHours: missing: use a number of hours a freed place is held for the person offered it, e.g. 3 (from 0.25 to 72)',
    ]);
  });

  test('a cancellation policy naming other hours than cancelHoursBefore says so', () => {
    expect(messages({ ...VALID, cancelHoursBefore: 48 })).toEqual([
      'cancellationPolicy: does not say 48 hours, as cancelHoursBefore does: use the same number, e.g. You can cancel your place free of charge up to 48 hours before the class starts.',
    ]);
  });
});

describe('the dates', () => {
  test('18:00 in Portland on both sides of the night the clocks change (14 March 2027)', () => {
    const settings = {
      timetable: timetableSchema.parse(VALID),
      defaultPriceCents: 4500,
      timeZone: 'America/Los_Angeles',
    };
    const dates = timetableOccurrences(
      settings,
      new Date('2027-03-08T00:00:00Z'),
      new Date('2027-03-22T00:00:00Z'),
    );
    expect(dates.map((d) => d.start.toISOString())).toEqual([
      '2027-03-10T02:00:00.000Z', // Tue 9 March, PST
      '2027-03-12T02:00:00.000Z', // Thu 11 March, PST
      '2027-03-17T01:00:00.000Z', // Tue 16 March, PDT
      '2027-03-19T01:00:00.000Z', // Thu 18 March, PDT
    ]);
    expect(dates[0]).toMatchObject({
      key: 'mat-foundations-tu-1800',
      capacity: 4,
      minimum: 2,
      priceCents: 4500,
    });
  });
});
