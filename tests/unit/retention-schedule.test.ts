/**
 * The retention schedule as written: content/retention.yaml names only kinds the retention rules
 * know, and each keeping time reads; the run's schedule on Netlify (functions/retention.ts) is
 * the one the desk counts the next run by; daily schedules are read as Netlify reads them (UTC).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { config } from '../../functions/retention';
import { dailyTime, lastDailyRun, nextDailyRun } from '../../src/server/platform/schedule';
import { RETENTION_RULES } from '../../src/server/retention/rules';
import { RETENTION_SCHEDULE, retentionSchedule } from '../../src/server/retention/schedule';
import { before, parsePeriod, periodText } from '../../src/shared/retention';

const scratch = mkdtempSync(join(tmpdir(), 'retention-schedule-'));
const file = (text: string) => {
  const path = join(scratch, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, text);
  return path;
};

describe('content/retention.yaml', () => {
  test('gives every rule its keeping time, with the defaults the docs state', () => {
    const schedule = Object.fromEntries(
      retentionSchedule().map(({ rule, period }) => [rule.name, periodText(period)]),
    );
    expect(schedule).toEqual({
      spamMessages: '30 days',
      spamWaivers: '30 days',
      mailRecords: '1 year',
      reSignRequests: '1 year',
      messages: '2 years',
      spamBookings: '30 days',
      consultations: '2 years',
      consultationBlocks: '2 years',
      spamSessions: '30 days',
      bookedSessions: '2 years',
      classes: '2 years',
      listPending: '30 days',
      listUnsubscribed: '1 year',
      listConfirmations: '30 days',
      waivers: '7 years',
      signInLinks: '1 day',
      sessions: '1 day',
      rateLimits: '1 day',
      mailFiles: '7 days',
    });
    // The file says what the rules would say without it.
    for (const { rule, period } of retentionSchedule()) {
      expect(periodText(period), rule.name).toBe(periodText(parsePeriod(rule.keep)!));
    }
  });

  test('a kind left out keeps its rule’s default; a name no rule knows is an error naming it', () => {
    const waivers = (path: string) =>
      retentionSchedule(path).find(({ rule }) => rule.name === 'waivers')!.period;
    expect(waivers(file('waivers: 10 years\n'))).toEqual({ count: 10, unit: 'year' });
    expect(waivers(file('spam: 2 weeks\n'))).toEqual({ count: 7, unit: 'year' });
    expect(waivers(join(scratch, 'missing.yaml'))).toEqual({ count: 7, unit: 'year' });
    expect(() => retentionSchedule(file('waviers: 10 years\n'))).toThrow(
      /names waviers, which no retention rule has/,
    );
    expect(() => retentionSchedule(file('waivers: forever\n'))).toThrow(/waivers/);
  });

  test('keeping times read as written, and count back in the calendar', () => {
    expect(parsePeriod('30 days')).toEqual({ count: 30, unit: 'day' });
    expect(parsePeriod('1 Year')).toEqual({ count: 1, unit: 'year' });
    expect(parsePeriod('6  weeks')).toEqual({ count: 6, unit: 'week' });
    for (const bad of ['0 days', '2.5 years', 'a year', '30', 'days', '-1 day']) {
      expect(parsePeriod(bad), bad).toBeUndefined();
    }
    const at = new Date('2029-03-31T09:00:00Z');
    expect(before(at, { count: 7, unit: 'year' }).toISOString()).toBe('2022-03-31T09:00:00.000Z');
    expect(before(at, { count: 30, unit: 'day' }).toISOString()).toBe('2029-03-01T09:00:00.000Z');
    expect(before(at, { count: 2, unit: 'week' }).toISOString()).toBe('2029-03-17T09:00:00.000Z');
  });

  test('every rule has a name, words and a default keeping time of its own', () => {
    const names = RETENTION_RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of RETENTION_RULES) {
      expect(parsePeriod(rule.keep), rule.name).toBeDefined();
      expect(rule.what[0].length, rule.name).toBeGreaterThan(3);
      expect(rule.from, rule.name).toMatch(/^from /);
    }
  });
});

describe('the daily schedule', () => {
  test('functions/retention.ts runs at the minute the desk counts the next run by', () => {
    expect(config.schedule).toBe(RETENTION_SCHEDULE);
    expect(dailyTime(RETENTION_SCHEDULE)).toEqual({ hour: 9, minute: 0 });
  });

  test('is read in UTC: the next run after a moment, and the last at or before it', () => {
    const cron = '30 9 * * *';
    expect(nextDailyRun(cron, new Date('2026-11-23T08:00:00Z')).toISOString()).toBe(
      '2026-11-23T09:30:00.000Z',
    );
    expect(nextDailyRun(cron, new Date('2026-11-23T09:30:00Z')).toISOString()).toBe(
      '2026-11-24T09:30:00.000Z',
    );
    expect(lastDailyRun(cron, new Date('2026-11-23T09:30:00Z')).toISOString()).toBe(
      '2026-11-23T09:30:00.000Z',
    );
    expect(lastDailyRun(cron, new Date('2026-11-23T09:29:59Z')).toISOString()).toBe(
      '2026-11-22T09:30:00.000Z',
    );
    // Across the end of a month and of a year.
    expect(nextDailyRun(cron, new Date('2026-12-31T23:00:00Z')).toISOString()).toBe(
      '2027-01-01T09:30:00.000Z',
    );
    expect(dailyTime('*/5 * * * *')).toBeUndefined();
    expect(dailyTime('0 24 * * *')).toBeUndefined();
  });
});
