import { getCollection, getEntry, type CollectionEntry } from 'astro:content';

type Ordered = 'sessions' | 'services' | 'programs' | 'testimonials';

async function ordered<C extends Ordered>(name: C): Promise<CollectionEntry<C>[]> {
  const entries = await getCollection(name);
  return entries.sort((a, b) => a.data.order - b.data.order);
}

export const getSessions = () => ordered('sessions');
export const getServices = () => ordered('services');
export const getPrograms = () => ordered('programs');
export const getTestimonials = () => ordered('testimonials');

export async function getSite() {
  const entry = await getEntry('site', 'site');
  if (!entry) throw new Error('content/site.yaml is missing');
  return entry.data;
}

type PageId = 'home' | 'about' | 'contact' | 'services' | 'events' | 'waiver';

export async function getPage(id: PageId) {
  const entry = await getEntry('pages', id);
  if (!entry) throw new Error(`content/${id}.md is missing`);
  return entry;
}

/** The page fields every page file may leave out, but this page needs: named in the error. */
function required<T>(value: T | undefined, id: string, field: string): T {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    throw new Error(`content/${id}.md: "${field}" is required for this page`);
  }
  return value;
}

export async function getHomePage() {
  const { data } = await getPage('home');
  return {
    ...data,
    hero: required(data.hero, 'home', 'hero'),
    heroImage: required(data.heroImage, 'home', 'heroImage'),
    heroImageAlt: required(data.heroImageAlt, 'home', 'heroImageAlt'),
    features: required(data.features, 'home', 'features'),
    closing: required(data.closing, 'home', 'closing'),
  };
}

export async function getAboutPage() {
  const entry = await getPage('about');
  const { data } = entry;
  return {
    entry,
    ...data,
    hero: required(data.hero, 'about', 'hero'),
    values: required(data.values, 'about', 'values'),
    certifications: required(data.certifications, 'about', 'certifications'),
    continuingEducation: required(data.continuingEducation, 'about', 'continuingEducation'),
    closing: required(data.closing, 'about', 'closing'),
  };
}

export async function getContactPage() {
  const { data } = await getPage('contact');
  return {
    ...data,
    hero: required(data.hero, 'contact', 'hero'),
    follow: required(data.follow, 'contact', 'follow'),
    firstVisit: required(data.firstVisit, 'contact', 'firstVisit'),
  };
}

export async function getServicesPage() {
  const { data } = await getPage('services');
  return {
    ...data,
    hero: required(data.hero, 'services', 'hero'),
    programs: required(data.programs, 'services', 'programs'),
    closing: required(data.closing, 'services', 'closing'),
  };
}

export async function getEventsPage() {
  const { data } = await getPage('events');
  return {
    ...data,
    hero: required(data.hero, 'events', 'hero'),
    comingSoon: required(data.comingSoon, 'events', 'comingSoon'),
    closing: required(data.closing, 'events', 'closing'),
  };
}

export async function getWaiverPage() {
  const entry = await getPage('waiver');
  const { data } = entry;
  return {
    entry,
    ...data,
    version: required(data.version, 'waiver', 'version'),
    hero: required(data.hero, 'waiver', 'hero'),
    notes: required(data.notes, 'waiver', 'notes'),
  };
}

/** "Maya" from "Maya Lindqvist". */
export function firstName(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] ?? fullName;
}

/** "$120" from 120; whole dollars only, as the price cards show. */
export function formatPrice(price: number): string {
  return `$${price.toLocaleString('en-US')}`;
}
