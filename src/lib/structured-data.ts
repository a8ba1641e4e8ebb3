/** schema.org data for the studio, built from the same content as the visible pages. */
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

/** JSON for a `<script type="application/ld+json">`: `<` escaped so no value can close the tag. */
export function toJsonLd(data: unknown): string {
  return JSON.stringify(data).replace(/</g, '\\u003c');
}
