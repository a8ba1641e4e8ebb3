/**
 * What each file in content/ may hold, every field with one message in the instructor's words
 * (src/shared/content-fields.ts). Astro's collections are made from these
 * (src/content.config.ts), and the build checks content/ with the same ones before Astro reads
 * it (src/integrations/content-check.ts), so a mistake is told once, in her words.
 */
import { Temporal } from 'temporal-polyfill';
import { z } from 'zod';
import { ICON_NAMES } from './icons';
import { LOCAL_TIME_EXAMPLE, zonedTime } from './studio-time';
import { availabilitySchema } from '../shared/booking/availability';
import { timetableSchema } from '../shared/classes/timetable';
import {
  clock,
  dollars,
  dollarsOr,
  fields,
  lines,
  order,
  says,
  weekdays,
  webAddress,
  wholeNumber,
  words,
} from '../shared/content-fields';
import { retentionSchema } from '../shared/retention';
import {
  checkSessionBooking,
  sessionBookingFields,
  sessionHoursSchema,
} from '../shared/booking/session-hours';
import { addressSchema, isTimeZone, timeZoneSchema } from '../shared/studio';
import { waiverFrontmatterSchema } from '../shared/waiver-versions';

/** An image beside the file (`./prenatal.svg`): Astro's `image()`, or a check of the path. */
export type ImageField<Image extends z.ZodType = z.ZodType> = () => Image;

export const IMAGE_HINT = "write the picture's file name beside this file, e.g. ./prenatal.svg";
const ALT_HINT = 'describe the picture for someone who cannot see it, e.g. Illustration of ...';

export const siteSchema = fields(
  {
    name: words("write the studio's name, e.g. Still Point Pilates"),
    tagline: words('write a short line under the name, e.g. Private pilates, mindfully taught'),
    description: words(
      'write a sentence or two about the studio for search results, e.g. An independent pilates studio ...',
    ),
    instructor: words('write your name, e.g. Maya Lindqvist'),
    email: z.email(says('use an e-mail address, e.g. hello@stillpointpilates.studio')),
    location: words('write the city and state, e.g. Portland, Oregon'),
    timeZone: timeZoneSchema,
    address: addressSchema,
    hours: z
      .array(
        fields(
          {
            label: words('write the hours as visitors read them, e.g. Mon-Fri 6AM-8PM'),
            days: weekdays,
            opens: clock('06:00'),
            closes: clock('20:00'),
          },
          'an entry of the opening hours',
        ),
        says(
          "write the opening hours as a list, e.g. - label: Mon-Fri 6AM-8PM days: [Mo, Tu, We, Th, Fr] opens: '06:00' closes: '20:00'",
        ),
      )
      .min(1, 'write at least one entry of opening hours'),
    social: fields(
      {
        instagram: webAddress('https://www.instagram.com/stillpointpilates'),
        instagramHandle: words('write your Instagram name, e.g. @stillpointpilates'),
        facebook: webAddress('https://www.facebook.com/stillpointpilates'),
      },
      'the social links',
    ),
  },
  'content/site.yaml',
);

export const sessionSchema = fields(
  {
    title: words("write the card's title, e.g. Private Sessions"),
    price: dollars('use a number of US dollars, e.g. 120'),
    unit: words('write what the price is for, e.g. per session'),
    note: words('write a short line under the price, e.g. maximum 4 participants').optional(),
    order: order(),
    // Booked on the site one person at a time when `where` is set (src/shared/booking/session-hours.ts).
    ...sessionBookingFields,
  },
  'a session',
).superRefine(checkSessionBooking);

export const SERVICE_PRICE_HINT = 'use a number of US dollars, e.g. 95, or inquire';

export const serviceSchema = fields(
  {
    title: words("write the card's title, e.g. Private Virtual Sessions"),
    duration: words('write how long it lasts, e.g. 60 minutes, or varies'),
    price: dollarsOr('inquire', SERVICE_PRICE_HINT).default('inquire'),
    features: lines('Live, one-on-one over video').default([]),
    order: order(),
  },
  'a service',
);

export const programSchema = <Image extends z.ZodType>(image: ImageField<Image>) =>
  fields(
    {
      title: words("write the program's title, e.g. Prenatal Pilates"),
      description: words(
        'write a sentence or two about the program, e.g. Gentle, trimester-aware sessions ...',
      ),
      image: image(),
      imageAlt: words(ALT_HINT),
      order: order(),
    },
    'a program',
  );

const PHOTO_ALT_HINT = 'describe the photo for someone who cannot see it, e.g. Sarah smiling';

/** A testimonial; `photo`, if she adds one, a picture beside the file, resized by the build. */
export const testimonialSchema = <Image extends z.ZodType>(image: ImageField<Image>) =>
  fields(
    {
      name: words('write who said it, e.g. Sarah M.'),
      rating: wholeNumber('use a whole number of stars from 1 to 5, e.g. 5')
        .min(1, 'use a whole number of stars from 1 to 5, e.g. 5')
        .max(5, 'use a whole number of stars from 1 to 5, e.g. 5'),
      order: order(),
      photo: image().optional(),
      photoAlt: words(PHOTO_ALT_HINT).optional(),
    },
    'a testimonial',
  ).superRefine((testimonial, context) => {
    if (testimonial.photo !== undefined && !testimonial.photoAlt) {
      context.addIssue({
        code: 'custom',
        path: ['photoAlt'],
        message: `missing: ${PHOTO_ALT_HINT}`,
      });
    }
  });

// YAML reads `2026-06-14 09:00:00` (with seconds) as a UTC date, which would shift it by the
// studio's offset: only the local text is accepted, and a YAML date gets told what to write.
const localTime = z.string({
  error: (issue) =>
    issue.input instanceof Date
      ? `write the local date and time without seconds (or in quotes), e.g. ${LOCAL_TIME_EXAMPLE}`
      : issue.input === undefined
        ? `missing: write the local date and time, e.g. ${LOCAL_TIME_EXAMPLE}`
        : `write the local date and time, e.g. ${LOCAL_TIME_EXAMPLE}`,
});

const PLACE_HINT =
  'use studio, online, or an address with name, street, locality, region and postalCode';

/**
 * An event, its times checked in `studioTimeZone()` (content/site.yaml's, which the build reads
 * from the file: src/lib/content-files.ts) unless it has a zone of its own.
 */
export const eventSchemaIn = (studioTimeZone: () => string | undefined) =>
  fields(
    {
      title: words("write the event's title, e.g. Spring Reformer Workshop"),
      /** Local date and time in the studio's zone (or `timeZone`), e.g. 2026-06-14 09:00. */
      start: localTime,
      end: localTime,
      /** Only for an event held in another zone than the studio's (e.g. online from abroad). */
      timeZone: timeZoneSchema.optional(),
      place: z.union(
        [
          z.literal('studio'),
          z.literal('online'),
          addressSchema.extend({
            name: words("write the place's name, e.g. Laurelhurst Park"),
            country: addressSchema.shape.country.optional(),
          }),
        ],
        says(PLACE_HINT),
      ),
      price: dollarsOr('free', 'use a number of US dollars, e.g. 25, or free'),
      /** e.g. "8 mats; bring your own if you have one". */
      capacity: words('write a line about places, e.g. 8 mats; bring your own').optional(),
      /** Where to book, if not by e-mail. */
      booking: webAddress('https://example.com/book').optional(),
      /** One or two sentences for the list and search results; the description's start if unset. */
      summary: words('write one or two sentences, at most 200 characters')
        .max(200, 'write one or two sentences, at most 200 characters')
        .optional(),
    },
    'an event',
  ).superRefine((event, context) => {
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
  });

const ICON_HINT = `use one of ${ICON_NAMES.join(', ')}`;

const titledText = fields(
  {
    title: words('write a heading, e.g. Mindful Movement'),
    text: words('write a sentence or two, e.g. Every exercise connects breath, focus and control.'),
    icon: z.enum(ICON_NAMES, says(ICON_HINT)).optional(),
  },
  'a block (title, text, icon)',
);

const headline = fields(
  {
    eyebrow: words('write a short line above the heading, e.g. About the studio').optional(),
    title: words("write the page's heading, e.g. Hello, I'm Maya"),
    text: words('write a sentence or two under the heading, e.g. Personal pilates sessions ...'),
  },
  'a heading block (eyebrow, title, text)',
);

const blocks = (example: string) =>
  z.array(
    titledText,
    says(`write a list of blocks, each starting with "- title:", e.g. - title: ${example}`),
  );

export const pageSchema = <Image extends z.ZodType>(image: ImageField<Image>) =>
  z.object({
    title: words("write the page's name for the browser tab, e.g. About"),
    description: words(
      'write a sentence or two about the page for search results, e.g. Meet Maya ...',
    ),
    hero: headline.optional(),
    heroImage: image().optional(),
    heroImageAlt: words(ALT_HINT).optional(),
    features: blocks('Mindful Movement').optional(),
    closing: titledText.optional(),
    values: blocks('Mindful Movement').optional(),
    certifications: lines('CPR and First Aid').optional(),
    continuingEducation: lines('Pilates for Osteoporosis and Bone Health').optional(),
    version: waiverFrontmatterSchema.shape.version.optional(),
    notes: blocks('Your Safety First').optional(),
    follow: titledText.optional(),
    firstVisit: titledText.optional(),
    programs: headline.optional(),
    comingSoon: titledText.optional(),
    upcoming: titledText.optional(),
    list: titledText.optional(),
    subscribe: titledText.optional(),
  });

export type PageFields = keyof z.output<ReturnType<typeof pageSchema<z.ZodString>>>;

/** The blocks each page file must have for its page to be built. */
export const PAGE_NEEDS: Record<string, PageFields[]> = {
  home: ['hero', 'heroImage', 'heroImageAlt', 'features', 'closing'],
  about: ['hero', 'values', 'certifications', 'continuingEducation', 'closing'],
  contact: ['hero', 'follow', 'firstVisit'],
  services: ['hero', 'programs', 'closing'],
  events: ['hero', 'comingSoon', 'upcoming', 'list', 'subscribe', 'closing'],
  // Its version's lines are checked with the waiver's own (src/shared/waiver-versions.ts).
  waiver: ['hero', 'notes'],
  consultation: ['hero', 'notes'],
};

const BLOCKS =
  'write a list of blocks, each starting with "- title:", e.g. - title: Mindful Movement';
const LIST = 'write a list of lines, each starting with "- ", e.g. - CPR and First Aid';

/** What a page's file must have for its page, when it is missing. */
const PAGE_BLOCK: Record<string, string> = {
  hero: "write a heading block, its title and text lines indented under it, e.g. title: Hello, I'm Maya",
  programs:
    'write a heading block, its title and text lines indented under it, e.g. title: Specialized Programs',
  heroImage: IMAGE_HINT,
  heroImageAlt: 'describe the picture for someone who cannot see it, e.g. Illustration of ...',
  certifications: LIST,
  continuingEducation: LIST,
  features: BLOCKS,
  values: BLOCKS,
  notes: BLOCKS,
};
const BLOCK =
  'write a block, its title and text lines indented under it, e.g. title: Your First Visit';

/**
 * The blocks page `id` shows that `data` (its file's lines) lacks, each as the build and the
 * content editor say it (`hero: missing: the page shows it: ...`).
 */
export function missingBlocks(id: string, data: Record<string, unknown>): string[] {
  return (PAGE_NEEDS[id] ?? [])
    .filter((field) => data[field] === undefined)
    .map((field) => `${field}: missing: the page shows it: ${PAGE_BLOCK[field] ?? BLOCK}`);
}

export { availabilitySchema, retentionSchema, sessionHoursSchema, timetableSchema };
