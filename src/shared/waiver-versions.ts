/**
 * The versions of the waiver text. The instructor keeps one file, content/waiver.md: its text,
 * and in its frontmatter the text's `version`, whether that version is `material` (everyone who
 * signed an earlier one signs again) and, if she likes, what `changes` in a sentence. She never
 * writes a list of versions or a hash: the build reads every version ever committed from the
 * repository's history of that file (src/integrations/waiver-history.ts), each with its text's
 * SHA-256, and ships the list beside the functions (`waiver-versions.json` in the built site),
 * which read it through the schema below (src/server/waiver/versions.ts).
 */
import { parse } from 'yaml';
import { z } from 'zod';
import { says, words } from './content-fields';

/** The list of versions in the built site, beside the pages the functions read. */
export const WAIVER_VERSIONS_FILE = 'waiver-versions.json';

const SHA256 = /^[0-9a-f]{64}$/;

export const waiverVersionSchema = z.strictObject({
  version: z.string().min(1),
  /** The SHA-256 of the text published under this version. */
  sha256: z.string().regex(SHA256, 'must be the 64 hexadecimal characters of a SHA-256'),
  /** A change that everyone who signed an earlier version must sign again. */
  material: z.boolean(),
  /** What changed, in the instructor's words, for those asked to sign again. */
  changes: z.string().min(1).optional(),
});

export type WaiverVersion = z.output<typeof waiverVersionSchema>;

export const waiverVersionsSchema = z.strictObject({
  /** Optional: a waiver older than this many months shows as expired on the desk. */
  validForMonths: z.int().min(1).optional(),
  /** Oldest first; the last is the version in force. */
  versions: z.array(waiverVersionSchema).min(1),
});

export type WaiverVersions = z.output<typeof waiverVersionsSchema>;

const MATERIAL_HINT =
  'write true if everyone who signed an earlier version must sign again, false for a change ' +
  'that alters nothing they agree to (a typo), e.g. material: true';

/** The lines of content/waiver.md's frontmatter about its version, in the instructor's words. */
export const waiverFrontmatterSchema = z.object({
  version: z.preprocess(
    (value) => (typeof value === 'number' ? String(value) : value),
    words("write the text's version in quotes, e.g. '2026-11'"),
  ),
  material: z.boolean(says(MATERIAL_HINT)),
  changes: words('write what changed in a sentence, e.g. We now also meet in the park.')
    .max(300, 'write what changed in a sentence or two, at most 300 characters')
    .optional(),
  validForMonths: z
    .int(says('write how many months a waiver stays valid, e.g. 12, or leave the line out'))
    .min(1, 'write how many months a waiver stays valid, e.g. 12, or leave the line out')
    .optional(),
});

export type WaiverFrontmatter = z.output<typeof waiverFrontmatterSchema>;

/** content/waiver.md split: its frontmatter, read, and its text, as signed. */
export function splitWaiverSource(
  source: string,
): { frontmatter: Record<string, unknown>; text: string } | undefined {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source.replace(/\r\n?/g, '\n'));
  if (!match) return undefined;
  const frontmatter = parse(match[1]!) as unknown;
  return {
    frontmatter:
      frontmatter && typeof frontmatter === 'object'
        ? (frontmatter as Record<string, unknown>)
        : {},
    text: match[2]!.trim(),
  };
}

/**
 * A state of content/waiver.md, read leniently (an old one may lack `material`: then true): its
 * version's lines and its text, as signed; none when it has no version or no text.
 */
export function waiverLinesOf(
  source: string,
): (Omit<WaiverState, 'sha256'> & { text: string }) | undefined {
  const parts = splitWaiverSource(source);
  const { version, material, changes } = parts?.frontmatter ?? {};
  if (!parts?.text || (typeof version !== 'string' && typeof version !== 'number')) {
    return undefined;
  }
  return {
    version: String(version),
    material: material !== false,
    ...(typeof changes === 'string' && changes.trim() ? { changes: changes.trim() } : {}),
    text: parts.text,
  };
}

/** One committed state of content/waiver.md: its version's lines and its text's SHA-256. */
export interface WaiverState {
  version: string;
  material: boolean;
  changes?: string;
  sha256: string;
}

/**
 * The versions published, oldest first, from every committed state of content/waiver.md
 * (oldest first, the file as it is now last): each version's text is the first one committed
 * under it, its `material` and `changes` the last said. The first version is what everyone
 * signs, material whatever it says. `problem`: what is wrong with the file as it is now, said
 * for the instructor (the text changed under a version already published, or a version used
 * again), then the versions are those before it.
 */
export function versionsFromHistory(states: WaiverState[]): {
  versions: WaiverVersion[];
  problem?: string;
} {
  const versions: WaiverVersion[] = [];
  const byLabel = new Map<string, WaiverVersion>();
  let problem: string | undefined;
  states.forEach((state, index) => {
    const last = index === states.length - 1;
    const known = byLabel.get(state.version);
    if (known && known !== versions.at(-1)) {
      if (last) {
        problem =
          `version '${state.version}' was used for an earlier text, before ` +
          `'${versions.at(-1)!.version}': give this text a new version, e.g. '${nextLabel(versions)}'`;
      }
      return;
    }
    if (known && known.sha256 !== state.sha256) {
      if (last) {
        problem =
          `the text below has changed since version '${state.version}' was published, and a ` +
          `signed text never changes under its version: give it a new version, e.g. ` +
          `'${nextLabel(versions)}', and say whether the change is material (material: true or false)`;
      }
      return;
    }
    const entry: WaiverVersion = known ?? {
      version: state.version,
      sha256: state.sha256,
      material: true,
    };
    entry.material = versions.length === 0 || entry === versions[0] ? true : state.material;
    if (state.changes) entry.changes = state.changes;
    else delete entry.changes;
    if (!known) {
      byLabel.set(state.version, entry);
      versions.push(entry);
    }
  });
  return problem ? { versions, problem } : { versions };
}

/** A label to suggest after the last: the next month of a `YYYY-MM` label, else `<label>-2`. */
function nextLabel(versions: WaiverVersion[]): string {
  const last = versions.at(-1)?.version ?? '';
  const month = /^(\d{4})-(\d{2})$/.exec(last);
  if (!month) return `${last}-2`;
  const [year, number] = [Number(month[1]), Number(month[2])];
  return number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
}

/** The entries that count for a participant: the latest material version and every one after. */
export function coveringVersions(versions: WaiverVersions): WaiverVersion[] {
  let from = 0;
  versions.versions.forEach((entry, index) => {
    if (entry.material) from = index;
  });
  return versions.versions.slice(from);
}
