import { existsSync, readFileSync } from 'node:fs';
import type { WaiverStatus } from '../../shared/desk-api';
import { before } from '../../shared/retention';
import {
  coveringVersions,
  WAIVER_VERSIONS_FILE,
  waiverVersionsSchema,
  type WaiverVersions,
} from '../../shared/waiver-versions';
import { pagesDir } from '../platform/built-pages';
import { now } from '../platform/clock';
import { contentPath, pathIn } from '../platform/paths';
import { currentWaiverText } from './current-text';

let cached: { key: string; versions: WaiverVersions } | undefined;

/**
 * The published versions of the waiver text, oldest first: the list the build read from the
 * repository's history of content/waiver.md (`waiver-versions.json`, shipped beside the
 * functions), whose last entry is content/waiver.md as shipped; without a built site (tests, a
 * copy of the files) the version in force alone. A list that does not read, or that ends in
 * another text than content/waiver.md's, is a fault said out loud.
 */
export function waiverVersions(): WaiverVersions {
  const file = pathIn(pagesDir(), WAIVER_VERSIONS_FILE);
  const key = `${contentPath('waiver.md')}|${file}`;
  if (cached?.key === key) return cached.versions;
  const current = currentWaiverText();
  const { version, sha256, changes, validForMonths } = current;
  let versions: WaiverVersions = {
    versions: [{ version, sha256, material: true, ...(changes ? { changes } : {}) }],
  };
  if (existsSync(file)) {
    const parsed = waiverVersionsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`${file} does not read: ${parsed.error.message}`);
    const last = parsed.data.versions.at(-1)!;
    if (last.version !== version || last.sha256 !== sha256) {
      throw new Error(
        `${file} ends with version '${last.version}', not content/waiver.md's '${version}': ship the two from one build`,
      );
    }
    versions = { versions: parsed.data.versions };
  }
  if (validForMonths) versions.validForMonths = validForMonths;
  cached = { key, versions };
  return versions;
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
