/**
 * When a visitor may book the complimentary consultation: content/consultation.yaml, checked by
 * this schema both when the site is built (a collection in src/content.config.ts, so a mistake
 * fails the build naming the file and the field) and when the functions read it at run time.
 * Build and server only (see studio.ts on zod).
 */
import { z } from 'zod';

export const WEEKDAYS = ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;
const clock = z
  .string()
  .regex(CLOCK, 'use a 24-hour time HH:MM between 00:00 and 23:59, e.g. 09:30');

const weekday = z.enum(WEEKDAYS, { error: () => 'use Mo, Tu, We, Th, Fr, Sa or Su' });

const window = z.strictObject({ days: z.array(weekday).min(1), from: clock, to: clock });
export type BookingWindow = z.output<typeof window>;

/** Minutes since midnight of an HH:MM the schema accepted. */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

const minutes = (max: number) => z.int('use a whole number of minutes').min(0).max(max);

export const availabilitySchema = z
  .strictObject({
    lengthMinutes: minutes(240).min(5),
    // Optional: slots start every `lengthMinutes` from the start of each window.
    stepMinutes: minutes(240).min(5).optional(),
    bufferMinutes: minutes(240).default(0),
    noticeHours: z
      .number()
      .min(0)
      .max(24 * 14),
    horizonDays: z.int('use a whole number of days').min(1).max(366),
    windows: z.array(window).min(1),
    where: z.enum(['studio', 'video'], { error: () => 'use studio or video' }),
    videoLink: z.url().optional(),
  })
  .superRefine((availability, context) => {
    const { windows, lengthMinutes, where, videoLink } = availability;
    windows.forEach((entry, index) => {
      // A time already refused above would only add a second, confusing message here.
      if (!CLOCK.test(entry.from) || !CLOCK.test(entry.to)) return;
      const issue = (message: string, ...path: (string | number)[]) =>
        context.addIssue({ code: 'custom', message, path: ['windows', index, ...path] });
      const [from, to] = [minutesOf(entry.from), minutesOf(entry.to)];
      if (to <= from)
        issue(`ends at ${entry.to}, which is not after its start, ${entry.from}`, 'to');
      else if (to - from < lengthMinutes) {
        issue(`is shorter than one consultation (${lengthMinutes} minutes)`, 'to');
      }
      const twice = entry.days.find((day, at) => entry.days.indexOf(day) !== at);
      if (twice) issue(`lists ${twice} twice`, 'days');
      for (const earlier of windows.slice(0, index)) {
        const day = entry.days.find((d) => earlier.days.includes(d));
        const overlaps = from < minutesOf(earlier.to) && minutesOf(earlier.from) < to;
        if (day && overlaps) issue(`overlaps the window ${earlier.from}-${earlier.to} on ${day}`);
      }
    });
    if (where === 'video' && !videoLink) {
      context.addIssue({
        code: 'custom',
        message: 'give the video call link (videoLink) when consultations happen by video',
        path: ['videoLink'],
      });
    }
  });

export type Availability = z.output<typeof availabilitySchema>;
