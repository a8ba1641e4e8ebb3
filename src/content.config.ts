import { defineCollection } from 'astro:content';
import { file, glob } from 'astro/loaders';
import { z } from 'astro/zod';
import { parse as parseYaml } from 'yaml';
import { ICON_NAMES } from './lib/icons';
import { availabilitySchema } from './shared/booking/availability';
import { addressSchema, timeZoneSchema } from './shared/booking/studio';

// Files whose name starts with `_` are drafts: they stay in the folder but not on the site.
const markdown = (folder: string) => glob({ base: `./content/${folder}`, pattern: '**/[^_]*.md' });

const site = defineCollection({
  loader: file('./content/site.yaml', { parser: (text) => ({ site: parseYaml(text) }) }),
  schema: z.object({
    name: z.string().min(1),
    tagline: z.string().min(1),
    description: z.string().min(1),
    instructor: z.string().min(1),
    email: z.email(),
    location: z.string().min(1),
    timeZone: timeZoneSchema,
    address: addressSchema,
    hours: z
      .array(
        z.object({
          label: z.string().min(1),
          days: z.array(z.enum(['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'])).min(1),
          opens: z.string().regex(/^\d{2}:\d{2}$/, 'use 24-hour HH:MM, e.g. 06:00'),
          closes: z.string().regex(/^\d{2}:\d{2}$/, 'use 24-hour HH:MM, e.g. 20:00'),
        }),
      )
      .min(1),
    social: z.object({
      instagram: z.url(),
      instagramHandle: z.string().min(1),
      facebook: z.url(),
    }),
  }),
});

// The consultation's weekly windows, length, notice, horizon, buffer and place; the functions
// read the same file at run time through the same schema (src/server/booking/consultation.ts).
const consultation = defineCollection({
  loader: file('./content/consultation.yaml', {
    parser: (text) => ({ consultation: parseYaml(text) }),
  }),
  schema: availabilitySchema,
});

const sessions = defineCollection({
  loader: markdown('sessions'),
  schema: z.strictObject({
    title: z.string().min(1),
    price: z.number().positive(),
    unit: z.string().min(1),
    note: z.string().optional(),
    order: z.number().int(),
  }),
});

const services = defineCollection({
  loader: markdown('services'),
  schema: z.strictObject({
    title: z.string().min(1),
    duration: z.string().min(1),
    price: z.string().min(1).default('Inquire'),
    features: z.array(z.string().min(1)).default([]),
    order: z.number().int(),
  }),
});

const programs = defineCollection({
  loader: markdown('programs'),
  schema: ({ image }) =>
    z.strictObject({
      title: z.string().min(1),
      description: z.string().min(1),
      image: image(),
      imageAlt: z.string().min(1),
      order: z.number().int(),
    }),
});

const testimonials = defineCollection({
  loader: markdown('testimonials'),
  schema: z.strictObject({
    name: z.string().min(1),
    rating: z.number().int().min(1).max(5),
    order: z.number().int(),
  }),
});

const titledText = z.strictObject({
  title: z.string().min(1),
  text: z.string().min(1),
  icon: z.enum(ICON_NAMES).optional(),
});

const headline = z.strictObject({
  eyebrow: z.string().min(1).optional(),
  title: z.string().min(1),
  text: z.string().min(1),
});

const pages = defineCollection({
  loader: glob({ base: './content', pattern: '[^_]*.md' }),
  schema: ({ image }) =>
    z.object({
      title: z.string().min(1),
      description: z.string().min(1),
      hero: headline.optional(),
      heroImage: image().optional(),
      heroImageAlt: z.string().optional(),
      features: z.array(titledText).optional(),
      closing: titledText.optional(),
      values: z.array(titledText).optional(),
      certifications: z.array(z.string().min(1)).optional(),
      continuingEducation: z.array(z.string().min(1)).optional(),
      version: z.string().optional(),
      notes: z.array(titledText).optional(),
      follow: titledText.optional(),
      firstVisit: titledText.optional(),
      programs: headline.optional(),
      comingSoon: titledText.optional(),
    }),
});

export const collections = {
  site,
  consultation,
  sessions,
  services,
  programs,
  testimonials,
  pages,
};
