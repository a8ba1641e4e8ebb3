/**
 * Classes (under /bookings, beside ./bookings.ts): cancelling one date of a class (everyone booked
 * told, what each paid online refunded), and adding a single class date to the timetable.
 */
import { Hono } from 'hono';
import { z } from '../../../shared/zod';
import { afterAnswer } from '../../request/guard';
import { afterChange, cancelWholeClass } from '../bookings';
import { addSingleDate } from '../class-dates';
import { answer, body, refuse, refuseFields, signedIn, type DeskEnv } from '../router';
import { BOOKING_REFUSALS } from './bookings';
import { day, note } from './schemas';

/** A whole number she types in a form ("55"), within bounds; empty: left out. */
const whole = (min: number, max: number, words: string) =>
  z
    .string(words)
    .trim()
    .optional()
    .transform((text) => text || undefined)
    .pipe(
      z
        .string()
        .regex(/^\d{1,4}$/, words)
        .transform(Number)
        .refine((n) => n >= min && n <= max, words)
        .optional(),
    );
const PRICE = 'Please write the price in dollars, like 45 or 22.50, or leave it empty.';
/** A single class date added on the desk: a class of her timetable, or one with its own name. */
const singleDate = z.object({
  class: z
    .string('Please choose a class of your timetable, or another class.')
    .trim()
    .max(200, 'Please choose a class of your timetable, or another class.')
    .default(''),
  name: z
    .string('Please name the class.')
    .trim()
    .max(80, 'Please keep the name under 80 characters.')
    .default(''),
  date: day('date'),
  time: z
    .string('Please enter a time like 18:00.')
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Please enter a time like 18:00.'),
  lengthMinutes: whole(15, 240, 'Please write how long it lasts in minutes, from 15 to 240.'),
  capacity: whole(1, 20, 'Please write the number of places, from 1 to 20.'),
  price: z
    .string(PRICE)
    .trim()
    .optional()
    .transform((text) => text || undefined)
    .pipe(
      z
        .string()
        .regex(/^\$?\d{1,5}(\.\d{1,2})?$/, PRICE)
        .transform((text) => Math.round(Number(text.replace('$', '')) * 100))
        .refine((cents) => cents >= 100, 'Please write a price of at least $1.')
        .optional(),
    ),
});

export const classes = new Hono<DeskEnv>()
  .post(
    '/cancel-class',
    signedIn(),
    body(
      z.object({
        key: z.string('Please choose a class from the list.').regex(/^[a-z0-9-]{1,120}$/, {
          error: 'Please choose a class from the list.',
        }),
        start: z.iso.datetime({ error: 'Please choose a class from the list.' }),
        note,
      }),
    ),
    async (c) => {
      const { key, start, note } = c.req.valid('json');
      const outcome = await cancelWholeClass(c.var.staff, key, new Date(start), note);
      if (!outcome.ok) {
        return outcome.why === 'missing'
          ? refuse(c, 404, 'There is no such class date in the timetable.')
          : outcome.why === 'over'
            ? refuse(c, 409, 'That class has begun, so it can no longer be cancelled.')
            : refuse(c, ...BOOKING_REFUSALS[outcome.why]);
      }
      await afterAnswer(c.env?.context, afterChange(outcome));
      return answer(c, { cancelled: true, told: outcome.told, refunds: outcome.refunds.length });
    },
  )
  .post('/add-class', signedIn(), body(singleDate), async (c) => {
    const input = c.req.valid('json');
    const added = await addSingleDate(c.var.staff, {
      from: input.class || undefined,
      name: input.name || undefined,
      date: input.date,
      time: input.time,
      lengthMinutes: input.lengthMinutes,
      capacity: input.capacity,
      priceCents: input.price,
    });
    if (!added.ok) return refuseFields(c, { [added.field]: added.words });
    return answer(c, {
      id: added.id,
      key: added.key,
      title: added.title,
      start: added.start,
      listedFrom: added.listedFrom,
      outlook: added.outlook,
    });
  });
