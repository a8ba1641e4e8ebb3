import { transaction, type Queryable } from './db';

/** What one committed batch of a re-seal did. */
export interface ResealBatch<P> {
  /** 1, 2, 3 ... */
  batch: number;
  /** The rows re-sealed, as planned. */
  plans: P[];
  /** The ids of the rows no given key opens, left as they are. */
  unreadable: string[];
}

/**
 * The loop every `npm run rotate-key` step shares: rows in batches, each batch one transaction.
 * `nextRows` locks the batch of rows still not sealed with the current key after the last id seen
 * (so a run stopped anywhere resumes where it was); `plan` opens a row with whichever given key
 * sealed it and seals it anew, or answers `undefined` for a row none opens (left and named);
 * `writeAndVerify` writes the batch and reads it back before the batch commits.
 */
export async function resealInBatches<R extends { id: string | number }, P>(steps: {
  batchSize: number;
  /** Below every id: the first batch starts after it. */
  first: string;
  nextRows(tx: Queryable, after: string, limit: number): Promise<R[]>;
  plan(row: R): P | undefined;
  writeAndVerify(tx: Queryable, plans: P[]): Promise<void>;
  onBatch(done: ResealBatch<P>): void;
}): Promise<void> {
  let after = steps.first;
  for (let batch = 1; ; batch += 1) {
    const done = await transaction(async (tx) => {
      const rows = await steps.nextRows(tx, after, steps.batchSize);
      if (rows.length === 0) return undefined;
      const plans: P[] = [];
      const unreadable: string[] = [];
      for (const row of rows) {
        const planned = steps.plan(row);
        if (planned) plans.push(planned);
        else unreadable.push(String(row.id));
      }
      if (plans.length > 0) await steps.writeAndVerify(tx, plans);
      return { last: String(rows.at(-1)!.id), plans, unreadable };
    });
    if (!done) return;
    after = done.last;
    steps.onBatch({ batch, plans: done.plans, unreadable: done.unreadable });
  }
}
