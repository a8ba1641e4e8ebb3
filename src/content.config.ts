import { defineCollection } from 'astro:content';
import { file, glob } from 'astro/loaders';
import { parse as parseYaml } from 'yaml';
import { eventSchema } from './lib/content-files';
import {
  availabilitySchema,
  pageSchema,
  programSchema,
  retentionSchema,
  serviceSchema,
  sessionHoursSchema,
  sessionSchema,
  siteSchema,
  testimonialSchema,
} from './lib/content-schemas';

// Every collection's schema is src/lib/content-schemas.ts's, which the build checks content/
// with first (src/integrations/content-check.ts): a mistake stops the build there, in the
// instructor's words, before Astro reads the files.

// Files whose name starts with `_` are drafts: they stay in the folder but not on the site.
const markdown = (folder: string) => glob({ base: `./content/${folder}`, pattern: '**/[^_]*.md' });

const site = defineCollection({
  loader: file('./content/site.yaml', { parser: (text) => ({ site: parseYaml(text) }) }),
  schema: siteSchema,
});

// The consultation's weekly windows, length, notice, horizon, buffer and place; the functions
// read the same file at run time through the same schema (src/server/booking/consultation.ts).
const consultation = defineCollection({
  loader: file('./content/consultation.yaml', {
    parser: (text) => ({ consultation: parseYaml(text) }),
  }),
  schema: availabilitySchema,
});

// Her session hours (private and in-home) and the cancellation policy; the functions read the same
// file at run time through the same schema (src/server/booking/policy.ts).
const booking = defineCollection({
  loader: file('./content/booking.yaml', { parser: (text) => ({ booking: parseYaml(text) }) }),
  schema: sessionHoursSchema,
});

// How long each kind of record is kept; the retention function reads the same file at run time
// through the same schema, and checks its names against the retention rules
// (src/server/retention/schedule.ts).
const retention = defineCollection({
  loader: file('./content/retention.yaml', {
    parser: (text) => ({ retention: parseYaml(text) ?? {} }),
  }),
  schema: retentionSchema,
});

const sessions = defineCollection({ loader: markdown('sessions'), schema: sessionSchema });

const services = defineCollection({ loader: markdown('services'), schema: serviceSchema });

const programs = defineCollection({
  loader: markdown('programs'),
  schema: ({ image }) => programSchema(image),
});

const testimonials = defineCollection({
  loader: markdown('testimonials'),
  schema: ({ image }) => testimonialSchema(image),
});

const events = defineCollection({ loader: markdown('events'), schema: eventSchema });

const pages = defineCollection({
  loader: glob({ base: './content', pattern: '[^_]*.md' }),
  schema: ({ image }) => pageSchema(image),
});

export const collections = {
  site,
  consultation,
  booking,
  retention,
  sessions,
  services,
  programs,
  testimonials,
  events,
  pages,
};
