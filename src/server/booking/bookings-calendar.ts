/**
 * The instructor's subscribable calendar of bookings: one VCALENDAR with every consultation,
 * private or in-home session and class with a place booked that she should see, refreshed by her
 * calendar app from a secret address. Each event keeps the UID of its own invite, so the feed and
 * the invites she got by mail are one event in her calendar. A cancelled booking simply leaves
 * the feed, and subscribers drop it on their next refresh.
 *
 * REFRESH-INTERVAL (RFC 7986) and X-PUBLISHED-TTL ask for a refresh every `refreshMinutes`;
 * Apple Calendar and Outlook follow them, Google Calendar refreshes subscriptions on its own
 * schedule (hours), which is why every booking also sends her a mail.
 */
import ical, { ICalCalendarMethod } from 'ical-generator';
import type { ConsultationPlace } from '../../shared/booking/place';
import { bookingUid, withFinalLineBreak } from './ics-write';

export interface FeedBooking {
  id: string;
  sequence: number;
  start: Date;
  end: Date;
  visitor: { name: string; email: string };
}

/** A session or a class date in the feed, written out by its kind (subscription.ts). */
export interface FeedEvent {
  uid: string;
  sequence: number;
  start: Date;
  end: Date;
  summary: string;
  location?: string;
  description: string;
  url?: string;
}

export interface FeedContext {
  studio: { name: string; host: string };
  place: ConsultationPlace;
  /** The desk page of one booking, for the event's link. */
  deskUrl: (id: string) => string;
  now: Date;
  refreshMinutes?: number;
}

export function bookingsFeed(
  bookings: readonly FeedBooking[],
  context: FeedContext,
  others: readonly FeedEvent[] = [],
): string {
  const { studio, place, now, refreshMinutes = 15 } = context;
  const calendar = ical({
    name: `${studio.name}: bookings`,
    prodId: { company: studio.name, product: 'Bookings', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    ttl: refreshMinutes * 60,
  });
  for (const booking of bookings) {
    calendar.createEvent({
      id: bookingUid(booking.id, studio.host),
      sequence: booking.sequence,
      stamp: now,
      start: booking.start,
      end: booking.end,
      summary: `Consultation: ${booking.visitor.name}`,
      location: place.kind === 'studio' ? place.address : place.link,
      description: `${booking.visitor.name} <${booking.visitor.email}>`,
      url: context.deskUrl(booking.id),
    });
  }
  for (const event of others) {
    calendar.createEvent({
      id: event.uid,
      sequence: event.sequence,
      stamp: now,
      start: event.start,
      end: event.end,
      summary: event.summary,
      location: event.location,
      description: event.description,
      url: event.url,
    });
  }
  return withFinalLineBreak(calendar.toString());
}
