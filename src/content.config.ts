import { readFileSync } from 'node:fs';
import { defineCollection } from 'astro:content';
import { file, glob } from 'astro/loaders';
import { z } from 'astro/zod';
import { Temporal } from 'temporal-polyfill';
import { parse as parseYaml } from 'yaml';
import { ICON_NAMES } from './lib/icons';
import { availabilitySchema } from './shared/booking/availability';
import { retentionSchema } from './shared/retention';
import { versionProblems, waiverVersionsSchema } from './shared/waiver-versions';
import { waiverTextOf, type WaiverText } from './server/waiver/current-text';
import { addressSchema, isTimeZone, timeZoneSchema } from './shared/studio';
import { LOCAL_TIME_EXAMPLE, zonedTime } from './lib/studio-time';

// Files whose name starts with `_` are drafts: they stay in the folder but not on the site.
const markdown = (folder: string) => glob({ base: `./content/${folder}`, pattern: '**/[^_]*.md' });

const timeZone = timeZoneSchema;
const postalAddress = addressSchema;

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

// How long each kind of record is kept; the retention function reads the same file at run time
// through the same schema, and checks its names against the retention rules
// (src/server/retention/schedule.ts).
const retention = defineCollection({
  loader: file('./content/retention.yaml', {
    parser: (text) => ({ retention: parseYaml(text) ?? {} }),
  }),
  schema: retentionSchema,
});

// Every published version of the waiver text; content/waiver.md's text must still have the
// SHA-256 recorded for its version, so a signed text never changes under its label. The
// functions read the same file through the same schema (src/server/waiver/versions.ts).
const waiverVersions = defineCollection({
  loader: file('./content/waiver-versions.yaml', {
    parser: (text) => ({ waiverVersions: parseYaml(text) ?? {} }),
  }),
  schema: waiverVersionsSchema.superRefine((versions, context) => {
    let text: WaiverText;
    try {
      text = waiverTextOf(readFileSync('./content/waiver.md', 'utf8'));
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return;
    }
    for (const message of versionProblems(versions, text)) {
      context.addIssue({ code: 'custom', message });
    }
  }),
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

/**
 * The studio's time zone, read from content/site.yaml for the events' schema, which checks
 * each event's times in it (the site collection reports a missing or unknown zone itself).
 */
function studioTimeZone(): string | undefined {
  try {
    const zone = (parseYaml(readFileSync('./content/site.yaml', 'utf8')) as { timeZone?: unknown })
      ?.timeZone;
    return typeof zone === 'string' && isTimeZone(zone) ? zone : undefined;
  } catch {
    return undefined;
  }
}

// YAML reads `2026-06-14 09:00:00` (with seconds) as a UTC date, which would shift it by the
// studio's offset: only the local text is accepted, and a YAML date gets told what to write.
const localTime = z.string({
  error: (issue) =>
    issue.input instanceof Date
      ? `write the local date and time as ${LOCAL_TIME_EXAMPLE}, without seconds (or in quotes)`
      : `write the local date and time as ${LOCAL_TIME_EXAMPLE}`,
});

const events = defineCollection({
  loader: markdown('events'),
  schema: z
    .strictObject({
      title: z.string().min(1),
      /** Local date and time in the studio's zone (or `timeZone`), e.g. 2026-06-14 09:00. */
      start: localTime,
      end: localTime,
      /** Only for an event held in another zone than the studio's (e.g. online from abroad). */
      timeZone: timeZone.optional(),
      place: z.union(
        [
          z.literal('studio'),
          z.literal('online'),
          postalAddress.extend({
            name: z.string().min(1),
            country: postalAddress.shape.country.optional(),
          }),
        ],
        {
          error:
            'use studio, online, or an address with name, street, locality, region and postalCode',
        },
      ),
      price: z.union([z.number().nonnegative(), z.literal('free')], {
        error: 'use a number of US dollars, e.g. 25, or free',
      }),
      /** e.g. "8 mats; bring your own if you have one". */
      capacity: z.string().min(1).optional(),
      /** Where to book, if not by e-mail. */
      booking: z.url({ protocol: /^https?$/, error: 'use a web address (https://...)' }).optional(),
      /** One or two sentences for the list and search results; the description's start if unset. */
      summary: z.string().min(1).max(200).optional(),
    })
    .superRefine((event, context) => {
      // An unknown zone of the event's own is reported by its field above.
      if (event.timeZone && !isTimeZone(event.timeZone)) return;
      const zone = event.timeZone ?? studioTimeZone();
      if (!zone) {
        context.addIssue({
          code: 'custom',
          path: ['timeZone'],
          message: 'no time zone: set timeZone in content/site.yaml (or in this event)',
        });
        return;
      }
      const start = zonedTime(event.start, zone);
      const end = zonedTime(event.end, zone);
      if (!start.ok) context.addIssue({ code: 'custom', path: ['start'], message: start.message });
      if (!end.ok) context.addIssue({ code: 'custom', path: ['end'], message: end.message });
      if (start.ok && end.ok && Temporal.ZonedDateTime.compare(end.at, start.at) <= 0) {
        context.addIssue({
          code: 'custom',
          path: ['end'],
          message: `must be after start: the event starts ${event.start} and ends ${event.end}`,
        });
      }
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
      upcoming: titledText.optional(),
      notify: titledText.optional(),
      subscribe: titledText.optional(),
    }),
});

export const collections = {
  site,
  consultation,
  retention,
  waiverVersions,
  sessions,
  services,
  programs,
  testimonials,
  events,
  pages,
};
