/**
 * The small group classes' timetable: content/classes.yaml, checked by this schema when the site
 * is built (src/integrations/content-check.ts, so a mistake fails the build naming the file and
 * the field) and when the functions read it at run time (src/server/classes/settings.ts). Build
 * and server only (see studio.ts on zod).
 *
 * A class without a price of its own costs the price of content/sessions/small-group.md, which
 * the functions read beside it: the price is always from content, never from a browser.
 */
import { z } from 'zod';
import { clock, dollars, fields, says, weekdays, words, type Weekday } from '../content-fields';
import { minutesOf } from '../booking/availability';

/** A whole number from `min` to `max`; `what` says it with an example. */
const count = (min: number, max: number, what: string) =>
  z
    .int(says(`${what} (from ${min} to ${max})`))
    .min(min, says(`${what} (from ${min} to ${max})`))
    .max(max, says(`${what} (from ${min} to ${max})`));

const hours = (min: number, max: number, what: string) =>
  z
    .number(says(`${what} (from ${min} to ${max})`))
    .min(min, says(`${what} (from ${min} to ${max})`))
    .max(max, says(`${what} (from ${min} to ${max})`));

const POLICY_EXAMPLE =
  'e.g. You can cancel your place free of charge up to 24 hours before the class starts.';

const CAPACITY = 'use a whole number of places in a class, e.g. 4';
const MINIMUM = 'use the whole number of people a class runs with at least, e.g. 2';

const classEntry = fields(
  {
    name: words('write the name visitors read, e.g. Mat Foundations'),
    days: weekdays,
    time: clock('18:00'),
    lengthMinutes: count(15, 240, 'use a whole number of minutes the class lasts, e.g. 55'),
    capacity: count(1, 20, CAPACITY).optional(),
    minimum: count(1, 20, MINIMUM).optional(),
    price: dollars('use a number of US dollars, e.g. 45').optional(),
    description: words(
      'write a sentence or two visitors read about the class, e.g. The essentials on the mat',
    ).optional(),
  },
  'a class',
);

export const timetableSchema = fields(
  {
    capacity: count(1, 20, CAPACITY).default(4),
    minimum: count(1, 20, MINIMUM).default(2),
    cutoffHours: hours(0, 168, 'use a number of hours before a class, e.g. 12'),
    claimHoldHours: hours(
      0.25,
      72,
      'use a number of hours a freed place is held for the person offered it, e.g. 3',
    ),
    weeksAhead: count(1, 26, 'use a whole number of weeks ahead visitors can book, e.g. 4').default(
      4,
    ),
    // A place is cancelled, never moved (to change class: cancel, and book another).
    cancelHoursBefore: count(
      0,
      24 * 14,
      'use a whole number of hours before a class up to which a place may be cancelled, e.g. 24',
    ),
    cancellationPolicy: words(`write the sentence participants read, ${POLICY_EXAMPLE}`),
    classes: z
      .array(
        classEntry,
        says(
          "write the timetable as a list of classes, e.g. - name: Mat Foundations days: [Tu, Th] time: '18:00' lengthMinutes: 55",
        ),
      )
      .min(
        1,
        "write at least one class, e.g. - name: Mat Foundations days: [Tu, Th] time: '18:00' lengthMinutes: 55",
      ),
  },
  "the classes' settings",
).superRefine((timetable, context) => {
  const said: string[] = timetable.cancellationPolicy.match(/\d+/g) ?? [];
  if (!said.includes(String(timetable.cancelHoursBefore))) {
    context.addIssue({
      code: 'custom',
      path: ['cancellationPolicy'],
      message:
        `does not say ${timetable.cancelHoursBefore} hours, as cancelHoursBefore does: ` +
        `use the same number, ${POLICY_EXAMPLE.replace('24', String(timetable.cancelHoursBefore))}`,
    });
  }
  const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;
  timetable.classes.forEach((entry, index) => {
    const issue = (message: string, ...path: (string | number)[]) =>
      context.addIssue({ code: 'custom', message, path: ['classes', index, ...path] });
    const capacity = entry.capacity ?? timetable.capacity;
    const minimum = entry.minimum ?? timetable.minimum;
    if (minimum > capacity) {
      issue(
        `is ${minimum}, more than the class's ${capacity} places: use a number up to ${capacity}, e.g. 2`,
        'minimum',
      );
    }
    const twice = entry.days.find((day, at) => entry.days.indexOf(day) !== at);
    if (twice) issue(`lists ${twice} twice`, 'days');
    const same = timetable.classes.findIndex((other) => other.name === entry.name);
    if (same !== index)
      issue(`is the name of another class too: give each class its own name`, 'name');
    if (!CLOCK.test(entry.time)) return;
    const from = minutesOf(entry.time);
    const to = from + entry.lengthMinutes;
    if (to > 24 * 60) issue('ends after midnight: start it earlier or make it shorter', 'time');
    for (const earlier of timetable.classes.slice(0, index)) {
      if (!CLOCK.test(earlier.time)) continue;
      const day = entry.days.find((d) => earlier.days.includes(d));
      const start = minutesOf(earlier.time);
      if (day && from < start + earlier.lengthMinutes && start < to) {
        issue(`overlaps ${earlier.name} (${earlier.time}) on ${day}`, 'time');
      }
    }
  });
});

export type Timetable = z.output<typeof timetableSchema>;
export type ClassEntry = Timetable['classes'][number];

/**
 * The key a timetable class is known by in the database: its name, day and time
 * (`mat-foundations-tu-1800`). A class renamed or moved is a new class; dates already booked
 * keep theirs.
 */
export function classKey(entry: Pick<ClassEntry, 'name' | 'time'>, day: Weekday): string {
  const name = entry.name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${name}-${day.toLowerCase()}-${entry.time.replace(':', '')}`;
}
