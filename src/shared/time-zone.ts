/**
 * Whether a name is a time zone this runtime knows. Its own module, without zod, because the
 * calendar reader's worker (src/server/booking/busy-worker.ts) loads it as it is.
 */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    // Intl also takes offsets ("+02:00") and abbreviations ("PST"), which follow no clock changes.
    return name.includes('/') || name === 'UTC';
  } catch {
    return false;
  }
}
