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

let cached: { file: string; text: WaiverText } | undefined;

/** The waiver text in force: content/waiver.md, shipped beside the functions. */
export function currentWaiverText(): WaiverText {
  const file = contentPath('waiver.md');
  if (cached?.file === file) return cached.text;
  const source = splitWaiverSource(readFileSync(file, 'utf8'));
  const version = source?.version;
  if (!source || typeof version !== 'string' || !source.text) {
    throw new Error('content/waiver.md needs a `version` in its frontmatter and a body');
  }
  const text = source.text;
  cached = { file, text: { version, text, sha256: sha256(text) } };
  return cached.text;
}
