import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { splitWaiverSource, waiverFrontmatterSchema } from '../../shared/waiver-versions';
import { contentPath } from '../platform/paths';

export interface WaiverText {
  version: string;
  /** The body of content/waiver.md, exactly as signed and hashed. */
  text: string;
  sha256: string;
}

/** The text in force, with its version's lines from content/waiver.md's frontmatter. */
export interface CurrentWaiverText extends WaiverText {
  /** Whether this version asks everyone who signed an earlier one to sign again. */
  material: boolean;
  /** What changed, in the instructor's words. */
  changes?: string;
  /** Optional: a waiver older than this many months shows as expired on the desk. */
  validForMonths?: number;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * The text a waiver.md source holds: its frontmatter's version (with whether it is material and
 * what changed), its body exactly as signed, and the body's SHA-256. Throws, naming the file,
 * when the frontmatter or the body does not read. (The build has already said so, line by line,
 * in the instructor's words: src/integrations/content-check.ts.)
 */
export function waiverTextOf(source: string): CurrentWaiverText {
  const parts = splitWaiverSource(source);
  const frontmatter = parts && waiverFrontmatterSchema.safeParse(parts.frontmatter);
  if (!parts?.text || !frontmatter?.success) {
    throw new Error(
      'content/waiver.md needs a `version` and `material` in its frontmatter, and a body',
    );
  }
  const { version, material, changes, validForMonths } = frontmatter.data;
  return {
    version,
    text: parts.text,
    sha256: sha256(parts.text),
    material,
    ...(changes ? { changes } : {}),
    ...(validForMonths ? { validForMonths } : {}),
  };
}

let cached: { file: string; text: CurrentWaiverText } | undefined;

/** The waiver text in force: content/waiver.md, shipped beside the functions. */
export function currentWaiverText(): CurrentWaiverText {
  const file = contentPath('waiver.md');
  if (cached?.file === file) return cached.text;
  cached = { file, text: waiverTextOf(readFileSync(file, 'utf8')) };
  return cached.text;
}
