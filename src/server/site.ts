import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * The functions read the studio's facts from the same files the pages are built from
 * (`content/`, shipped beside the functions through `included_files` in netlify.toml),
 * so the e-mail on the site and the inbox the messages go to can never disagree.
 */
export function contentDir(): string {
  return process.env.CONTENT_DIR ?? resolve(process.cwd(), 'content');
}

export interface SiteFacts {
  name: string;
  email: string;
}

let facts: SiteFacts | undefined;

export function siteFacts(): SiteFacts {
  if (!facts) {
    const data = parse(
      readFileSync(resolve(contentDir(), 'site.yaml'), 'utf8'),
    ) as Partial<SiteFacts>;
    if (typeof data?.name !== 'string' || typeof data.email !== 'string') {
      throw new Error('content/site.yaml needs a name and an email');
    }
    facts = { name: data.name, email: data.email };
  }
  return facts;
}
