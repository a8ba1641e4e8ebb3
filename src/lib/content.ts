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

export async function getPage(id: 'home' | 'about' | 'waiver') {
  const entry = await getEntry('pages', id);
  if (!entry) throw new Error(`content/${id}.md is missing`);
  return entry;
}

/** "$120" from 120; whole dollars only, as the price cards show. */
export function formatPrice(price: number): string {
  return `$${price.toLocaleString('en-US')}`;
}
