/**
 * The fields of the instructor's content files, each with one message in her words: what to
 * write, with an example. A field that is missing says so first ("missing: ..."); a line the
 * file may not have names the lines it may. Where a mistake is obvious (`$125` for a price,
 * `Thursday` for a weekday, `6:00` for a time) the field takes it as meant.
 *
 * The build checks content/ with these (src/integrations/content-check.ts prints the messages,
 * one line per mistake, and stops); the functions read the files they share through the same
 * schemas at run time. Build and server only (see studio.ts on zod).
 */
import { z } from 'zod';

type Issue = { input?: unknown; code?: string };

/** The error option of a field: `what` to write, prefixed with "missing: " when it is absent. */
export function says(what: string) {
  return { error: (issue: Issue) => (issue.input === undefined ? `missing: ${what}` : what) };
}

/** A line of words, e.g. a title. */
export const words = (what: string) => z.string(says(what)).trim().min(1, says(what));

/** A whole number, e.g. a card's place in its list. */
export const wholeNumber = (what: string) => z.int(says(what));

export const ORDER_HINT = "use a whole number for the card's place, e.g. 1 for the first";

/** `order`: where a card stands among its folder's cards. */
export const order = () => wholeNumber(ORDER_HINT);

/** A list of lines, each `- ` and words. */
export const lines = (example: string) =>
  z.array(
    words(`write a line of words, e.g. ${example}`),
    says(`write a list, each line starting with "- ", e.g. - ${example}`),
  );

/**
 * A file's (or a block's) lines: any other line is named with the lines it may have, so a typo
 * (`pirce`) is not silently left out.
 */
export function fields<Shape extends z.ZodRawShape>(shape: Shape, what: string) {
  const names = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue: Issue) =>
      issue.code === 'unrecognized_keys'
        ? `is not a line of ${what}: use ${names}`
        : issue.input === undefined
          ? `missing: write ${what}, with the lines ${names}`
          : `write ${what} as lines: ${names}`,
  });
}

// `$125`, `125.00`, `$1,250`: a number of dollars, as she would write it on a card.
const DOLLARS = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?$/;

/** `$125`, `125.00`, `$1,250` as the number they mean; anything else as it was. */
export function dollarsOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const match = DOLLARS.exec(value.trim());
  return match ? Number(`${match[1]!.replaceAll(',', '')}${match[2] ?? ''}`) : value;
}

/** A price in US dollars (`$` and cents allowed); `what` says it with an example. */
export const dollars = (what: string) =>
  z.preprocess(dollarsOf, z.number(says(what)).positive(says(what)));

/**
 * A price in dollars, or one word instead of a number (`free`, `inquire`): the word in any case,
 * as given in `word`.
 */
export function dollarsOr<Word extends string>(word: Word, what: string) {
  return z.preprocess(
    (value) =>
      typeof value === 'string' && value.trim().toLowerCase() === word ? word : dollarsOf(value),
    z.union([z.number().nonnegative(), z.literal(word)], says(what)),
  );
}

export const WEEKDAYS = ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** `Thu`, `thursday`, `TH`, `Thurs.` as `Th`: a day's name or the start of one, in any case. */
export function weekdayOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const start = value.trim().replace(/\.$/, '').toLowerCase();
  if (start.length < 2) return value;
  const found = DAY_NAMES.filter((name) => name.startsWith(start));
  return found.length === 1 ? WEEKDAYS[DAY_NAMES.indexOf(found[0]!)] : value;
}

export const WEEKDAY_HINT = 'use Mo, Tu, We, Th, Fr, Sa or Su';

export const weekday = z.preprocess(
  weekdayOf,
  z.enum(WEEKDAYS, {
    error: (issue) =>
      typeof issue.input === 'string'
        ? `${issue.input} is not a day: ${WEEKDAY_HINT}`
        : `write a day: ${WEEKDAY_HINT}`,
  }),
);

/** The days of a week a thing happens on: a list (`[Mo, We]`), or one day alone. */
export const weekdays = z.preprocess(
  (value) => (typeof value === 'string' && !/[\s,]/.test(value.trim()) ? [value] : value),
  z.array(weekday, says(`write the days as a list, e.g. [Mo, We, Fr] (${WEEKDAY_HINT})`)).min(1, {
    error: `write at least one day, e.g. [Mo, We, Fr] (${WEEKDAY_HINT})`,
  }),
);

const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;
const LOOSE_CLOCK = /^(\d{1,2})(?:[:.](\d{2}))?\s*(?:([ap])\.?\s*m\.?)?$/i;

/** `6:00`, `6 PM`, `6:30pm` as `06:00`, `18:00`, `18:30`; anything else as it was. */
export function clockOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const match = LOOSE_CLOCK.exec(value.trim());
  if (!match) return value;
  const [, hours, minutes, half] = match;
  // A bare number ("6") could be anything; with a colon or AM/PM it is a time.
  if (minutes === undefined && half === undefined) return value;
  let hour = Number(hours);
  if (half) {
    if (hour < 1 || hour > 12) return value;
    hour = (hour % 12) + (half.toLowerCase() === 'p' ? 12 : 0);
  }
  const time = `${String(hour).padStart(2, '0')}:${minutes ?? '00'}`;
  return CLOCK.test(time) ? time : value;
}

/** A time of day on the 24-hour clock, `HH:MM`; `example` e.g. `09:30`. */
export const clock = (example: string) =>
  z.preprocess(
    clockOf,
    z
      .string(says(`use a 24-hour time, e.g. '${example}'`))
      .regex(CLOCK, `use a 24-hour time between 00:00 and 23:59, e.g. '${example}'`),
  );

/** A web address, `https://...`. */
export const webAddress = (example: string) =>
  z.url({
    protocol: /^https?$/,
    ...says(`use a web address starting with https://, e.g. ${example}`),
  });

/**
 * A choice of kinds of value (`place`: studio, online, or an address) where the value is of one
 * kind but wrong inside (an address without its street): that kind's own mistakes, each on its
 * field, rather than the choice's one message.
 */
export function expand(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const inside = issue.errors.find((errors) => errors.some((error) => error.path.length > 0));
  if (!inside) return [issue];
  return inside.flatMap((error) => expand({ ...error, path: [...issue.path, ...error.path] }));
}

/**
 * Every mistake `schema` finds in `data`, choices expanded (see `expand`): what the build's
 * content check prints, and the content editor shows.
 */
export function issuesOf(schema: z.ZodType, data: unknown): z.core.$ZodIssue[] {
  const result = schema.safeParse(data);
  return result.success ? [] : result.error.issues.flatMap(expand);
}
