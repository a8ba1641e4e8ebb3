/**
 * What the desk's lists are asked for: a search text, a date range and a page.
 *
 * Dates are days as the instructor means them, in her browser's time zone (`tz`, an IANA name
 * the island sends): `from` and `to` are both included. Postgres turns them into instants
 * (`AT TIME ZONE`), so a waiver signed at 11 pm on the 3rd is in the 3rd, wherever the server is.
 *
 * Paging is by keyset, not offset: the next page starts after the last row shown
 * (`created_at, id` below it), so a waiver signed while she pages neither repeats nor hides a
 * row, and a deep page costs what the first does.
 */
import { failed, ok, type Result } from '../../shared/result';
import type { FieldErrors } from '../../shared/fields';
import { z } from '../../shared/zod';

export interface Cursor {
  /** The last row's `created_at` as Postgres wrote it (microseconds kept). */
  at: string;
  id: string;
}

export interface Filters {
  text: string;
  from?: string;
  to?: string;
  tz: string;
  after?: Cursor;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(+date) && date.toISOString().startsWith(value);
}

function timeZone(value: string): string {
  if (!value || !/^[A-Za-z][\w+-]*(\/[\w+-]+){0,2}$/.test(value)) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    return 'UTC';
  }
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

function decodeCursor(value: string): Cursor | undefined {
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
    if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at))) {
      return undefined;
    }
    return { at, id };
  } catch {
    return undefined;
  }
}

/** One value of a query: the first if it is repeated, trimmed; '' when missing. */
export const queryText = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (Array.isArray(value) ? value[0] : value)?.trim() ?? '');

type FilterQuery = Record<'q' | 'from' | 'to' | 'tz' | 'after', string>;

/** The filters of a list's query, or the problem of each field that is wrong. */
function readFilters(query: FilterQuery): Result<Filters, FieldErrors> {
  const errors: FieldErrors = {};
  const text = query.q.slice(0, 200);
  const from = query.from || undefined;
  const to = query.to || undefined;
  if (from && !isDay(from)) errors.from = 'Please enter the first day as a date.';
  if (to && !isDay(to)) errors.to = 'Please enter the last day as a date.';
  if (from && to && isDay(from) && isDay(to) && from > to) {
    errors.to = 'The last day must not be before the first day.';
  }
  const after = query.after ? decodeCursor(query.after) : undefined;
  if (query.after && !after) errors.after = 'That page no longer exists: start from the top.';
  if (Object.keys(errors).length > 0) return failed(errors);
  return ok({ text, from, to, tz: timeZone(query.tz), after });
}

/**
 * The query of a list the desk pages through: `q`, `from`, `to`, `tz` and `after` read as
 * `filters` (a wrong one is a 422 that names it), and `more` of the list's own beside them.
 */
export function filtersQuery<S extends z.ZodRawShape>(more: S) {
  return z
    .object({ q: queryText, from: queryText, to: queryText, tz: queryText, after: queryText })
    .extend(more)
    .transform((query, ctx) => {
      // (The five are there whatever `more` holds; TypeScript cannot see it through S.)
      const read = readFilters(query as unknown as FilterQuery);
      if (read.ok) return { ...query, filters: read.value };
      for (const [field, message] of Object.entries(read.problem)) {
        ctx.addIssue({ code: 'custom', path: [field], message });
      }
      return z.NEVER;
    });
}

/** `%text%` for ILIKE, with the text's own `%`, `_` and `\` taken literally. */
export const containing = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** What may stand between a phone number's digits however it is written: spaces, `-.()/+`. */
const PHONE_GAP = '[-.()/+[:space:]]*';

/**
 * A phone number however typed: when the search text is a phone number (at least three digits,
 * nothing but digits and a phone's punctuation), the POSIX pattern (for `~`) that finds those
 * digits with any punctuation between them, so `5035550142`, `503 555 0142` and `5550142` all
 * find `(503) 555-0142`, in a phone field or in a message's text. A leading country code 1
 * (`+1 503 555 0142`) may be missing from what was stored. Otherwise `undefined`: a name or an
 * address is no phone number.
 */
export function phonePattern(text: string): string | undefined {
  const typed = text.trim();
  if (!/^[-\d.()/+\s]+$/.test(typed)) return undefined;
  let digits = typed.replace(/\D/g, '');
  if (digits.length < 3) return undefined;
  let prefix = '';
  if (digits.length === 11 && digits.startsWith('1')) {
    prefix = `(1${PHONE_GAP})?`;
    digits = digits.slice(1);
  }
  return prefix + [...digits].join(PHONE_GAP);
}

/**
 * The condition, for `Where.add`, that one of `columns` (SQL expressions) contains the search
 * text in any case, or that one of `phoneColumns` holds it as a phone number however punctuated
 * (`phonePattern`). Every search on the desk that reads a phone goes through it.
 */
export function textOrPhone(
  text: string,
  columns: string[],
  phoneColumns: string[],
): [string, ...string[]] {
  const pattern = containing(text);
  const phone = phonePattern(text);
  const conditions = columns.map((column) => `${column} ILIKE ?`);
  const values = columns.map(() => pattern);
  if (phone) {
    conditions.push(...phoneColumns.map((column) => `${column} ~ ?`));
    values.push(...phoneColumns.map(() => phone));
  }
  return [`(${conditions.join(' OR ')})`, ...values];
}

/**
 * A WHERE clause built a condition at a time; each `?` in a condition becomes the next numbered
 * parameter, so values never enter the SQL text.
 */
export class Where {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  add(condition: string, ...values: unknown[]): this {
    let next = 0;
    this.parts.push(
      condition.replace(/\?/g, () => {
        this.params.push(values[next++]);
        return `$${this.params.length}`;
      }),
    );
    return this;
  }

  /** The date range and page of `filters` on `alias.created_at` (and `alias.id` of `idType`). */
  range(filters: Filters, alias: string, idType: 'uuid' | 'bigint'): this {
    if (filters.from) {
      this.add(
        `${alias}.created_at >= (?::date::timestamp AT TIME ZONE ?)`,
        filters.from,
        filters.tz,
      );
    }
    if (filters.to) {
      this.add(
        `${alias}.created_at < ((?::date + 1)::timestamp AT TIME ZONE ?)`,
        filters.to,
        filters.tz,
      );
    }
    if (filters.after) {
      this.add(
        `(${alias}.created_at, ${alias}.id) < (?::timestamptz, ?::${idType})`,
        filters.after.at,
        filters.after.id,
      );
    }
    return this;
  }

  /** The next parameter's placeholder, for a value used outside the WHERE clause. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get sql(): string {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

export const PAGE_SIZE = 20;

/** The page out of `PAGE_SIZE + 1` rows fetched: the extra row only says there are more. */
export function pageOf<R extends { at_text: string; id: string | number }, T>(
  rows: R[],
  item: (row: R) => T,
  size = PAGE_SIZE,
): { items: T[]; next: string | null } {
  const shown = rows.slice(0, size);
  const last = shown.at(-1);
  return {
    items: shown.map(item),
    next:
      rows.length > size && last ? encodeCursor({ at: last.at_text, id: String(last.id) }) : null,
  };
}
