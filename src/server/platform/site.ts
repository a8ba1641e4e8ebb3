import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * The functions read the studio's facts from the same files the pages are built from
 * (`content/`, shipped beside the functions through `included_files` in netlify.toml),
 * so the e-mail on the site and the inbox the messages go to can never disagree.
 */
export function contentDir(): string {
  return process.env.CONTENT_DIR ?? projectPath('content');
}

/** A file in the content folder, e.g. `contentPath('waiver.md')`. */
export function contentPath(name: string): string {
  return pathIn(contentDir(), name);
}

/** A path inside the folder the server runs in (the project root locally). */
export function projectPath(relative: string): string {
  return pathIn(process.cwd(), relative);
}

/**
 * `resolve()` that the function bundler cannot read. Its tracer (nft) turns a `resolve()` call
 * with a literal or `process.cwd()` argument into a glob and copies every match into the
 * bundle: the local outbox's mail, and files of its own previous build, which it then fails to
 * copy (ENOENT on every other `npm start`). Called with parameters only, it traces nothing;
 * the files the functions read ship through `included_files` in netlify.toml.
 */
export function pathIn(base: string, relative: string): string {
  return resolve(base, relative);
}

export interface SiteFacts {
  name: string;
  email: string;
}

let facts: SiteFacts | undefined;

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
    facts = { name: data.name, email: data.email };
  }
  return facts;
}

/**
 * Whether this code runs as a deployed function on Netlify (or any Lambda), where the disk is
 * read-only and nothing made up locally (a key, a mail folder) would survive. Netlify's local
 * tools run functions as Lambdas too, but say they are local (NETLIFY_LOCAL, CONTEXT).
 */
export function isHostedFunction(): boolean {
  const { AWS_LAMBDA_FUNCTION_NAME, LAMBDA_TASK_ROOT, NETLIFY_LOCAL, CONTEXT } = process.env;
  const lambda = Boolean(AWS_LAMBDA_FUNCTION_NAME || LAMBDA_TASK_ROOT);
  return lambda && NETLIFY_LOCAL !== 'true' && CONTEXT !== 'dev';
}

/**
 * A setting a deployed function cannot do without: the one clear line in the log that names it
 * (once per instance), and an error whose `code` names it too, so the outbox records it.
 */
export class MissingSettingError extends Error {
  readonly code: string;
  readonly setting: string;
  constructor(setting: string, purpose: string) {
    super(`${setting} is not set: ${purpose}`);
    this.name = 'MissingSettingError';
    this.setting = setting;
    this.code = `${setting} not set`;
  }
}

const reported = new Set<string>();

export function missingSetting(setting: string, purpose: string): MissingSettingError {
  const error = new MissingSettingError(setting, purpose);
  if (!reported.has(setting)) {
    reported.add(setting);
    console.error(`Configuration: ${error.message}. Set it in the site's environment variables.`);
  }
  return error;
}

/** A numeric setting (a timeout, a limit): its value when it is a positive number, else `fallback`. */
export function positiveSetting(value: string | undefined, fallback: number): number {
  const number = Number(value);
  return Number.isFinite(number) && number > 0 ? number : fallback;
}
