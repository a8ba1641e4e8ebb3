import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { contentPath } from './paths';

/** What the functions need to know of the studio: its name, its e-mail address, its instructor. */
export interface SiteFacts {
  name: string;
  email: string;
  instructor: string;
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
    const data = parse(source) as Partial<SiteFacts>;
    if (typeof data?.name !== 'string' || typeof data.email !== 'string') {
      throw new Error('content/site.yaml needs a name and an email');
    }
    const instructor = typeof data.instructor === 'string' ? data.instructor : data.name;
    facts = { name: data.name, email: data.email, instructor };
  }
  return facts;
}
