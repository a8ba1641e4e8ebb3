import { resolve } from 'node:path';
import { readSetting } from './settings';

/**
 * The functions read the studio's facts and the waiver text from the same files the pages are
 * built from (`content/`, shipped beside the functions through `included_files` in
 * netlify.toml), so the site and the mail can never disagree.
 */
export function contentDir(): string {
  return readSetting('CONTENT_DIR') ?? projectPath('content');
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
