/**
 * Each booking and payment table has one owner, the folder whose store writes its SQL: the desk,
 * erasure, retention and restore ask the owner (src/server/bookings/kinds.ts and the owners'
 * stores) and never name the table themselves. A table's name anywhere else in the site's code
 * (code or comment) fails here; the migrations and the tests, which set up and read rows
 * directly, are outside the rule.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

const OWNERS: Record<string, string> = {
  consultation_bookings: 'src/server/booking/',
  consultation_blocks: 'src/server/booking/',
  consultation_busy_feed: 'src/server/booking/',
  consultation_feed_tokens: 'src/server/booking/',
  session_bookings: 'src/server/booking/',
  held_time: 'src/server/booking/',
  class_dates: 'src/server/classes/',
  class_places: 'src/server/classes/',
  class_waitlist: 'src/server/classes/',
  payments: 'src/server/payments/',
  payment_refunds: 'src/server/payments/',
  stripe_events: 'src/server/payments/',
};

/** Where a table is named: anywhere for a name no prose uses; after SQL's words for `payments`. */
const named = (table: string) =>
  table.includes('_')
    ? new RegExp(`\\b${table}\\b`)
    : new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|REFERENCES)\\s+${table}\\b`);

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx|astro|mjs|js)$/.test(entry.name)) yield path;
  }
}

const files = ['src', 'functions', 'scripts'].flatMap((dir) =>
  [...sourceFiles(join(ROOT, dir))].map((path) => ({
    path: relative(ROOT, path),
    text: readFileSync(path, 'utf8'),
  })),
);

const migrations = readdirSync(join(ROOT, 'netlify', 'database', 'migrations'))
  .map((name) => readFileSync(join(ROOT, 'netlify', 'database', 'migrations', name), 'utf8'))
  .join('\n');

describe('each booking and payment table is named only by its owner', () => {
  for (const [table, owner] of Object.entries(OWNERS)) {
    it(`${table}: only under ${owner}`, () => {
      // The table is the migrations' (a rename would leave this test checking nothing)...
      expect(migrations).toMatch(new RegExp(`\\b${table}\\b`));
      const naming = files.filter((file) => named(table).test(file.text)).map((file) => file.path);
      // ...its owner writes its SQL, and no one else names it.
      expect(naming.some((path) => path.startsWith(owner))).toBe(true);
      expect(naming.filter((path) => !path.startsWith(owner))).toEqual([]);
    });
  }
});
