/**
 * Events as the pages, the calendar files and the structured data use them: read from
 * content/events/*.md (see src/lib/content.ts) with their times turned into instants.
 */
import { Temporal } from 'temporal-polyfill';
import { excerpt } from './plain-text';
import { formatAddress, type PostalAddress } from '../shared/studio';
import { zonedTime } from './studio-time';

export type { PostalAddress };

export type EventPlace =
  { kind: 'studio' | 'address'; name: string; address: PostalAddress } | { kind: 'online' };

export interface StudioEvent {
  /** From the file name: the page's address (/events/<id>) and the calendar UID. */
  id: string;
  title: string;
  start: Temporal.ZonedDateTime;
  end: Temporal.ZonedDateTime;
  place: EventPlace;
  price: number | 'free';
  capacity?: string;
  booking?: string;
  /** One or two sentences, plain text. */
  summary: string;
  /** The whole description, plain text. */
  text: string;
}

/** What an event file holds once its schema (src/content.config.ts) has checked it. */
export interface EventFields {
  title: string;
  start: string;
  end: string;
  timeZone?: string;
  place:
    'studio' | 'online' | (Omit<PostalAddress, 'country'> & { name: string; country?: string });
  price: number | 'free';
  capacity?: string;
  booking?: string;
  summary?: string;
}

export interface Studio {
  name: string;
  timeZone: string;
  address: PostalAddress;
}

export function toStudioEvent(
  id: string,
  fields: EventFields,
  text: string,
  studio: Studio,
): StudioEvent {
  const zone = fields.timeZone ?? studio.timeZone;
  const at = (field: 'start' | 'end') => {
    const result = zonedTime(fields[field], zone);
    // The schema refuses these first; this only guards a caller that skipped it.
    if (!result.ok) throw new Error(`content/events/${id}.md: ${field}: ${result.message}`);
    return result.at;
  };
  const place: EventPlace =
    fields.place === 'online'
      ? { kind: 'online' }
      : fields.place === 'studio'
        ? { kind: 'studio', name: studio.name, address: studio.address }
        : {
            kind: 'address',
            name: fields.place.name,
            address: { country: studio.address.country, ...fields.place },
          };
  return {
    id,
    title: fields.title,
    start: at('start'),
    end: at('end'),
    place,
    price: fields.price === 0 ? 'free' : fields.price,
    capacity: fields.capacity,
    booking: fields.booking,
    summary: fields.summary?.replace(/\s+/g, ' ').trim() ?? excerpt(text, 240),
    text,
  };
}

/** Soonest first (then the one that ends first, then by file name, so the order is stable). */
export function byStart(a: StudioEvent, b: StudioEvent): number {
  return (
    Temporal.ZonedDateTime.compare(a.start, b.start) ||
    Temporal.ZonedDateTime.compare(a.end, b.end) ||
    a.id.localeCompare(b.id)
  );
}

/** Whether the event is over at `now`: one under way is still to come. */
export function hasEnded(event: StudioEvent, now: Temporal.Instant): boolean {
  return Temporal.Instant.compare(event.end.toInstant(), now) <= 0;
}

/** "$65", "$22.50" or "Free". */
export function priceLabel(price: number | 'free'): string {
  if (price === 'free') return 'Free';
  return `$${Number.isInteger(price) ? price.toLocaleString('en-US') : price.toFixed(2)}`;
}

/** Where, in one line: "Still Point Pilates, 2140 SE Division St, ..." or "Online". */
export function placeLine(place: EventPlace): string {
  return place.kind === 'online' ? 'Online' : `${place.name}, ${formatAddress(place.address)}`;
}

/** The event's page, e.g. `/events/spring-workshop`. */
export const eventPath = (event: Pick<StudioEvent, 'id'>) => `/events/${event.id}`;

/** Its calendar file, e.g. `/events/spring-workshop.ics`. */
export const eventCalendarPath = (event: Pick<StudioEvent, 'id'>) => `/events/${event.id}.ics`;

/** The feed every upcoming event is in. */
export const FEED_PATH = '/events.ics';

/**
 * The event's iCalendar UID: the file name at the studio's mail domain. It stays the same
 * across builds and deploys, so a calendar updates the event it has instead of adding another.
 */
export function eventUid(event: Pick<StudioEvent, 'id'>, studioEmail: string): string {
  return `event-${event.id}@${studioEmail.split('@').pop()}`;
}
