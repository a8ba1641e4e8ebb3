/**
 * The retention run: every rule of the schedule applied at one instant, in one transaction, and
 * a tombstone in the access log saying what kinds went, how many and when (never what they
 * held). The desk's preview counts the same rules at the instant of the next run, so it says
 * what that run will remove.
 *
 * A run removes what was past its keeping time at the run's scheduled minute
 * (`lastDailyRun`), not at the moment it happened to start: the preview for that minute and the
 * run agree, however late the platform starts it.
 */
import { lastDailyRun, nextDailyRun } from '../platform/schedule';
import { now } from '../platform/clock';
import { query, transaction, type Queryable } from '../platform/db';
import { before, periodText } from '../../shared/retention';
import type { RetentionCount, RetentionPreview, RetentionRemoved } from '../../shared/desk-api';
import { logAccess } from '../records/access-log';
import { RETENTION_SCHEDULE, retentionSchedule } from './schedule';

/** Who the tombstone names as having done it. */
export const RETENTION_ACTOR = 'the retention schedule';

/** The next run's instant, after `at` (the clock's now). */
export function nextRetentionRun(at = now()): Date {
  return nextDailyRun(RETENTION_SCHEDULE, at);
}

/** The instant a run started at `at` works at: the scheduled minute it belongs to. */
export function retentionInstant(at = now()): Date {
  return lastDailyRun(RETENTION_SCHEDULE, at);
}

/** The function's own queries, as the transaction's `Queryable` is (`query` returns rows). */
const pooled: Queryable = { query: async (text, params) => ({ rows: await query(text, params) }) };

/** What a run at `at` would remove: each rule's count, in the rules' order. */
export async function previewRetention(at: Date): Promise<RetentionCount[]> {
  const counts: RetentionCount[] = [];
  for (const { rule, period } of retentionSchedule()) {
    counts.push({
      name: rule.name,
      what: rule.what,
      keep: periodText(period),
      from: rule.from,
      count: await rule.count(pooled, before(at, period)),
    });
  }
  return counts;
}

/**
 * Removes what is past its keeping time at `at`, and says so in the access log (in the same
 * transaction as the rows: both land, or neither). Files are not rows: they go first, and are
 * counted in the same tombstone.
 */
export async function applyRetention(at: Date): Promise<RetentionCount[]> {
  const schedule = retentionSchedule();
  const counts = new Map<string, number>();
  for (const { rule, period } of schedule) {
    if (rule.afterCommit) counts.set(rule.name, await rule.remove(pooled, before(at, period)));
  }
  return transaction(async (tx) => {
    for (const { rule, period } of schedule) {
      if (!rule.afterCommit) counts.set(rule.name, await rule.remove(tx, before(at, period)));
    }
    const removed = schedule.map(({ rule, period }) => ({
      name: rule.name,
      what: rule.what,
      keep: periodText(period),
      from: rule.from,
      count: counts.get(rule.name) ?? 0,
    }));
    const gone: RetentionRemoved[] = removed
      .filter((entry) => entry.count > 0)
      .map(({ name, what, count }) => ({ name, one: what[0], many: what[1], count }));
    if (gone.length > 0) {
      await logAccess(
        { email: RETENTION_ACTOR },
        { action: 'retention', detail: { at: at.toISOString(), removed: gone } },
        tx,
      );
    }
    return removed;
  });
}

/** The latest run that removed anything: its instant and what went. */
export async function lastRetention(): Promise<RetentionPreview['last']> {
  const [row] = await query<{ detail: NonNullable<RetentionPreview['last']> | string }>(
    `SELECT detail FROM records_access_log WHERE action = 'retention'
      ORDER BY at DESC, id DESC LIMIT 1`,
  );
  if (!row) return null;
  return typeof row.detail === 'string'
    ? (JSON.parse(row.detail) as NonNullable<RetentionPreview['last']>)
    : row.detail;
}
