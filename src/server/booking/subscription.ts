/**
 * The instructor's subscribable calendar of bookings, at a secret address made on the desk
 * (`/api/consultation/feed/<token>`): its token is stored only as a SHA-256, so the address is
 * shown once, when it is made, and a new one replaces it. Her calendar app asks again every
 * 15 minutes or so (REFRESH-INTERVAL); a cancelled booking simply leaves it.
 */
import { isToken, tokenHash } from '../platform/tokens';
import { now } from '../platform/clock';
import { query } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import { consultationSettings } from './consultation';
import { bookingsFeed } from './bookings-calendar';
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

/** The calendar of live bookings from a month ago on, for the address `origin`. */
export async function subscriptionCalendar(origin: string): Promise<string> {
  const at = now();
  const bookings = await bookingsBetween(new Date(at.getTime() - PAST_MS));
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
      studio: { name: siteFacts().name, host: new URL(origin).hostname },
      place,
      deskUrl: () => `${origin}${PAGES.desk}#/consultations`,
      now: at,
    },
  );
}
