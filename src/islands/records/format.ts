/** Dates and times as the instructor reads them, in her own time zone. */
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat('en-US', { timeStyle: 'short' });

export const when = (iso: string) => dateTime.format(new Date(iso));
export const day = (iso: string) => dateOnly.format(new Date(iso));
export const time = (iso: string) => timeOnly.format(new Date(iso));

/** "1 waiver", "3 waivers". */
export const count = (n: number, noun: string, plural = `${noun}s`) =>
  `${n} ${n === 1 ? noun : plural}`;

/** The browser's time zone, which the desk's date ranges are read in. */
export const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A retention run's tombstone in words: "3 messages taken for spam, 1 signed waiver". */
export const removedWords = (removed: { one: string; many: string; count: number }[] = []) =>
  removed.map((entry) => count(entry.count, entry.one, entry.many)).join(', ');
