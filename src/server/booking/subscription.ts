/**
 * The instructor's subscribable calendar of bookings, at a secret address made on the desk
 * (`/api/consultation/feed/<token>`): its token is stored only as a SHA-256, so the address is
 * shown once, when it is made, and a new one replaces it. Her calendar app asks again every
 * 15 minutes or so (REFRESH-INTERVAL); a cancelled booking simply leaves it.
 */
import { oneOf } from '../../shared/one-session';
import { isToken, tokenHash } from '../platform/tokens';
import { now, sqlNow } from '../platform/clock';
import { query, type Queryable } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import { consultationSettings } from './consultation';
import { bookingsFeed, type FeedEvent } from './bookings-calendar';
import { classesForFeed } from '../classes/desk';
import { sessionPolicy } from './policy';
import { sessionUid } from './session-invite';
import { bookingsBetween } from './store';
import { PAGES } from '../../shared/site-paths';

/** How far back the feed reaches: the past month stays in her calendar. */
const PAST_MS = 31 * 24 * 3_600_000;

export async function feedTokenMatches(token: string): Promise<boolean> {
  if (!isToken(token)) return false;
  const [row] = await query<{ ok: boolean }>(
    `SELECT true AS ok FROM consultation_feed_tokens WHERE token_sha256 = $1`,
    [tokenHash(token)],
  );
  return row !== undefined;
}

/** When the feed's current address was made; `undefined` when none has been. */
export async function feedAddressMadeAt(): Promise<Date | undefined> {
  const [row] = await query<{ created_at: Date }>(
    `SELECT created_at FROM consultation_feed_tokens`,
  );
  return row?.created_at;
}

/** Makes `hash` the SHA-256 of the feed's one address, made by `by`: the one before stops working. */
export async function storeFeedToken(tx: Queryable, hash: string, by: string): Promise<void> {
  await tx.query(
    `INSERT INTO consultation_feed_tokens (id, token_sha256, created_by, created_at)
     VALUES (true, $1, $2, ${sqlNow()})
     ON CONFLICT (id) DO UPDATE
        SET token_sha256 = EXCLUDED.token_sha256, created_by = EXCLUDED.created_by,
            created_at = EXCLUDED.created_at`,
    [hash, by],
  );
}

/** Deletes the feed's address (it may have been replaced since a backup); how many went. */
export async function revokeFeedAddress(tx: Queryable): Promise<number> {
  const { rows } = await tx.query(`DELETE FROM consultation_feed_tokens RETURNING id`);
  return rows.length;
}

/** The calendar of live bookings from a month ago on, for the address `origin`. */
export async function subscriptionCalendar(origin: string): Promise<string> {
  const at = now();
  const from = new Date(at.getTime() - PAST_MS);
  const host = new URL(origin).hostname;
  const [bookings, sessions, classes] = await Promise.all([
    bookingsBetween(from),
    sessionsForFeed(from, host, origin),
    classesForFeed(from, host),
  ]);
  const { place } = consultationSettings();
  return bookingsFeed(
    bookings.map((booking) => ({
      id: booking.id,
      sequence: booking.sequence,
      start: booking.start,
      end: booking.end,
      visitor: { name: booking.name, email: booking.email },
    })),
    {
      studio: { name: siteFacts().name, host },
      place,
      deskUrl: () => `${origin}${PAGES.desk}#/consultations`,
      now: at,
    },
    [...sessions, ...classes.map((date) => ({ ...date, url: `${origin}${PAGES.desk}#/bookings` }))],
  );
}

/**
 * The private and in-home sessions booked (a time still held for a checkout is not yet a
 * booking), with the UID of her own invite: who, where, what is due or paid.
 */
async function sessionsForFeed(from: Date, host: string, origin: string): Promise<FeedEvent[]> {
  const rows = await query<{
    id: string;
    session_title: string;
    place: 'studio' | 'home';
    street: string | null;
    postal_code: string | null;
    starts_at: Date;
    ends_at: Date;
    name: string;
    email: string;
    phone: string;
    sequence: number;
  }>(
    `SELECT id, session_title, place, street, postal_code, starts_at, ends_at, name, email, phone,
            sequence
       FROM session_bookings
      WHERE cancelled_at IS NULL AND spam_reason IS NULL AND payment <> 'held' AND ends_at > $1
      ORDER BY starts_at`,
    [from.toISOString()],
  );
  const { studioAddress } = sessionPolicy();
  return rows.map((row) => ({
    uid: sessionUid(row.id, host),
    sequence: Number(row.sequence),
    start: new Date(row.starts_at),
    end: new Date(row.ends_at),
    summary: `${oneOf(row.session_title)}: ${row.name}`,
    location: row.place === 'home' ? `${row.street}, ${row.postal_code}` : studioAddress,
    description: [`${row.name} <${row.email}>`, row.phone].filter(Boolean).join('\n'),
    url: `${origin}${PAGES.desk}#/bookings`,
  }));
}
