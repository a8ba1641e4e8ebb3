/**
 * The Events page, the events' own pages, their calendar files and the feed, as the build makes
 * them from content/events/ at the build's "now" (BUILD_NOW). Each scenario is built once from
 * a copy of the project (tests/fixtures/events-site.ts) and read back: the calendar files with
 * node-ical, a maintained iCalendar parser, at the instants the fixture says (DST included).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILD_NOW, DRAFT, EVENTS, PAST, UPCOMING } from '../fixtures/events';
import { buildEventsSite, disposeEventsSites, type BuiltSite } from '../fixtures/events-site';

const SITE = process.env.SITE_URL ?? process.env.URL ?? 'http://127.0.0.1:8888';
const UID_DOMAIN = 'stillpointpilates.studio';
const BUILD = { timeout: 180_000 };

const sites: Partial<Record<'events' | 'none' | 'past', BuiltSite>> = {};
const read = (site: BuiltSite | undefined, file: string) =>
  readFile(join(site!.dist, file), 'utf8');

function calendar(text: string) {
  const parsed = ical.sync.parseICS(text);
  const events = Object.values(parsed).filter((c): c is VEvent => c?.type === 'VEVENT');
  return { parsed, events, raw: text };
}

/** The JSON-LD blocks of a page, parsed. */
function jsonLd(html: string): unknown[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(
    ([, json]) => JSON.parse(json) as unknown,
  );
}

/** The event cards of the list, in page order, by the file name their heading's id carries. */
const listed = (html: string) =>
  [...html.matchAll(/<article[^>]*aria-labelledby="event-([^"]+)"/g)].map(([, id]) => id);

/** The `href` of the link whose text contains `text`. */
function linkTo(html: string, text: string): string | undefined {
  for (const [, href, inner] of html.matchAll(/<a\b[^>]*?href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)) {
    if (
      inner
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .includes(text)
    )
      return href;
  }
  return undefined;
}

const COMING_SOON = /<h2 id="coming-soon-title"[^>]*>\s*Coming Soon\s*<\/h2>/;

beforeAll(async () => {
  const [events, none, past] = await Promise.all([
    buildEventsSite('events'),
    buildEventsSite('none'),
    buildEventsSite('past'),
  ]);
  Object.assign(sites, { events, none, past });
}, BUILD.timeout);

afterAll(disposeEventsSites);

describe('with events still to come', () => {
  test('the Events page lists them soonest first, the one under way included, the past one and the draft left out', async () => {
    const html = await read(sites.events, 'events.html');
    expect(listed(html)).toEqual(UPCOMING.map((event) => event.id));
    expect(html).not.toContain(PAST[0].title);
    expect(html).not.toContain('Secret Preview');
  });

  test('the Coming Soon block is not shown; the mail links and Instagram stay', async () => {
    const html = await read(sites.events, 'events.html');
    expect(html).not.toMatch(COMING_SOON);
    expect(linkTo(html, 'Get Notified')).toMatch(/^mailto:/);
    expect(linkTo(html, 'Get Full Calendar')).toMatch(/^mailto:/);
    expect(linkTo(html, 'Follow on Instagram')).toMatch(/^https:\/\//);
  });

  test('each listed event links to its page and to its calendar file, which exists', async () => {
    const html = await read(sites.events, 'events.html');
    for (const { id } of UPCOMING) {
      expect(html).toContain(`href="/events/${id}"`);
      expect(html).toContain(`href="/events/${id}.ics"`);
      expect(existsSync(join(sites.events!.dist, `events/${id}.ics`)), id).toBe(true);
      expect(existsSync(join(sites.events!.dist, `events/${id}.html`)), id).toBe(true);
    }
  });

  test('the page offers the feed, as a webcal: subscription and as the https address', async () => {
    const html = await read(sites.events, 'events.html');
    const feed = new URL('/events.ics', SITE).href;
    expect(linkTo(html, 'Subscribe')).toBe(feed.replace(/^https?:/, 'webcal:'));
    expect(linkTo(html, 'Download all events')).toBe('/events.ics');
    expect(html).toContain(feed);
  });

  test("each event's calendar file holds that one event at its instants, with a stable UID, DTSTAMP, LOCATION, URL and a plain-text DESCRIPTION", async () => {
    for (const expected of EVENTS) {
      const { events, raw } = calendar(await read(sites.events, `events/${expected.id}.ics`));
      expect(events, expected.id).toHaveLength(1);
      const [event] = events;
      expect(event.uid).toBe(`event-${expected.id}@${UID_DOMAIN}`);
      expect(event.summary).toBe(expected.title);
      expect(event.start.toISOString(), expected.id).toBe(
        new Date(expected.startUtc).toISOString(),
      );
      expect(event.end!.toISOString(), expected.id).toBe(new Date(expected.endUtc).toISOString());
      expect(event.dtstamp.toISOString()).toBe(new Date(BUILD_NOW).toISOString());
      // A URL with parameters (VALUE=URI) is read as { params, val }, whatever the types say.
      const rawUrl: unknown = event.url;
      const url = typeof rawUrl === 'string' ? rawUrl : (rawUrl as { val: string }).val;
      expect(url).toBe(new URL(`/events/${expected.id}`, SITE).href);
      expect(event.location).toBeTruthy();
      const description = String(event.description);
      expect(description).not.toMatch(/<[a-z/]|\*\*|\]\(/);
      expect(description).toContain(`Details: ${url}`);
      expect(raw).toContain('METHOD:PUBLISH');
    }
  });

  test('the calendar files say where and what: an address, the studio, online, the booking link, Markdown as text', async () => {
    const one = async (id: string) =>
      calendar(await read(sites.events, `events/${id}.ics`)).events[0];
    expect((await one('halloween-night-flow')).location).toBe(
      'Laurelhurst Park, 3756 SE Oak St, Portland, OR 97214',
    );
    expect((await one('winter-mat-class')).location).toBe(
      'Still Point Pilates, 2140 SE Division St, Portland, OR 97202',
    );
    const berlin = await one('berlin-breathwork');
    expect(berlin.location).toBe('Online');
    expect(String(berlin.description)).toContain('joins from Berlin for an hour');
    expect(String(berlin.description)).toContain('Book: https://example.com/book/breathwork');
    const halloween = String((await one('halloween-night-flow')).description);
    expect(halloween).toContain('Lanterns & mats provided');
    expect(halloween).toContain('our Instagram [https://www.instagram.com/stillpointpilates]');
    expect(halloween).toContain('Price: Free');
  });

  test('the feed holds every event still to come and nothing else, named and refreshed like a subscription', async () => {
    const { events, parsed, raw } = calendar(await read(sites.events, 'events.ics'));
    expect(events.map((e) => e.uid).sort()).toEqual(
      UPCOMING.map((e) => `event-${e.id}@${UID_DOMAIN}`).sort(),
    );
    for (const expected of UPCOMING) {
      const event = events.find((e) => e.uid === `event-${expected.id}@${UID_DOMAIN}`)!;
      expect(event.start.toISOString()).toBe(new Date(expected.startUtc).toISOString());
      expect(event.end!.toISOString()).toBe(new Date(expected.endUtc).toISOString());
    }
    expect(parsed.vcalendar).toBeTruthy();
    expect(raw).toContain('X-WR-CALNAME:Still Point Pilates events');
    expect(raw).toMatch(/^REFRESH-INTERVAL;VALUE=DURATION:PT12H\r$/m);
    expect(raw).not.toContain(DRAFT.id);
  });

  test("the list carries each event's schema.org Event, with its offsets, place, price and booking", async () => {
    const [data] = jsonLd(await read(sites.events, 'events.html')) as Record<string, unknown>[][];
    expect(data.map((d) => d['@type'])).toEqual(UPCOMING.map(() => 'Event'));
    expect(data.map((d) => d.name)).toEqual(UPCOMING.map((e) => e.title));
    const byName = (name: string) => data.find((d) => d.name === name)!;
    const halloween = byName('Halloween Night Flow');
    expect(halloween.startDate).toBe('2026-10-31T22:00-07:00');
    expect(halloween.endDate).toBe('2026-11-01T01:30-08:00');
    expect(halloween.isAccessibleForFree).toBe(true);
    expect(halloween.location).toMatchObject({
      '@type': 'Place',
      name: 'Laurelhurst Park',
      address: { '@type': 'PostalAddress', postalCode: '97214', addressCountry: 'US' },
    });
    const berlin = byName('Breathwork from Berlin');
    expect(berlin.startDate).toBe('2026-10-25T10:00+01:00');
    expect(berlin.eventAttendanceMode).toBe('https://schema.org/OnlineEventAttendanceMode');
    expect(berlin.location).toEqual({
      '@type': 'VirtualLocation',
      url: 'https://example.com/book/breathwork',
    });
    expect(byName('Morning Mat Intensive').offers).toMatchObject({
      price: '22.50',
      priceCurrency: 'USD',
      url: new URL('/events/morning-mat-intensive', SITE).href,
    });
  });

  test("an event's page says when in its own zone (both offsets across the clock change), where, the price, and offers booking and the calendar file", async () => {
    const halloween = await read(sites.events, 'events/halloween-night-flow.html');
    const text = halloween.replace(/<[^>]+>/g, ' ').replace(/[\s\u2009\u202f]+/g, ' ');
    expect(text).toContain(
      'Saturday, October 31, 2026 at 10:00 PM PDT – Sunday, November 1, 2026 at 1:30 AM PST',
    );
    expect(text).toContain('3756 SE Oak St, Portland, OR 97214');
    expect(text).toContain('Free');
    expect(linkTo(halloween, 'Book by e-mail')).toMatch(
      /^mailto:hello@stillpointpilates\.studio\?subject=Booking/,
    );
    expect(linkTo(halloween, 'Add to calendar')).toBe('/events/halloween-night-flow.ics');
    const [data] = jsonLd(halloween) as Record<string, unknown>[];
    expect(data['@type']).toBe('Event');

    const berlin = await read(sites.events, 'events/berlin-breathwork.html');
    expect(berlin.replace(/[\u2009\u202f]/g, ' ')).toContain('10:00 – 11:00 AM GMT+1');
    expect(linkTo(berlin, 'Book a place')).toBe('https://example.com/book/breathwork');
  });

  test('a past event keeps its page, which says it has passed, without booking, calendar file link or Event data', async () => {
    const html = await read(sites.events, `events/${PAST[0].id}.html`);
    expect(html).toContain('This event has passed.');
    expect(html).toContain('It took place on Saturday, October 10, 2026.');
    expect(linkTo(html, 'See upcoming events')).toBe('/events');
    expect(html).not.toContain(`${PAST[0].id}.ics`);
    expect(linkTo(html, 'Book')).toBeUndefined();
    expect(jsonLd(html)).toEqual([]);
  });

  test('the sitemap lists every event page, past ones too, and no draft', async () => {
    const sitemap = await read(sites.events, 'sitemap-0.xml');
    for (const { id } of EVENTS) expect(sitemap).toContain(`/events/${id}</loc>`);
    expect(sitemap).not.toContain(DRAFT.id);
    expect(existsSync(join(sites.events!.dist, `events/${DRAFT.id}.html`))).toBe(false);
  });
});

describe('with no event still to come', () => {
  test('with no published event, the Events page shows the Coming Soon block with its mail and social links, and no list', async () => {
    const html = await read(sites.none, 'events.html');
    expect(html).toMatch(COMING_SOON);
    expect(linkTo(html, 'Get Notified')).toMatch(/^mailto:hello@stillpointpilates\.studio\?/);
    expect(linkTo(html, '@stillpointpilates')).toBe('https://www.instagram.com/stillpointpilates');
    expect(linkTo(html, 'Get Full Calendar')).toMatch(/^mailto:/);
    expect(linkTo(html, 'Follow on Instagram')).toMatch(/^https:\/\//);
    expect(listed(html)).toEqual([]);
    expect(html).not.toContain('events.ics');
    expect(jsonLd(html)).toEqual([]);
  });

  test('with only past events, the Coming Soon block is back, word for word, and the past event keeps its page', async () => {
    const [none, past] = await Promise.all([
      read(sites.none, 'events.html'),
      read(sites.past, 'events.html'),
    ]);
    const block = (html: string) =>
      /<section[^>]*coming-soon-title[\s\S]*?<\/section>/.exec(html)?.[0];
    expect(block(past)).toBeDefined();
    expect(block(past)).toBe(block(none));
    expect(listed(past)).toEqual([]);
    expect(await read(sites.past, `events/${PAST[0].id}.html`)).toContain('This event has passed.');
  });

  test('the feed still answers, an empty calendar, so an earlier subscription keeps working', async () => {
    for (const site of [sites.none, sites.past]) {
      const { events, parsed } = calendar(await read(site, 'events.ics'));
      expect(parsed.vcalendar).toBeTruthy();
      expect(events).toEqual([]);
    }
  });
});
