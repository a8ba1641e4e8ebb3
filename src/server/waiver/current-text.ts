import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { splitWaiverSource } from '../../shared/waiver-versions';
import { contentPath } from '../platform/paths';

export interface WaiverText {
  version: string;
  /** The body of content/waiver.md, exactly as signed and hashed. */
  text: string;
  sha256: string;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * The text a waiver.md source holds: its frontmatter's version, its body exactly as signed, and
 * the body's SHA-256. Throws, naming the file, when either is missing.
 */
export function waiverTextOf(source: string): WaiverText {
  const parts = splitWaiverSource(source);
  const version = parts?.version;
  if (!parts || typeof version !== 'string' || !parts.text) {
    throw new Error('content/waiver.md needs a `version` in its frontmatter and a body');
  }
  return { version, text: parts.text, sha256: sha256(parts.text) };
}

let cached: { file: string; text: WaiverText } | undefined;

/** The waiver text in force: content/waiver.md, shipped beside the functions. */
export function currentWaiverText(): WaiverText {
  const file = contentPath('waiver.md');
  if (cached?.file === file) return cached.text;
  cached = { file, text: waiverTextOf(readFileSync(file, 'utf8')) };
  return cached.text;
}
