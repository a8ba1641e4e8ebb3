/**
 * What the content editor at /admin edits: every file and folder of content/ the build checks,
 * each with the schema it is checked with (src/lib/content-schemas.ts). The editor's fields, and
 * its checks, are made from these schemas (config.ts, checks.ts): a new collection is one entry
 * here, and a test fails while a file or folder the build checks has none.
 */
import { z } from 'zod';
import {
  availabilitySchema,
  eventSchemaIn,
  IMAGE_HINT,
  PAGE_NEEDS,
  pageSchema,
  programSchema,
  retentionSchema,
  serviceSchema,
  sessionHoursSchema,
  sessionSchema,
  siteSchema,
  testimonialSchema,
  timetableSchema,
} from '../lib/content-schemas';
import { says } from '../shared/content-fields';
import { waiverFrontmatterSchema } from '../shared/waiver-versions';

/** A picture beside the file (Astro's `image()` at build): the editor's image field. */
export const imageField = () => z.string(says(IMAGE_HINT)).meta({ editor: 'image' });

interface Common {
  /** Decap's name for it, in its addresses (`/admin#/collections/sessions`). */
  name: string;
  /** Her words for it, on the editor's first screen. */
  label: string;
  /** The line her list names each file by. */
  identifier?: string;
  /** The words above the file's Markdown text (below its lines), when it has one. */
  body?: string;
}

/** A folder of Markdown files, one card each (content/sessions/*.md). */
export interface FolderCollection extends Common {
  folder: string;
  /** One of them, in her words (the editor's "New Testimonial"). */
  singular: string;
  schema: z.ZodType;
  /** Where a picture uploaded for a file goes: beside it (the build reads it from there). */
  images?: boolean;
}

/** A single file: a YAML file (content/site.yaml) or a page's Markdown (content/home.md). */
export interface EditorFile {
  name: string;
  label: string;
  file: string;
  schema: z.ZodType;
  body?: string;
  /** Lines the file's page cannot do without, though the schema lets them out (PAGE_NEEDS). */
  needs?: readonly string[];
}

export interface FilesCollection extends Common {
  files: EditorFile[];
}

export type EditorCollection = FolderCollection | FilesCollection;

/** The names retention.yaml may hold (the retention rules', given by the build). */
export interface EditorContext {
  retentionKinds: readonly string[];
  /** The studio's time zone (site.yaml's), which events are checked in. */
  timeZone: string | undefined;
}

const PAGE_LABELS: Record<keyof typeof PAGE_NEEDS, string> = {
  home: 'Home',
  about: 'About',
  services: 'Services',
  events: 'Events',
  contact: 'Contact',
  consultation: 'Free consultation',
  waiver: 'Waiver',
};

/** A page's lines: its title and description, and the blocks its page shows. */
function pageFile(id: keyof typeof PAGE_NEEDS): EditorFile {
  const all = pageSchema(imageField);
  const shown = ['title', 'description', ...PAGE_NEEDS[id]!] as const;
  let schema: z.ZodType = all.pick(
    Object.fromEntries(shown.map((key) => [key, true])) as {
      [Key in keyof typeof all.shape]?: true;
    },
  );
  if (id === 'waiver') schema = (schema as z.ZodObject).extend(waiverFrontmatterSchema.shape);
  return {
    name: id,
    label: PAGE_LABELS[id],
    file: `content/${id}.md`,
    schema,
    needs: PAGE_NEEDS[id],
    ...(id === 'about' ? { body: 'Your story' } : {}),
    ...(id === 'waiver' ? { body: 'The waiver text (## headings and paragraphs)' } : {}),
  };
}

/** The retention file's lines: one keeping time per kind of record the rules know. */
function retentionFile(kinds: readonly string[]): z.ZodType {
  const period = retentionSchema.valueType;
  return z.object(Object.fromEntries(kinds.map((kind) => [kind, period.optional()])));
}

export function editorCollections({ retentionKinds, timeZone }: EditorContext): EditorCollection[] {
  return [
    {
      name: 'studio',
      label: 'Studio, hours and policies',
      files: [
        {
          name: 'site',
          label: 'Studio facts and opening hours',
          file: 'content/site.yaml',
          schema: siteSchema,
        },
        {
          name: 'booking',
          label: 'Session hours and cancellation policy',
          file: 'content/booking.yaml',
          schema: sessionHoursSchema,
        },
        {
          name: 'classes',
          label: 'Classes and timetable',
          file: 'content/classes.yaml',
          schema: timetableSchema,
        },
        {
          name: 'consultation',
          label: 'Free consultation hours',
          file: 'content/consultation.yaml',
          schema: availabilitySchema,
        },
        {
          name: 'retention',
          label: 'How long records are kept',
          file: 'content/retention.yaml',
          schema: retentionFile(retentionKinds),
        },
      ],
    },
    {
      name: 'sessions',
      singular: 'Session',
      label: 'Sessions (Home cards)',
      folder: 'content/sessions',
      schema: sessionSchema,
      identifier: 'title',
      body: 'Description',
    },
    {
      name: 'services',
      singular: 'Service',
      label: 'Services',
      folder: 'content/services',
      schema: serviceSchema,
      identifier: 'title',
      body: 'Description',
    },
    {
      name: 'programs',
      singular: 'Program',
      label: 'Programs',
      folder: 'content/programs',
      schema: programSchema(imageField),
      identifier: 'title',
      images: true,
    },
    {
      name: 'testimonials',
      singular: 'Testimonial',
      label: 'Testimonials',
      folder: 'content/testimonials',
      schema: testimonialSchema(imageField),
      images: true,
      identifier: 'name',
      body: 'What they said',
    },
    {
      name: 'events',
      singular: 'Event',
      label: 'Events',
      folder: 'content/events',
      schema: eventSchemaIn(() => timeZone),
      identifier: 'title',
      body: 'Description',
    },
    {
      name: 'pages',
      label: 'Pages',
      files: (Object.keys(PAGE_LABELS) as (keyof typeof PAGE_NEEDS)[]).map(pageFile),
    },
  ];
}
