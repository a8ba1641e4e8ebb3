/**
 * Her session types (content/sessions/*.md with `where`) and her session hours and cancellation
 * policy (content/booking.yaml), as the build checks them (in her words: file, field, what to
 * write) and as the functions read them at run time (src/server/booking/policy.ts).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { contentProblems } from '../../src/integrations/content-check';
import {
  readSessionPolicy,
  servesArea,
  sessionType,
  withinPolicy,
} from '../../src/server/booking/policy';
import { PROJECT_ROOT } from '../fixtures/project-copy';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A copy of content/ with `file` edited by `edit` (which must change it). */
function contentWith(file: string, edit: (text: string) => string): string {
  const root = mkdtempSync(join(tmpdir(), 'session-policy-'));
  roots.push(root);
  cpSync(join(PROJECT_ROOT, 'content'), join(root, 'content'), { recursive: true });
  const path = join(root, 'content', file);
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  expect(after, `the test's edit must change ${file}`).not.toBe(before);
  writeFileSync(path, after);
  return root;
}

describe('the session types and hours the functions read', () => {
  const policy = readSessionPolicy(join(PROJECT_ROOT, 'content'));

  test('private and in-home, in the order of their cards, with length, price and place', () => {
    expect(
      policy.types.map((type) => [type.id, type.price, type.lengthMinutes, type.where]),
    ).toEqual([
      ['private', 120, 60, 'studio'],
      ['in-home', 150, 60, 'home'],
    ]);
    expect(sessionType('small-group', policy)).toBeUndefined();
    expect(sessionType('in-home', policy)?.travelMinutes).toBe(30);
    expect(policy.hours.cancelOrMoveHoursBefore).toBe(24);
    expect(policy.hours.cancellationPolicy).toContain('24 hours');
    expect(policy.timeZone).toBe('America/Los_Angeles');
  });

  test('every session file ships with the functions (netlify.toml included_files), so its price is read there', () => {
    const toml = readFileSync(join(PROJECT_ROOT, 'netlify.toml'), 'utf8');
    const included = [
      ...(/included_files\s*=\s*\[([^\]]*)\]/.exec(toml)?.[1] ?? '').matchAll(/"([^"]+)"/g),
    ].map(([, file]) => file);
    const sessions = readdirSync(join(PROJECT_ROOT, 'content/sessions'))
      .filter((name) => name.endsWith('.md') && !name.startsWith('_'))
      .map((name) => `content/sessions/${name}`);
    expect(included).toEqual(expect.arrayContaining(['content/booking.yaml', ...sessions]));
  });

  test('an in-home session takes only the ZIP codes she serves, as a visitor types them', () => {
    const inHome = sessionType('in-home', policy)!;
    expect(servesArea(inHome, '97202')).toBe(true);
    expect(servesArea(inHome, ' 97214-1234 ')).toBe(true);
    expect(servesArea(inHome, '97201')).toBe(false);
    expect(servesArea(inHome, '9720')).toBe(false);
    expect(servesArea(inHome, 'Portland')).toBe(false);
  });

  test('the policy counts real hours, so the days clocks change hold 23 or 25 of them', () => {
    const hours = policy.hours;
    // 10 AM on Sunday 8 March 2026 (PDT, the day the clocks go forward) is 17:00Z; 24 real hours
    // before it is 9 AM PST on Saturday, not 10 AM as the wall clock would say.
    const start = new Date('2026-03-08T17:00:00Z');
    expect(withinPolicy(start, new Date('2026-03-07T17:00:00Z'), hours)).toBe(true);
    expect(withinPolicy(start, new Date('2026-03-07T17:00:01Z'), hours)).toBe(false);
  });
});

describe('a mistake is told in her words: the file, the field, what to write', () => {
  test('a cancellation sentence that says another number of hours', () => {
    const root = contentWith('booking.yaml', (text) =>
      text.replace('cancelOrMoveHoursBefore: 24', 'cancelOrMoveHoursBefore: 48'),
    );
    expect(contentProblems(root)).toEqual([
      expect.stringMatching(
        /^content\/booking\.yaml, line \d+: cancellationPolicy: does not say 48 hours, as cancelOrMoveHoursBefore does: use the same number, e\.g\. .*48 hours/,
      ),
    ]);
  });

  test('a ZIP code of four digits does not pass', () => {
    const root = contentWith('sessions/in-home.md', (text) => text.replace("'97206'", '9720'));
    expect(contentProblems(root)).toEqual([
      expect.stringMatching(
        /^content\/sessions\/in-home\.md, line \d+: areas: write each ZIP code as 5 digits in quotes, e\.g\./,
      ),
    ]);
  });

  test('a session at the visitor’s address without areas', () => {
    const root = contentWith('sessions/in-home.md', (text) => text.replace(/^areas: .*\n/m, ''));
    expect(contentProblems(root)).toEqual([
      "content/sessions/in-home.md: areas: missing: list the ZIP codes you travel to, e.g. areas: ['97202', '97214']",
    ]);
  });

  test('a place that is neither', () => {
    const root = contentWith('sessions/private.md', (text) =>
      text.replace('where: studio', 'where: park'),
    );
    expect(contentProblems(root)).toEqual([
      expect.stringMatching(
        /^content\/sessions\/private\.md, line \d+: where: use studio \(at the studio's address\) or home/,
      ),
    ]);
  });

  test('the same ZIP code twice', () => {
    const root = contentWith('sessions/in-home.md', (text) => text.replace("'97206'", "'97202'"));
    expect(contentProblems(root)).toEqual([
      expect.stringMatching(/areas: lists 97202 twice: use each ZIP code once, e\.g\./),
    ]);
  });
});
