import { Temporal } from 'temporal-polyfill';

/**
 * "Now" for the build. Which events are still to come is decided when the site is built (and
 * the site is rebuilt daily, see docs), so this is the one place the pages read the time from:
 * the real time, unless `BUILD_NOW` sets it to an instant such as `2026-06-01T12:00:00Z` — for
 * tests, or to look at the site as it will be on a given day. Read once per build, so every
 * page of one build agrees on it.
 */
let now: Temporal.Instant | undefined;

export function buildNow(): Temporal.Instant {
  now ??= readNow(process.env.BUILD_NOW);
  return now;
}

export function readNow(setting: string | undefined): Temporal.Instant {
  if (!setting?.trim()) return Temporal.Now.instant();
  try {
    return Temporal.Instant.from(setting.trim());
  } catch {
    throw new Error(
      `BUILD_NOW is "${setting}": set it to an instant with its offset, e.g. 2026-06-01T12:00:00Z, or leave it unset for the real time`,
    );
  }
}
