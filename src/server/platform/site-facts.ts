import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { addressSchema, formatAddress, timeZoneSchema } from '../../shared/studio';
import { contentPath } from './paths';

/**
 * What the functions need to know of the studio: its name, its e-mail address, its instructor,
 * its clock (the IANA zone every time people read is in) and its postal address on one line (the
 * footer of every mail; `undefined` when content/site.yaml has none, which the build refuses).
 */
export interface SiteFacts {
  name: string;
  email: string;
  instructor: string;
  timeZone: string;
  address: string | undefined;
  /** The studio's city and state, "Portland, OR": where the in-home sessions' ZIP codes are. */
  city: string | undefined;
}

let facts: SiteFacts | undefined;

/** The studio's name and e-mail from content/site.yaml, read once. */
export function siteFacts(): SiteFacts {
  if (!facts) {
    const file = contentPath('site.yaml');
    let source: string;
    try {
      source = readFileSync(file, 'utf8');
    } catch (cause) {
      // Said in full, once, in the log; its code names it wherever it is recorded (the outbox).
      const error = new Error(
        `${file} could not be read: set CONTENT_DIR, or ship it with the functions (included_files in netlify.toml)`,
        { cause },
      );
      console.error(error.message);
      throw Object.assign(error, { code: 'site.yaml unreadable' });
    }
    const data = parse(source) as Partial<Record<keyof SiteFacts, unknown>>;
    if (typeof data?.name !== 'string' || typeof data.email !== 'string') {
      throw new Error('content/site.yaml needs a name and an email');
    }
    const instructor = typeof data.instructor === 'string' ? data.instructor : data.name;
    const zone = timeZoneSchema.safeParse(data.timeZone);
    if (!zone.success) {
      throw new Error(`${file}: timeZone: use an IANA time zone name, e.g. America/Los_Angeles`);
    }
    const address = addressSchema.safeParse(data.address);
    facts = {
      name: data.name,
      email: data.email,
      instructor,
      timeZone: zone.data,
      address: address.success ? formatAddress(address.data) : undefined,
      city: address.success ? `${address.data.locality}, ${address.data.region}` : undefined,
    };
  }
  return facts;
}
