/**
 * The studio's clock: the one "now" of everything scheduled (mail due, reminders, retention,
 * sessions, rate-limit windows), in JavaScript (`now()`) and in SQL (`sqlNow()`).
 *
 * In production it is the real time: `now()` is `Date.now()` and `sqlNow()` is Postgres's own
 * `now()`, so the function's clock and the database's never have to agree to the millisecond.
 * A test moves both together (`setClock`): the SQL becomes `now()` plus the same offset, so a
 * row the database stamped a moment ago and a reminder due "tomorrow" keep their order when the
 * test jumps a day ahead. Time keeps flowing from there, as it does in production: nothing waits.
 *
 * Columns that default to `now()` in the migrations are stamped with the database's real time;
 * code whose timing a test may move (anything compared with `sqlNow()`) stamps with `sqlNow()`.
 */

let offsetMs = 0;

/** The present moment. */
export function now(): Date {
  return new Date(Date.now() + offsetMs);
}

/** The present moment in SQL, e.g. `created_at > ${sqlNow()} - interval '7 days'`. */
export function sqlNow(): string {
  // A whole number the code computed itself, never a visitor's value.
  return offsetMs === 0 ? 'now()' : `(now() + interval '${Math.trunc(offsetMs)} milliseconds')`;
}

/**
 * Tests only: from here on the clock reads `at` (and runs on from it); `undefined` puts it back
 * to the real time.
 */
export function setClock(at: Date | undefined): void {
  offsetMs = at ? at.getTime() - Date.now() : 0;
}

/** Tests only: moves the clock on by `ms` (a day: `advanceClock(24 * 3_600_000)`). */
export function advanceClock(ms: number): void {
  offsetMs += ms;
}
