/**
 * The schemas of src/lib/content-schemas.ts that read another file of content/ as the build
 * runs: the events', checked in the studio's time zone from content/site.yaml. Build and server
 * only (node:fs); the content editor, in the browser, is given the zone instead.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { eventSchemaIn } from './content-schemas';
import { isTimeZone } from '../shared/studio';

/**
 * The studio's time zone, read from content/site.yaml for the events' schema, which checks
 * each event's times in it (the site's own schema reports a missing or unknown zone itself).
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

export const eventSchema = eventSchemaIn(studioTimeZone);
