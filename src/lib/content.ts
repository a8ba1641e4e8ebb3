import { getCollection, getEntry, type CollectionEntry } from 'astro:content';
import { buildNow } from './clock';
import { byStart, hasEnded, toStudioEvent, type StudioEvent } from './events';
import { aOneOf } from '../shared/one-session';
import { plainText } from './plain-text';

type Ordered = 'sessions' | 'services' | 'programs' | 'testimonials';

async function ordered<C extends Ordered>(name: C): Promise<CollectionEntry<C>[]> {
  const entries = await getCollection(name);
  return entries.sort((a, b) => a.data.order - b.data.order);
}

export const getSessions = () => ordered('sessions');

/**
 * Where a session card is booked on the site, in the words a visitor looks for: a session of
 * one person at a time on its page (`where` set), the small group on the classes' timetable.
 */
export function bookingOf(session: {
  id: string;
  data: { title: string; where?: string };
}): { href: string; label: string } | undefined {
  if (session.data.where) {
    return { href: `/book/${session.id}`, label: `Book ${aOneOf(session.data.title)}` };
  }
  if (session.id === 'small-group') return { href: '/classes', label: 'Book a class' };
  return undefined;
}
export const getServices = () => ordered('services');
export const getPrograms = () => ordered('programs');
export const getTestimonials = () => ordered('testimonials');

export async function getSite() {
  const entry = await getEntry('site', 'site');
  if (!entry) throw new Error('content/site.yaml is missing');
  return entry.data;
}

/** content/consultation.yaml: when the consultation may be booked, and where it happens. */
export async function getConsultation() {
  const entry = await getEntry('consultation', 'consultation');
  if (!entry) throw new Error('content/consultation.yaml is missing');
  return entry.data;
}

/** content/booking.yaml: her session hours and the cancellation policy. */
export async function getBooking() {
  const entry = await getEntry('booking', 'booking');
  if (!entry) throw new Error('content/booking.yaml is missing');
  return entry.data;
}

/** Every published event (drafts excepted), soonest first, with its file's entry. */
export async function getEvents(): Promise<(StudioEvent & { entry: CollectionEntry<'events'> })[]> {
  const [entries, site] = await Promise.all([getCollection('events'), getSite()]);
  return entries
    .map((entry) => ({
      ...toStudioEvent(entry.id, entry.data, plainText(entry.rendered?.html ?? ''), site),
      entry,
    }))
    .sort(byStart);
}

/**
 * The events as the build sees them at its "now" (src/lib/clock.ts): those still to come,
 * soonest first (one under way included), and those that are over.
 */
export async function getEventsNow() {
  const now = buildNow();
  const events = await getEvents();
  return {
    now,
    upcoming: events.filter((event) => !hasEnded(event, now)),
    past: events.filter((event) => hasEnded(event, now)),
  };
}

type PageId = 'home' | 'about' | 'contact' | 'services' | 'events' | 'waiver' | 'consultation';

export async function getPage(id: PageId) {
  const entry = await getEntry('pages', id);
  if (!entry) throw new Error(`content/${id}.md is missing`);
  return entry;
}

type PageData = CollectionEntry<'pages'>['data'];

/**
 * A page's entry with the fields every page file may leave out but this page needs, checked:
 * a missing one fails the build with the file and the field named.
 */
async function pageWith<K extends keyof PageData>(id: PageId, needs: K[]) {
  const entry = await getPage(id);
  const checked = {} as { [F in K]-?: NonNullable<PageData[F]> };
  for (const field of needs) {
    const value = entry.data[field];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) {
      throw new Error(`content/${id}.md: "${String(field)}" is required for this page`);
    }
    checked[field] = value as NonNullable<PageData[K]>;
  }
  return { entry, ...entry.data, ...checked };
}

export const getHomePage = () =>
  pageWith('home', ['hero', 'heroImage', 'heroImageAlt', 'features', 'closing']);
export const getAboutPage = () =>
  pageWith('about', ['hero', 'values', 'certifications', 'continuingEducation', 'closing']);
export const getContactPage = () => pageWith('contact', ['hero', 'follow', 'firstVisit']);
export const getServicesPage = () => pageWith('services', ['hero', 'programs', 'closing']);
export const getEventsPage = () =>
  pageWith('events', ['hero', 'comingSoon', 'upcoming', 'list', 'subscribe', 'closing']);
export const getWaiverPage = () => pageWith('waiver', ['version', 'hero', 'notes']);
export const getConsultationPage = () => pageWith('consultation', ['hero', 'notes']);

/** "Maya" from "Maya Lindqvist". */
export function firstName(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] ?? fullName;
}

/** "$120" from 120; whole dollars only, as the price cards show. */
export function formatPrice(price: number): string {
  return `$${price.toLocaleString('en-US')}`;
}
