/**
 * The events as iCalendar (RFC 5545): one file per event for "Add to calendar", and the feed
 * calendars subscribe to. Times are written in UTC, which every calendar reads the same way
 * and shows in its owner's zone (ical-generator's own advice; a TZID would also need a
 * VTIMEZONE block for each zone). The page says the time in the studio's zone.
 */
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { Temporal } from 'temporal-polyfill';
import { eventPath, eventUid, FEED_PATH, placeLine, priceLabel, type StudioEvent } from './events';

export interface CalendarStudio {
  name: string;
  email: string;
  /** The public address of the site, e.g. https://stillpointpilates.studio/ */
  site: URL | string;
}

// Calendar apps check a subscription about this often; the site is rebuilt daily.
const REFRESH_SECONDS = 12 * 60 * 60;

/**
 * A VCALENDAR of `events`: the feed (`feed: true`, named and refreshed like a subscription)
 * or one event's file. `stamp` is the DTSTAMP: the build's "now".
 */
export function eventsCalendar(
  events: StudioEvent[],
  studio: CalendarStudio,
  stamp: Temporal.Instant,
  { feed = false } = {},
): string {
  const calendar = ical({
    prodId: { company: studio.name, product: 'Events', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    ...(feed && {
      name: `${studio.name} events`,
      description: `Workshops, classes and events at ${studio.name}`,
      url: new URL('/events', studio.site).href,
      source: new URL(FEED_PATH, studio.site).href,
      ttl: REFRESH_SECONDS,
    }),
  });
  for (const event of events) {
    const url = new URL(eventPath(event), studio.site).href;
    calendar.createEvent({
      id: eventUid(event, studio.email),
      stamp: new Date(stamp.epochMilliseconds),
      start: new Date(event.start.epochMilliseconds),
      end: new Date(event.end.epochMilliseconds),
      summary: event.title,
      description: description(event, url),
      location: placeLine(event.place),
      url,
      status: ICalEventStatus.CONFIRMED,
    });
  }
  return calendar.toString();
}

function description(event: StudioEvent, url: string): string {
  const facts = [
    `Price: ${priceLabel(event.price)}`,
    event.capacity,
    event.booking ? `Book: ${event.booking}` : undefined,
    `Details: ${url}`,
  ].filter(Boolean);
  return `${event.text}\n\n${facts.join('\n')}`;
}
