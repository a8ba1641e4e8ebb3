/**
 * When private and in-home sessions may be booked, and the cancellation policy:
 * content/booking.yaml, checked by this schema when the site is built (a collection in
 * src/content.config.ts, and src/integrations/content-check.ts first, in her words) and when the
 * functions read it at run time (src/server/booking/policy.ts). Each session's length, price and
 * place are its own file's (content/sessions/*.md, `sessionBookingFields`). Build and server only
 * (see studio.ts on zod).
 */
import { z } from 'zod';
import { count, checkWindows, windowSchema, type Availability } from './availability';
import { dollars, fields, says, words } from '../content-fields';

const POLICY_EXAMPLE =
  'e.g. You can cancel or move your session free of charge up to 24 hours before it starts.';

export const sessionHoursSchema = fields(
  {
    bufferMinutes: count(
      0,
      240,
      'use a whole number of free minutes kept after each session, e.g. 15',
    ).default(0),
    stepMinutes: count(5, 240, 'use a whole number of minutes between session starts, e.g. 30'),
    noticeHours: z
      .number(says('use a number of hours a session must be booked ahead, e.g. 24 (from 0 to 336)'))
      .min(0, 'use a number of hours a session must be booked ahead, e.g. 24 (from 0 to 336)')
      .max(
        24 * 14,
        'use a number of hours a session must be booked ahead, e.g. 24 (from 0 to 336)',
      ),
    horizonDays: count(1, 366, 'use a whole number of days ahead a visitor may book, e.g. 28'),
    windows: z
      .array(
        windowSchema,
        says(
          "write your weekly session hours as a list of windows, e.g. - days: [Mo, We] from: '07:00' to: '12:00'",
        ),
      )
      .min(1, "write at least one window, e.g. - days: [Mo, We] from: '07:00' to: '12:00'"),
    cancelOrMoveHoursBefore: count(
      0,
      24 * 14,
      'use a whole number of hours before a session up to which it may be cancelled or moved, e.g. 24',
    ),
    cancellationPolicy: words(`write the sentence visitors read, ${POLICY_EXAMPLE}`),
  },
  'the session hours',
).superRefine((hours, context) => {
  // A window shorter than the shortest session is checked against the sessions' own lengths
  // (content-check.ts), which this file does not know; here, at least one step.
  checkWindows(hours.windows, hours.stepMinutes, 'one step', context);
  const said: string[] = hours.cancellationPolicy.match(/\d+/g) ?? [];
  if (!said.includes(String(hours.cancelOrMoveHoursBefore))) {
    context.addIssue({
      code: 'custom',
      path: ['cancellationPolicy'],
      message:
        `does not say ${hours.cancelOrMoveHoursBefore} hours, as cancelOrMoveHoursBefore does: ` +
        `use the same number, ${POLICY_EXAMPLE.replace('24', String(hours.cancelOrMoveHoursBefore))}`,
    });
  }
});

export type SessionHours = z.output<typeof sessionHoursSchema>;

const ZIP_HINT = "write each ZIP code as 5 digits in quotes, e.g. ['97202', '97214']";

/** A ZIP code: five digits. YAML reads `97202` as a number: taken as meant when it has 5 digits. */
const zip = z.preprocess(
  (value) =>
    typeof value === 'number' && value >= 10000 && value <= 99999 ? String(value) : value,
  z.string(says(ZIP_HINT)).regex(/^\d{5}$/, says(ZIP_HINT)),
);

/** The visitor's ZIP code as typed ("97202", "97202-1234", " 97202 "): its five digits, or none. */
export function zipOf(value: string): string | undefined {
  return /^\s*(\d{5})(?:-\d{4})?\s*$/.exec(value)?.[1];
}

/**
 * The lines a session's file (content/sessions/*.md) has when it is booked on the site one person
 * at a time: set `where` and it is; a class (small-group.md) is booked by its timetable instead.
 */
export const sessionBookingFields = {
  lengthMinutes: count(15, 480, 'use a whole number of minutes one session lasts, e.g. 60').default(
    60,
  ),
  where: z
    .enum(
      ['studio', 'home'],
      says("use studio (at the studio's address) or home (at the visitor's address)"),
    )
    .optional(),
  areas: z.array(zip, says(ZIP_HINT)).min(1, says(ZIP_HINT)).optional(),
  travelMinutes: count(
    0,
    240,
    'use a whole number of minutes kept free before and after to travel, e.g. 30',
  ).default(0),
};

/** The checks between a session's booking lines (added to the session schema's own). */
export function checkSessionBooking(
  session: { where?: 'studio' | 'home'; areas?: string[]; travelMinutes: number },
  context: z.RefinementCtx,
): void {
  const issue = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message });
  if (session.where === 'home' && !session.areas) {
    issue('areas', "missing: list the ZIP codes you travel to, e.g. areas: ['97202', '97214']");
  }
  if (session.where !== 'home' && session.areas) {
    issue(
      'areas',
      "is only for sessions at the visitor's address: use where: home, or leave areas out",
    );
  }
  if (session.where !== 'home' && session.travelMinutes > 0) {
    issue(
      'travelMinutes',
      "is only for sessions at the visitor's address: use where: home, or leave travelMinutes out",
    );
  }
  const twice = session.areas?.find((zip, at) => session.areas!.indexOf(zip) !== at);
  if (twice)
    issue('areas', `lists ${twice} twice: use each ZIP code once, e.g. ['97202', '97214']`);
}

/** The engine's availability for one session type: her session hours and its length. */
export function sessionAvailability(hours: SessionHours, lengthMinutes: number): Availability {
  return {
    lengthMinutes,
    stepMinutes: hours.stepMinutes,
    bufferMinutes: hours.bufferMinutes,
    noticeHours: hours.noticeHours,
    horizonDays: hours.horizonDays,
    windows: hours.windows,
    where: 'studio',
  };
}

/**
 * What the functions read of a session's file at run time: its title, its price (the only price
 * a booking ever takes) and its booking lines; the build checks the rest (sessionSchema).
 */
export const sessionTypeSchema = z
  .object({
    title: words("write the card's title, e.g. Private Sessions"),
    price: dollars('use a number of US dollars, e.g. 120'),
    ...sessionBookingFields,
  })
  .superRefine(checkSessionBooking);

export type SessionTypeFields = z.output<typeof sessionTypeSchema>;
