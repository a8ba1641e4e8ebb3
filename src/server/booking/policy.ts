/**
 * The sessions booked on the site one person at a time, as the functions read them at run time:
 * content/booking.yaml (her session hours, notice, horizon, buffer and the cancellation policy)
 * and each content/sessions/*.md whose frontmatter sets `where` (its length, price, place, and
 * for a session at the visitor's address the ZIP codes she travels to and the travel time), through
 * the schemas the build checked them with (src/shared/booking/session-hours.ts). The files ship
 * beside the functions (included_files in netlify.toml). A file that cannot be read or does not
 * pass is said in full, naming the file and each field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { Availability } from '../../shared/booking/availability';
import {
  sessionAvailability,
  sessionHoursSchema,
  sessionTypeSchema,
  zipOf,
  type SessionHours,
} from '../../shared/booking/session-hours';
import { addressSchema, formatAddress, timeZoneSchema } from '../../shared/studio';
import { contentDir, pathIn } from '../platform/paths';

/** A session a visitor books by time: `private`, `in-home` (its file's name). */
export interface SessionType {
  id: string;
  title: string;
  /** US dollars, from content only: what the booking stores as due. */
  price: number;
  lengthMinutes: number;
  where: 'studio' | 'home';
  /** The ZIP codes she travels to (where: home); empty at the studio. */
  areas: string[];
  /** Kept free before and after (where: home); 0 at the studio. */
  travelMinutes: number;
  /** The engine's availability for this session: her session hours and its length. */
  availability: Availability;
}

export interface SessionPolicy {
  hours: SessionHours;
  timeZone: string;
  /** The studio's address on one line, where `where: studio` sessions happen. */
  studioAddress: string;
  /** Every session type booked by time, in the order of their cards. */
  types: SessionType[];
}

// Only what the booking needs from site.yaml; the build checks the rest of it.
const studioSchema = z.object({ timeZone: timeZoneSchema, address: addressSchema });

function checked<S extends z.ZodType>(file: string, data: unknown, schema: S): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw new Error(`${file} is not valid:\n${z.prettifyError(result.error)}`);
  return result.data;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new Error(`${file} could not be read: ${(cause as Error).message}`, { cause });
  }
}

function readYaml<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  let data: unknown;
  try {
    data = parse(readText(file));
  } catch (cause) {
    throw new Error(`${file} could not be read: ${(cause as Error).message}`, { cause });
  }
  return checked(file, data, schema);
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/;

/** Reads and checks booking.yaml, site.yaml and the sessions in `dir` (the content folder). */
export function readSessionPolicy(dir: string): SessionPolicy {
  const hours = readYaml(pathIn(dir, 'booking.yaml'), sessionHoursSchema);
  const studio = readYaml(pathIn(dir, 'site.yaml'), studioSchema);
  const folder = pathIn(dir, 'sessions');
  const types: (SessionType & { order: number })[] = [];
  for (const name of readdirSync(folder).sort()) {
    if (!name.endsWith('.md') || name.startsWith('_')) continue;
    const file = pathIn(folder, name);
    const match = FRONTMATTER.exec(readText(file));
    const frontmatter = (match ? parse(match[1]) : {}) as Record<string, unknown> | null;
    if (!frontmatter?.where) continue;
    const session = checked(file, frontmatter, sessionTypeSchema);
    const order = typeof frontmatter.order === 'number' ? frontmatter.order : 0;
    const where = session.where!;
    types.push({
      id: name.slice(0, -'.md'.length),
      title: session.title,
      price: session.price,
      lengthMinutes: session.lengthMinutes,
      where,
      areas: where === 'home' ? (session.areas ?? []) : [],
      travelMinutes: where === 'home' ? session.travelMinutes : 0,
      availability: sessionAvailability(hours, session.lengthMinutes),
      order,
    });
  }
  types.sort((a, b) => a.order - b.order);
  return {
    hours,
    timeZone: studio.timeZone,
    studioAddress: formatAddress(studio.address),
    types: types.map(({ order: _order, ...type }) => type),
  };
}

let policy: { dir: string; read: SessionPolicy } | undefined;

/** The policy of this deploy, read once per instance (content changes only with a deploy). */
export function sessionPolicy(): SessionPolicy {
  const dir = contentDir();
  if (policy?.dir !== dir) policy = { dir, read: readSessionPolicy(dir) };
  return policy.read;
}

/** The session type named `id` (`private`), or none: an unknown type books nothing. */
export function sessionType(id: unknown, from: SessionPolicy = sessionPolicy()) {
  return typeof id === 'string' ? from.types.find((type) => type.id === id) : undefined;
}

/** Whether `zip` (as the visitor typed it) is one of the areas `type` serves. */
export function servesArea(type: SessionType, zip: string): boolean {
  const five = zipOf(zip);
  return type.where !== 'home' || (five !== undefined && type.areas.includes(five));
}

const HOUR = 3_600_000;

/**
 * Whether a session starting at `start` may still be cancelled or moved by the visitor at `at`:
 * up to `cancelOrMoveHoursBefore` hours of real time before it (the days clocks change count
 * their 23 or 25 hours as they are).
 */
export function withinPolicy(start: Date, at: Date, hours: SessionHours): boolean {
  return start.getTime() - at.getTime() >= hours.cancelOrMoveHoursBefore * HOUR;
}
