import { readFileSync } from 'node:fs';
import { defineCollection } from 'astro:content';
import { file, glob } from 'astro/loaders';
import { parse as parseYaml } from 'yaml';
import {
  availabilitySchema,
  eventSchema,
  pageSchema,
  programSchema,
  retentionSchema,
  serviceSchema,
  sessionSchema,
  siteSchema,
  testimonialSchema,
} from './lib/content-schemas';
import { versionProblems, waiverVersionsSchema } from './shared/waiver-versions';
import { waiverTextOf, type WaiverText } from './server/waiver/current-text';

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

const sessions = defineCollection({ loader: markdown('sessions'), schema: sessionSchema });

const services = defineCollection({ loader: markdown('services'), schema: serviceSchema });

const programs = defineCollection({
  loader: markdown('programs'),
  schema: ({ image }) => programSchema(image),
});

const testimonials = defineCollection({
  loader: markdown('testimonials'),
  schema: testimonialSchema,
});

const events = defineCollection({ loader: markdown('events'), schema: eventSchema });

const pages = defineCollection({
  loader: glob({ base: './content', pattern: '[^_]*.md' }),
  schema: ({ image }) => pageSchema(image),
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
