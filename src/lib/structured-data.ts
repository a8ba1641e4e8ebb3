/** schema.org data for the studio, built from the same content as the visible pages. */
import type { EventPlace, StudioEvent } from './events';
import { isoWithOffset } from './studio-time';

export interface StudioFacts {
  name: string;
  description: string;
  email: string;
  url: string;
  hours: { days: string[]; opens: string; closes: string }[];
  sameAs: string[];
}

export interface PricedSession {
  title: string;
  price: number;
  description: string;
}

const DAY_NAMES: Record<string, string> = {
  Mo: 'Monday',
  Tu: 'Tuesday',
  We: 'Wednesday',
  Th: 'Thursday',
  Fr: 'Friday',
  Sa: 'Saturday',
  Su: 'Sunday',
};

export function studioJsonLd(studio: StudioFacts, sessions: PricedSession[]) {
  return {
    '@context': 'https://schema.org',
    '@type': 'ExerciseGym',
    name: studio.name,
    description: studio.description,
    email: studio.email,
    url: studio.url,
    sameAs: studio.sameAs,
    openingHoursSpecification: studio.hours.map((h) => ({
      '@type': 'OpeningHoursSpecification',
      dayOfWeek: h.days.map((d) => `https://schema.org/${DAY_NAMES[d]}`),
      opens: h.opens,
      closes: h.closes,
    })),
    makesOffer: sessions.map((s) => ({
      '@type': 'Offer',
      name: s.title,
      description: s.description,
      price: s.price.toFixed(2),
      priceCurrency: 'USD',
    })),
  };
}

export interface EventHost {
  name: string;
  /** The studio's home page. */
  url: string;
  instructor: string;
  /** An image for search results: the site's link-preview card. */
  image: string;
}

function location(place: EventPlace, onlineUrl: string) {
  if (place.kind === 'online') return { '@type': 'VirtualLocation', url: onlineUrl };
  return {
    '@type': 'Place',
    name: place.name,
    address: {
      '@type': 'PostalAddress',
      streetAddress: place.address.street,
      addressLocality: place.address.locality,
      addressRegion: place.address.region,
      postalCode: place.address.postalCode,
      addressCountry: place.address.country,
    },
  };
}

/** A schema.org Event (what search engines show for an event), from the page's own facts. */
export function eventJsonLd(event: StudioEvent, url: string, host: EventHost) {
  const free = event.price === 'free';
  return {
    '@context': 'https://schema.org',
    '@type': 'Event',
    name: event.title,
    description: event.summary,
    url,
    image: [host.image],
    startDate: isoWithOffset(event.start),
    endDate: isoWithOffset(event.end),
    eventStatus: 'https://schema.org/EventScheduled',
    eventAttendanceMode:
      event.place.kind === 'online'
        ? 'https://schema.org/OnlineEventAttendanceMode'
        : 'https://schema.org/OfflineEventAttendanceMode',
    location: location(event.place, event.booking ?? url),
    organizer: { '@type': 'Organization', name: host.name, url: host.url },
    performer: { '@type': 'Person', name: host.instructor },
    ...(free && { isAccessibleForFree: true }),
    offers: {
      '@type': 'Offer',
      price: free ? '0' : (event.price as number).toFixed(2),
      priceCurrency: 'USD',
      availability: 'https://schema.org/InStock',
      url: event.booking ?? url,
    },
  };
}

/** JSON for a `<script type="application/ld+json">`: `<` escaped so no value can close the tag. */
export function toJsonLd(data: unknown): string {
  return JSON.stringify(data).replace(/</g, '\\u003c');
}
