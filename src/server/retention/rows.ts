/**
 * A retention rule (retention/rules.ts) and the rule that removes the rows of one table: the
 * table's owner writes its own (booking/retention.ts, classes/retention.ts) with this.
 */
import type { Queryable } from '../platform/db';
import { kindsAbout } from '../mail-kinds';
import type { RecordKind } from '../../shared/desk-api';

export interface RetentionRule {
  /** Its name in the tombstone. */
  name: string;
  /** Its keeping time's name in content/retention.yaml... */
  period: string;
  /** ...and the keeping time when the file leaves it out. */
  keep: string;
  /** What it removes: one, many (e.g. 'message taken for spam', 'messages taken for spam'). */
  what: readonly [string, string];
  /** From when the keeping time runs, in words ("from arrival"). */
  from: string;
  /** How many of its records are past `cutoff`. */
  count(db: Queryable, cutoff: Date): Promise<number>;
  /** Removes them (inside the run's transaction); how many went. */
  remove(tx: Queryable, cutoff: Date): Promise<number>;
  /** Not rows but files: removed once the run's transaction has committed. */
  afterCommit?: true;
}

type Described = Pick<RetentionRule, 'name' | 'period' | 'keep' | 'what' | 'from'>;

const number = (rows: unknown[]) => Number((rows[0] as { n: number | string } | undefined)?.n ?? 0);

/**
 * The rows of `table` matching `where` (`$1` the cutoff; `params` from `$2` on), counted or
 * deleted; `mailsOf` names the kind of record whose mails' records go with each row deleted.
 */
export function rowsOf(
  spec: Described & {
    table: string;
    where: string;
    params?: () => unknown[];
    key?: string;
    mailsOf?: RecordKind;
  },
): RetentionRule {
  const params = (cutoff: Date) => [cutoff.toISOString(), ...(spec.params?.() ?? [])];
  return {
    ...spec,
    async count(db, cutoff) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM ${spec.table} t WHERE ${spec.where}`,
        params(cutoff),
      );
      return number(rows);
    },
    async remove(tx, cutoff) {
      const { rows } = await tx.query(
        `DELETE FROM ${spec.table} t WHERE ${spec.where} RETURNING ${spec.key ?? 't.id'}::text AS key`,
        params(cutoff),
      );
      const keys = (rows as { key: string }[]).map((row) => row.key);
      if (spec.mailsOf && keys.length > 0) {
        // A mail's ref is its record's id, or `<id>:<sequence>` for a booking's.
        await tx.query(
          `DELETE FROM mail_outbox
            WHERE kind = ANY($1::text[]) AND split_part(ref, ':', 1) = ANY($2::text[])`,
          [kindsAbout(spec.mailsOf), keys],
        );
      }
      return keys.length;
    },
  };
}
