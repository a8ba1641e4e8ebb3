/**
 * The classes' settings as the functions read them at run time: content/classes.yaml through the
 * schema the build checked it with, the price of content/sessions/small-group.md for a class
 * without one of its own, and the studio's zone from content/site.yaml. The files ship beside the
 * functions (included_files in netlify.toml).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { timetableSchema, type Timetable } from '../../shared/classes/timetable';
import { dollars } from '../../shared/content-fields';
import { timeZoneSchema } from '../../shared/studio';
import { contentDir, pathIn } from '../platform/paths';

export interface ClassSettings {
  timetable: Timetable;
  /** The price of a class without one of its own: small-group.md's, in cents. */
  defaultPriceCents: number;
  timeZone: string;
}

function read<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
  let data: unknown;
  try {
    data = parse(text);
  } catch (cause) {
    throw new Error(`${file} could not be read: ${(cause as Error).message}`, { cause });
  }
  const result = schema.safeParse(data);
  if (!result.success) throw new Error(`${file} is not valid:\n${z.prettifyError(result.error)}`);
  return result.data;
}

const frontmatter = (text: string) => /^\uFEFF?---\r?\n([\s\S]*?\r?\n)---/.exec(text)?.[1] ?? '';

/** Dollars as whole cents (45 → 4500, 42.5 → 4250). */
export const centsOf = (dollars: number) => Math.round(dollars * 100);

/** Reads and checks the files in `dir` (the content folder) every time it is called. */
export function readClassSettings(dir: string): ClassSettings {
  const file = (name: string) => pathIn(dir, name);
  const timetable = read(
    file('classes.yaml'),
    readFileSync(file('classes.yaml'), 'utf8'),
    timetableSchema,
  );
  const { price } = read(
    file('sessions/small-group.md'),
    frontmatter(readFileSync(file('sessions/small-group.md'), 'utf8')),
    z.object({ price: dollars('use a number of US dollars, e.g. 45') }),
  );
  const { timeZone } = read(
    file('site.yaml'),
    readFileSync(file('site.yaml'), 'utf8'),
    z.object({ timeZone: timeZoneSchema }),
  );
  return { timetable, defaultPriceCents: centsOf(price), timeZone };
}

let settings: { dir: string; read: ClassSettings } | undefined;

/** The settings of this deploy, read once per instance (content changes only with a deploy). */
export function classSettings(): ClassSettings {
  const dir = contentDir();
  if (settings?.dir !== dir) settings = { dir, read: readClassSettings(dir) };
  return settings.read;
}
