import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { WaiverStatus } from '../../shared/desk-api';
import { before } from '../../shared/retention';
import {
  coveringVersions,
  waiverVersionsSchema,
  type WaiverVersions,
} from '../../shared/waiver-versions';
import { now } from '../platform/clock';
import { contentPath } from '../platform/paths';

let cached: { file: string; versions: WaiverVersions } | undefined;

/**
 * The published versions of the waiver text: content/waiver-versions.yaml, shipped beside the
 * functions and checked by the build against content/waiver.md. A file that does not read is a
 * fault said out loud, never an empty list.
 */
export function waiverVersions(): WaiverVersions {
  const file = contentPath('waiver-versions.yaml');
  if (cached?.file === file) return cached.versions;
  const parsed = waiverVersionsSchema.safeParse(parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    throw new Error(`content/waiver-versions.yaml does not read: ${parsed.error.message}`);
  }
  cached = { file, versions: parsed.data };
  return parsed.data;
}

/** The SHA-256s of the texts a participant is covered by: the latest material version and on. */
export function coveringHashes(): Set<string> {
  return new Set(coveringVersions(waiverVersions()).map((entry) => entry.sha256));
}

/**
 * The status a participant's latest waiver gives them (`undefined`: none on file): covered when
 * its text is the version in force or a later non-material one (by SHA-256, so a text edited
 * under an old label never counts), expired past the optional `validForMonths`, else older.
 */
export function statusOf(latest: { createdAt: Date; sha256: string } | undefined): WaiverStatus {
  if (!latest) return 'none';
  const { validForMonths } = waiverVersions();
  if (
    validForMonths &&
    latest.createdAt < before(now(), { count: validForMonths, unit: 'month' })
  ) {
    return 'expired';
  }
  return coveringHashes().has(latest.sha256) ? 'covered' : 'older';
}

/** The version in force: the last one published. */
export const versionInForce = () => waiverVersions().versions.at(-1)!;
