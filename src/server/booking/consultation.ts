/**
 * The consultation's settings as the functions read them at run time: content/consultation.yaml
 * through the same schema the build checked it with, and the studio's zone and address from
 * content/site.yaml. Both files ship beside the functions (included_files in netlify.toml). A file
 * that cannot be read or does not pass is said in full, naming the file and each field.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { availabilitySchema, type Availability } from '../../shared/booking/availability';
import { consultationPlace, type ConsultationPlace } from '../../shared/booking/place';
import { addressSchema, timeZoneSchema } from '../../shared/studio';
import { contentDir, pathIn } from '../platform/paths';

export interface ConsultationSettings {
  availability: Availability;
  timeZone: string;
  place: ConsultationPlace;
}

// Only what the booking needs from site.yaml; the build checks the rest of it.
const studioSchema = z.object({ timeZone: timeZoneSchema, address: addressSchema });

function readYaml<S extends z.ZodType>(dir: string, name: string, schema: S): z.output<S> {
  const file = pathIn(dir, name);
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new Error(`${file} could not be read: ${(cause as Error).message}`, { cause });
  }
  const result = schema.safeParse(data);
  if (!result.success) throw new Error(`${file} is not valid:\n${z.prettifyError(result.error)}`);
  return result.data;
}

/** Reads and checks both files in `dir` (the content folder) every time it is called. */
export function readConsultationSettings(dir: string): ConsultationSettings {
  const availability = readYaml(dir, 'consultation.yaml', availabilitySchema);
  const studio = readYaml(dir, 'site.yaml', studioSchema);
  return {
    availability,
    timeZone: studio.timeZone,
    place: consultationPlace(availability, studio.address),
  };
}

let settings: { dir: string; read: ConsultationSettings } | undefined;

/** The settings of this deploy, read once per instance (content changes only with a deploy). */
export function consultationSettings(): ConsultationSettings {
  const dir = contentDir();
  if (settings?.dir !== dir) settings = { dir, read: readConsultationSettings(dir) };
  return settings.read;
}
