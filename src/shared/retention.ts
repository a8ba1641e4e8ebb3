/**
 * How long the site keeps each kind of record: content/retention.yaml, a keeping time per kind,
 * written "30 days", "6 weeks", "18 months" or "2 years". The build checks the file with this
 * schema (src/content.config.ts); the functions read it at run time through the same one
 * (src/server/retention/schedule.ts), and the retention rules say which names it may hold.
 */
import { z } from 'zod';

export type PeriodUnit = 'day' | 'week' | 'month' | 'year';

export interface Period {
  count: number;
  unit: PeriodUnit;
}

const PERIOD = /^(\d+) (day|week|month|year)s?$/;

/** "2 years" → `{ count: 2, unit: 'year' }`; `undefined` for anything else. */
export function parsePeriod(text: string): Period | undefined {
  const match = PERIOD.exec(text.trim().replace(/\s+/g, ' ').toLowerCase());
  const count = Number(match?.[1]);
  return match && count >= 1 ? { count, unit: match[2] as PeriodUnit } : undefined;
}

/** "1 day", "2 years". */
export function periodText({ count, unit }: Period): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** `at` moved back by `period`, in UTC's calendar (a month back from 31 March is 3 March). */
export function before(at: Date, { count, unit }: Period): Date {
  const moved = new Date(at);
  if (unit === 'day') moved.setUTCDate(moved.getUTCDate() - count);
  if (unit === 'week') moved.setUTCDate(moved.getUTCDate() - 7 * count);
  if (unit === 'month') moved.setUTCMonth(moved.getUTCMonth() - count);
  if (unit === 'year') moved.setUTCFullYear(moved.getUTCFullYear() - count);
  return moved;
}

export const periodSchema = z
  .string({ error: 'write a keeping time, e.g. "30 days" or "2 years"' })
  .refine((text) => parsePeriod(text) !== undefined, {
    error: 'write a whole number and days, weeks, months or years, e.g. "30 days" or "2 years"',
  });

/** The file: a keeping time per kind of record, by the names the retention rules give. */
export const retentionSchema = z.record(
  z.string().regex(/^[a-z][A-Za-z]*$/, 'a name like spam or signInLinks'),
  periodSchema,
);
