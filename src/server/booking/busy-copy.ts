/**
 * The instructor's own calendar as busy times (CONSULTATION_BUSY_ICS_URL), shared by every
 * function instance through one row of `consultation_busy_feed`:
 *
 * - It is read at most once a minute across instances: whoever finds the copy older than that
 *   claims the row for the read (an atomic update), reads the address with a time limit and a
 *   size cap (busy-fetch.ts), and stores the text, its busy spans and what went wrong, if anything.
 * - A page never waits for a calendar it already has a copy of: a stale copy is used as it is and
 *   read again after the answer (`context.waitUntil`). Only when there is no copy of this address
 *   at all is it read before answering, within CONSULTATION_BUSY_TIMEOUT_MS.
 * - A copy is read into busy spans in a worker thread within a time budget and limits
 *   (busy-reader.ts), never on the thread that answers the pages.
 * - When the calendar cannot be read (down, too slow, too large, not a calendar, unparseable, more
 *   work than the budget allows), the last good copy stays in use and the desk says what went
 *   wrong and since when. Nothing here ever fails the booking page: without any copy, her weekly
 *   windows and the desk's blocks decide.
 *
 * The address is a secret (whoever holds it reads her whole calendar): it is never stored, logged
 * or shown. The row keeps its SHA-256, to tell a copy of a replaced address from this one's.
 */
import { createHash } from 'node:crypto';
import type { Interval } from '../../shared/booking/intervals';
import { clip } from '../../shared/booking/intervals';
import { now, sqlNow } from '../platform/clock';
import { query } from '../platform/db';
import { readSetting } from '../platform/settings';
import { readCalendar } from './busy-reader';
import { TooMuchCalendarError, UnreadableCalendarError } from './busy-times';
import { fetchBusyFeed } from './busy-fetch';

/** How old a copy may be before it is read again. */
export const BUSY_FEED_MAX_AGE_MS = 60_000;
/** How long one instance may hold the row while it reads the calendar. */
const CLAIM_MS = 60_000;
/** The busy spans stored with a copy reach this far past the slots' horizon, for a copy that ages. */
const MARGIN_MS = 7 * 24 * 3_600_000;
const MAX_BYTES = 5 * 1024 * 1024;

interface FeedRow {
  address_sha256: string;
  busy: [string, string][] | string | null;
  busy_from: Date | null;
  busy_to: Date | null;
  fetched_at: Date | null;
  stale: boolean;
}

/** Where the busy times of a copy are needed, and in which zone all-day and floating times are. */
export interface BusyWindow {
  /** The span the slots may lie in (slotRange). */
  range: Interval;
  timeZone: string;
}

const fingerprint = (address: string) => createHash('sha256').update(address).digest('hex');

function address(): string | undefined {
  try {
    return readSetting('CONSULTATION_BUSY_ICS_URL');
  } catch {
    // Said once in the log by readSetting (without the secret); the page goes on without it.
    return undefined;
  }
}

/**
 * The instructor's busy spans within `window.range`, from the freshest copy there is. A stale
 * copy is read again meanwhile, never waited for: `later` hands that work to the platform
 * (Netlify's waitUntil) so that it is not cut short once the answer is sent; whatever `later`
 * does, the answer does not wait for it (a calendar that stops answering would otherwise hold up
 * a page a minute for its whole time limit).
 */
export async function busyTimes(
  window: BusyWindow,
  later: (work: Promise<unknown>) => Promise<void> | void = () => undefined,
): Promise<Interval[]> {
  const url = address();
  if (!url) return [];
  const print = fingerprint(url);
  try {
    let row = await readRow();
    const usable = row && row.address_sha256 === print && row.fetched_at !== null;
    if (!usable) {
      // No copy of this address yet: read it now, within the time limit.
      await refresh(url, print, window);
      row = await readRow();
    } else if (row!.stale) {
      const work = refresh(url, print, window).catch(() => undefined);
      reading.add(work);
      void work.finally(() => reading.delete(work));
      void Promise.resolve(later(work)).catch(() => undefined);
    }
    if (!row || row.address_sha256 !== print || row.fetched_at === null) return [];
    return await spansOf(row, window);
  } catch (error) {
    console.error(`busy feed: the calendar's copy could not be used (${(error as Error)?.name})`);
    return [];
  }
}

/** The reads of a stale copy under way in this instance, which no answer waits for. */
const reading = new Set<Promise<unknown>>();

/** Resolves once every read of a stale copy under way in this instance has ended (tests). */
export async function busyReadsDone(): Promise<void> {
  while (reading.size > 0) await Promise.all(reading);
}

async function readRow(): Promise<FeedRow | undefined> {
  const [row] = await query<FeedRow>(
    `SELECT address_sha256, busy, busy_from, busy_to, fetched_at,
            (checked_at IS NULL OR checked_at <= ${sqlNow()} - $1::double precision * interval '1 millisecond')
              AS stale
       FROM consultation_busy_feed`,
    [BUSY_FEED_MAX_AGE_MS],
  );
  return row;
}

/** The copy's busy spans within the range: as stored, or worked out again when they do not reach. */
async function spansOf(row: FeedRow, window: BusyWindow): Promise<Interval[]> {
  const { range } = window;
  const covers =
    row.busy !== null &&
    row.busy_from !== null &&
    row.busy_to !== null &&
    new Date(row.busy_from).getTime() <= range.start.getTime() &&
    new Date(row.busy_to).getTime() >= range.end.getTime();
  const spans = covers ? storedSpans(row.busy!) : await respan(row, window);
  return spans
    .map((span) => clip(span, range.start, range.end))
    .filter((span): span is Interval => span !== undefined);
}

function storedSpans(busy: [string, string][] | string): Interval[] {
  // jsonb arrives parsed from `pg`, and as text from some drivers.
  const stored = (typeof busy === 'string' ? JSON.parse(busy) : busy) as [string, string][];
  return stored.map(([start, end]) => ({ start: new Date(start), end: new Date(end) }));
}

/** The re-reading of an old copy under way in this instance, which every page needing it awaits. */
let respanning: { fetchedAt: number; work: Promise<Interval[]> } | undefined;

/**
 * An old copy (the calendar has been unreadable for a week): its text is read again for the
 * range from now, once in this instance however many pages ask meanwhile, and the spans are
 * stored with the copy, so the pages after them find them there. A read that fails is not
 * tried again by this instance for a minute.
 */
function respan(row: FeedRow, window: BusyWindow): Promise<Interval[]> {
  const fetchedAt = new Date(row.fetched_at!).getTime();
  if (respanning?.fetchedAt === fetchedAt) return respanning.work;
  const work = readAgain(window);
  const entry = { fetchedAt, work };
  respanning = entry;
  const forget = () => {
    if (respanning === entry) respanning = undefined;
  };
  work.then(forget, () => setTimeout(forget, BUSY_FEED_MAX_AGE_MS).unref());
  return work;
}

async function readAgain(window: BusyWindow): Promise<Interval[]> {
  // The stamp as Postgres writes it (to the microsecond), to store the spans with this copy only.
  const [copy] = await query<{ calendar: string | null; stamp: string }>(
    `SELECT calendar, fetched_at::text AS stamp FROM consultation_busy_feed`,
  );
  if (!copy?.calendar) return [];
  const from = now();
  const to = new Date(window.range.end.getTime() + MARGIN_MS);
  const { busy } = await readCalendar(copy.calendar, { start: from, end: to }, window.timeZone);
  await query(
    `UPDATE consultation_busy_feed SET busy = $2::jsonb, busy_from = $3, busy_to = $4
      WHERE fetched_at = $1::timestamptz`,
    [copy.stamp, JSON.stringify(busy.map(pair)), from.toISOString(), to.toISOString()],
  );
  return busy;
}

const pair = (span: Interval) => [span.start.toISOString(), span.end.toISOString()];

/**
 * Reads the calendar if this instance gets the claim (nobody read it within the last minute and
 * nobody is reading it now), and stores the outcome. Never throws for the calendar's own faults.
 */
export async function refresh(url: string, print: string, window: BusyWindow): Promise<void> {
  const claimed = await query<{ id: boolean }>(
    `INSERT INTO consultation_busy_feed AS f (id, address_sha256, refreshing_until)
     VALUES (true, $1, ${sqlNow()} + $2::double precision * interval '1 millisecond')
     ON CONFLICT (id) DO UPDATE
        SET address_sha256 = EXCLUDED.address_sha256,
            refreshing_until = EXCLUDED.refreshing_until,
            calendar = CASE WHEN f.address_sha256 = EXCLUDED.address_sha256 THEN f.calendar END,
            fetched_at = CASE WHEN f.address_sha256 = EXCLUDED.address_sha256 THEN f.fetched_at END,
            busy = CASE WHEN f.address_sha256 = EXCLUDED.address_sha256 THEN f.busy END,
            checked_at = CASE WHEN f.address_sha256 = EXCLUDED.address_sha256 THEN f.checked_at END
      WHERE f.address_sha256 <> EXCLUDED.address_sha256
         OR ((f.checked_at IS NULL
              OR f.checked_at <= ${sqlNow()} - $3::double precision * interval '1 millisecond')
             AND (f.refreshing_until IS NULL OR f.refreshing_until <= ${sqlNow()}))
  RETURNING f.id`,
    [print, CLAIM_MS, BUSY_FEED_MAX_AGE_MS],
  );
  if (claimed.length === 0) return;

  const fetched = await fetchBusyFeed(url, {
    timeoutMs: readSetting('CONSULTATION_BUSY_TIMEOUT_MS'),
    maxBytes: MAX_BYTES,
  });
  if (!fetched.ok) return failedRead(print, fetched.message);
  const from = now();
  const to = new Date(window.range.end.getTime() + MARGIN_MS);
  let read;
  try {
    read = await readCalendar(fetched.text, { start: from, end: to }, window.timeZone);
  } catch (error) {
    const words =
      error instanceof TooMuchCalendarError
        ? error.message
        : error instanceof UnreadableCalendarError
          ? `The calendar could not be read: ${error.message}`
          : 'The calendar could not be read.';
    return failedRead(print, words);
  }
  await query(
    `UPDATE consultation_busy_feed
        SET calendar = $2, fetched_at = ${sqlNow()}, busy = $3::jsonb, busy_from = $4, busy_to = $5,
            events = $6, unreadable = $7, checked_at = ${sqlNow()}, error = NULL,
            refreshing_until = NULL
      WHERE address_sha256 = $1`,
    [
      print,
      fetched.text,
      JSON.stringify(read.busy.map(pair)),
      from.toISOString(),
      to.toISOString(),
      read.events,
      read.unreadable,
    ],
  );
}

async function failedRead(print: string, words: string): Promise<void> {
  console.error(`busy feed: ${words} The last good copy stays in use.`);
  await query(
    `UPDATE consultation_busy_feed
        SET checked_at = ${sqlNow()}, error = $2, refreshing_until = NULL
      WHERE address_sha256 = $1`,
    [print, words],
  );
}

/** What the desk shows of the calendar: never the address itself. */
export interface BusyFeedState {
  configured: boolean;
  /** The address's host, enough to recognise it. */
  hint: string | null;
  fetchedAt: Date | null;
  checkedAt: Date | null;
  events: number | null;
  unreadable: number | null;
  error: string | null;
}

/**
 * "calendar.google.com/…": which address it is, by its host alone. Every part of the path may be
 * the secret (Google's and Outlook's addresses carry it in the path, iCloud's in the file name).
 */
export function addressHint(url: string): string {
  const parsed = URL.parse(url.replace(/^webcals?:/i, 'https:'));
  if (!parsed) return 'an address that cannot be read';
  return `${parsed.host}${parsed.pathname.length > 1 ? '/…' : ''}`;
}

export async function busyFeedState(): Promise<BusyFeedState> {
  const url = address();
  const none = { fetchedAt: null, checkedAt: null, events: null, unreadable: null, error: null };
  if (!url) return { configured: false, hint: null, ...none };
  const [row] = await query<{
    address_sha256: string;
    fetched_at: Date | null;
    checked_at: Date | null;
    events: number | null;
    unreadable: number | null;
    error: string | null;
  }>(
    `SELECT address_sha256, fetched_at, checked_at, events, unreadable, error FROM consultation_busy_feed`,
  );
  const hint = addressHint(url);
  if (!row || row.address_sha256 !== fingerprint(url)) return { configured: true, hint, ...none };
  const at = (value: Date | null) => value && new Date(value);
  return {
    configured: true,
    hint,
    fetchedAt: at(row.fetched_at),
    checkedAt: at(row.checked_at),
    events: row.events,
    unreadable: row.unreadable,
    error: row.error,
  };
}
