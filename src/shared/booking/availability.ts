/**
 * When a visitor may book the complimentary consultation: content/consultation.yaml, checked by
 * this schema both when the site is built (a collection in src/content.config.ts, so a mistake
 * fails the build naming the file and the field) and when the functions read it at run time.
 * Build and server only (see studio.ts on zod).
 */
import { z } from 'zod';
import {
  clock,
  fields,
  says,
  WEEKDAYS,
  weekdays,
  webAddress,
  type Weekday,
} from '../content-fields';

export { WEEKDAYS, type Weekday };

const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

export const windowSchema = fields(
  { days: weekdays, from: clock('09:00'), to: clock('11:30') },
  'a window',
);
export type BookingWindow = z.output<typeof windowSchema>;

/** Minutes since midnight of an HH:MM the schema accepted. */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/**
 * The weekly windows' own mistakes, each on its window: an end not after its start, a window
 * shorter than `shortest` minutes (`what`: "one consultation"), a day twice, two windows that
 * overlap on a day.
 */
export function checkWindows(
  windows: readonly BookingWindow[],
  shortest: number,
  what: string,
  context: z.RefinementCtx,
): void {
  windows.forEach((entry, index) => {
    // A time already refused above would only add a second, confusing message here.
    if (!CLOCK.test(entry.from) || !CLOCK.test(entry.to)) return;
    const issue = (message: string, ...path: (string | number)[]) =>
      context.addIssue({ code: 'custom', message, path: ['windows', index, ...path] });
    const [from, to] = [minutesOf(entry.from), minutesOf(entry.to)];
    if (to <= from) issue(`ends at ${entry.to}, which is not after its start, ${entry.from}`, 'to');
    else if (to - from < shortest) issue(`is shorter than ${what} (${shortest} minutes)`, 'to');
    const twice = entry.days.find((day, at) => entry.days.indexOf(day) !== at);
    if (twice) issue(`lists ${twice} twice`, 'days');
    for (const earlier of windows.slice(0, index)) {
      const day = entry.days.find((d) => earlier.days.includes(d));
      const overlaps = from < minutesOf(earlier.to) && minutesOf(earlier.from) < to;
      if (day && overlaps) issue(`overlaps the window ${earlier.from}-${earlier.to} on ${day}`);
    }
  });
}

/** A whole number from `min` to `max`; `what` says it with an example. */
export const count = (min: number, max: number, what: string) =>
  z
    .int(says(`${what} (from ${min} to ${max})`))
    .min(min, says(`${what} (from ${min} to ${max})`))
    .max(max, says(`${what} (from ${min} to ${max})`));

export const availabilitySchema = fields(
  {
    lengthMinutes: count(5, 240, 'use a whole number of minutes one consultation lasts, e.g. 15'),
    // Optional: slots start every `lengthMinutes` from the start of each window.
    stepMinutes: count(
      5,
      240,
      'use a whole number of minutes between slot starts, e.g. 15',
    ).optional(),
    bufferMinutes: count(
      0,
      240,
      'use a whole number of free minutes kept after each booking, e.g. 15',
    ).default(0),
    noticeHours: z
      .number(says('use a number of hours a booking must be made ahead, e.g. 12 (from 0 to 336)'))
      .min(0, 'use a number of hours a booking must be made ahead, e.g. 12 (from 0 to 336)')
      .max(24 * 14, 'use a number of hours a booking must be made ahead, e.g. 12 (from 0 to 336)'),
    horizonDays: count(1, 366, 'use a whole number of days ahead a visitor may book, e.g. 21'),
    windows: z
      .array(
        windowSchema,
        says(
          "write your weekly hours as a list of windows, e.g. - days: [Mo, We] from: '09:00' to: '11:30'",
        ),
      )
      .min(1, "write at least one window, e.g. - days: [Mo, We] from: '09:00' to: '11:30'"),
    where: z.enum(['studio', 'video'], says('use studio or video')),
    videoLink: webAddress('https://meet.example.com/still-point').optional(),
  },
  "the consultation's settings",
).superRefine((availability, context) => {
  const { windows, lengthMinutes, where, videoLink } = availability;
  checkWindows(windows, lengthMinutes, 'one consultation', context);
  if (where === 'video' && !videoLink) {
    context.addIssue({
      code: 'custom',
      message: 'give the video call link (videoLink) when consultations happen by video',
      path: ['videoLink'],
    });
  }
});

export type Availability = z.output<typeof availabilitySchema>;
