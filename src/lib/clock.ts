import { Temporal } from 'temporal-polyfill';
import { readSetting } from '../server/platform/settings';

/**
 * "Now" for the build. Which events are still to come is decided when the site is built (and
 * the site is rebuilt daily, see docs), so this is the one place the pages read the time from:
 * the real time, unless `BUILD_NOW` sets it to an instant such as `2026-06-01T12:00:00Z` — for
 * tests, or to look at the site as it will be on a given day. Read once per build, so every
 * page of one build agrees on it.
 */
let now: Temporal.Instant | undefined;

export function buildNow(): Temporal.Instant {
  now ??= readNow(process.env);
  return now;
}

/** `BUILD_NOW` of `env` (read through the settings, which name it when it is wrong), else now. */
export function readNow(env: Record<string, string | undefined>): Temporal.Instant {
  const setting = readSetting('BUILD_NOW', env);
  return setting ? Temporal.Instant.from(setting) : Temporal.Now.instant();
}
