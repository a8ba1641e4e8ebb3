/**
 * Reads every stored waiver back as the desk would: its health fields opened with the keys given,
 * and its records PDF opened and checked against the SHA-256 recorded when it was made. What a
 * restored backup is checked with (`npm run restore`): a backup is known to restore when every
 * waiver in it reads. Counts and waiver ids only, never a value.
 */
import { query } from '../platform/db';
import { storedRecordsPdf } from './records-pdf';
import { WAIVER_SELECT, waiverRecord } from './store';

export interface ReadBack {
  waivers: number;
  /** Records PDFs opened whose SHA-256 is the one recorded. */
  pdfs: number;
  /** Waivers whose fields or PDF could not be read (no key given opens them, or a bad hash). */
  unreadable: string[];
}

export async function readEveryWaiver(batch = 200): Promise<ReadBack> {
  const result: ReadBack = { waivers: 0, pdfs: 0, unreadable: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await query<Record<string, unknown>>(
      `${WAIVER_SELECT} WHERE w.id > $1::uuid ORDER BY w.id LIMIT $2`,
      [after, batch],
    );
    if (rows.length === 0) return result;
    for (const row of rows) {
      const id = String(row.id);
      result.waivers += 1;
      try {
        waiverRecord(row);
        if (await storedRecordsPdf(id)) result.pdfs += 1;
      } catch {
        result.unreadable.push(id);
      }
    }
    after = String(rows.at(-1)!.id);
  }
}
