/**
 * Every published version of the waiver text: content/waiver-versions.yaml, one entry per
 * version (oldest first) with the SHA-256 of its text and whether it is a material change, which
 * everyone who signed an earlier version must re-sign. The build checks the file with this schema
 * and holds content/waiver.md to it (src/content.config.ts); the functions read it at run time
 * through the same one (src/server/waiver/versions.ts).
 */
import { parse } from 'yaml';
import { z } from 'zod';

const SHA256 = /^[0-9a-f]{64}$/;

export const waiverVersionSchema = z.strictObject({
  version: z.string().min(1),
  sha256: z.string().regex(SHA256, 'must be the 64 hexadecimal characters of a SHA-256'),
  /** A change that everyone who signed an earlier version must sign again. */
  material: z.boolean(),
  /**
   * Optional: what changed, in the studio's words, shown above the waiver form to those its
   * re-sign link is for.
   */
  changes: z.string().trim().min(1).max(1000).optional(),
});

export type WaiverVersion = z.output<typeof waiverVersionSchema>;

export const waiverVersionsSchema = z
  .strictObject({
    /** Optional: a waiver older than this many months shows as expired on the desk. */
    validForMonths: z.int().min(1).optional(),
    versions: z.array(waiverVersionSchema).min(1),
  })
  .superRefine((file, context) => {
    const seen = new Set<string>();
    file.versions.forEach((entry, index) => {
      if (seen.has(entry.version)) {
        context.addIssue({
          code: 'custom',
          path: ['versions', index, 'version'],
          message: `version '${entry.version}' is listed twice: give each version its own label`,
        });
      }
      seen.add(entry.version);
    });
    if (file.versions[0] && !file.versions[0].material) {
      context.addIssue({
        code: 'custom',
        path: ['versions', 0, 'material'],
        message: 'the first version is what everyone signs: mark it material: true',
      });
    }
  });

export type WaiverVersions = z.output<typeof waiverVersionsSchema>;

/** content/waiver.md split: its `version` (from the frontmatter) and its text, as signed. */
export function splitWaiverSource(source: string): { version: unknown; text: string } | undefined {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source.replace(/\r\n?/g, '\n'));
  if (!match) return undefined;
  const frontmatter = parse(match[1]!) as { version?: unknown } | null;
  return { version: frontmatter?.version, text: match[2]!.trim() };
}

/**
 * What is wrong between content/waiver.md (its version and its text's SHA-256) and the list of
 * versions, in words that say what to do; empty when they agree.
 */
export function versionProblems(
  versions: WaiverVersions,
  current: { version: string; sha256: string },
): string[] {
  const entry = versions.versions.find((each) => each.version === current.version);
  const add =
    `add it at the end of content/waiver-versions.yaml as "- version: '<new label>'", ` +
    `"sha256: ${current.sha256}" and "material: true" if everyone must sign it again, or ` +
    `"material: false" for a change that does not alter what they agree to (a typo)`;
  if (!entry) {
    return [
      `content/waiver.md has version '${current.version}', which content/waiver-versions.yaml ` +
        `does not list: if this is a new version, ${add.replace('<new label>', current.version)}`,
    ];
  }
  if (entry.sha256 !== current.sha256) {
    return [
      `content/waiver.md: its text has changed since version '${current.version}' was published ` +
        `(the text's SHA-256 is now ${current.sha256}). A signed text never changes under its ` +
        `version: set a new \`version\` in content/waiver.md's frontmatter, then ${add}. ` +
        `(To undo the change instead, put the text back as it was.)`,
    ];
  }
  if (versions.versions.at(-1)!.version !== current.version) {
    return [
      `content/waiver.md has version '${current.version}', but content/waiver-versions.yaml lists ` +
        `'${versions.versions.at(-1)!.version}' after it: the version in force is the last one listed`,
    ];
  }
  return [];
}

/** The entries that count for a participant: the latest material version and every one after. */
export function coveringVersions(versions: WaiverVersions): WaiverVersion[] {
  let from = 0;
  versions.versions.forEach((entry, index) => {
    if (entry.material) from = index;
  });
  return versions.versions.slice(from);
}
