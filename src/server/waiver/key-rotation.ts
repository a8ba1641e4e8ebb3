/**
 * Key rotation: every stored health field and records PDF re-sealed with the current key
 * (`WAIVER_ENCRYPTION_KEY`), opened with whichever key sealed it (the current one or one of
 * `WAIVER_ENCRYPTION_OLD_KEYS`). `npm run rotate-key` (scripts/rotate-key.ts) runs it.
 *
 * - **In batches, each one transaction**: a batch's rows are locked, re-sealed, written, read back
 *   and opened again (the fields equal what they held, each PDF's SHA-256 equals the one
 *   recorded when it was made) before the batch commits. A batch that fails any of it rolls back
 *   whole: a crash halfway (the process killed, the database gone) leaves every row sealed with
 *   either its old key or the new one, readable with the keys given, and nothing half written.
 * - **Resumable**: a row already sealed with the current key, in the current format, is skipped,
 *   so running it again finishes the job. Fields of the older `enc1` format (bound to the field
 *   alone), and any stored before encryption, are sealed in the current format too.
 * - **What no given key opens** (a value damaged, or a key not given) is left as it is and named
 *   by the waiver's id, never skipped silently.
 * - It reports counts and key ids only, never a value.
 */
import { createHash } from 'node:crypto';
import { WAIVER_FIELD_NAMES, isHealthField, type WaiverFieldName } from '../../shared/waiver';
import {
  currentBytesHead,
  decryptField,
  encryptField,
  isEncrypted,
  isSealedWithCurrentKey,
  keyring,
  openBytes,
  sealBytes,
  sealedWithCurrentKeyPattern,
} from '../platform/crypto';
import { query, type Queryable } from '../platform/db';
import { resealInBatches } from '../platform/reseal';
import { pdfLabel } from './records-pdf';
import { columnOf } from './store';

const HEALTH = WAIVER_FIELD_NAMES.filter(isHealthField);
const COLUMNS = HEALTH.map(columnOf);

export interface RotationBatch {
  /** 1, 2, 3 ... */
  batch: number;
  /** Waivers whose fields or PDF were re-sealed in this batch. */
  waivers: number;
  fields: number;
  pdfs: number;
}

export interface RotationSummary {
  /** The id of the key everything is sealed with now. */
  toKey: string;
  /** What was re-sealed, by the key (or `enc1`, `clear`) it was sealed with before. */
  from: Record<string, number>;
  waivers: number;
  fields: number;
  pdfs: number;
  /** Waivers with a field or PDF no given key opens, left as they are. */
  unreadable: string[];
  /** Values still not sealed with the current key after the run (the unreadable ones). */
  remaining: number;
}

export interface RotationOptions {
  /** Waivers per batch (one transaction each). */
  batchSize?: number;
  /** Told after each batch commits. */
  onBatch?(progress: RotationBatch): void;
}

interface Row {
  id: string;
  pdf_sha256: string | null;
  sealed: Uint8Array | null;
  /** The health columns. */
  [column: string]: string | Uint8Array | null;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Which key sealed a value, for the counts: its key id, `enc1:<id>` for the older format, or `clear`. */
function sealedWith(value: string): string {
  if (!isEncrypted(value)) return 'clear';
  const [format, id] = value.split(':');
  return format === 'enc2' ? id : `${format}:${id}`;
}

/** The rows of one batch that hold anything not sealed with the current key, locked. */
async function nextRows(tx: Queryable, after: string, limit: number): Promise<Row[]> {
  const current = sealedWithCurrentKeyPattern();
  const stale = COLUMNS.map((column) => `w.${column} NOT LIKE $2`).join(' OR ');
  const { rows } = await tx.query(
    `SELECT w.id, ${COLUMNS.map((column) => `w.${column}`).join(', ')},
            p.sha256 AS pdf_sha256, p.sealed
       FROM waivers w LEFT JOIN waiver_pdfs p ON p.waiver_id = w.id
      WHERE w.id > $1::uuid
        AND (${stale} OR (p.sealed IS NOT NULL AND substring(p.sealed FROM 1 FOR $3) <> $4))
      ORDER BY w.id
      LIMIT $5
      FOR UPDATE OF w`,
    [after, current, currentBytesHead().length, currentBytesHead(), limit],
  );
  return rows as Row[];
}

interface Plan {
  id: string;
  fields: { field: WaiverFieldName; column: string; plain: string; sealed: string }[];
  pdf?: { sha256: string; sealed: Buffer };
  from: string[];
}

/** The new seal of everything in `row` that needs one; `undefined` when something does not open. */
function plan(row: Row): Plan | undefined {
  const id = String(row.id);
  const out: Plan = { id, fields: [], from: [] };
  try {
    for (const field of HEALTH) {
      const column = columnOf(field);
      const value = (row[column] as string | null) ?? '';
      if (isSealedWithCurrentKey(value)) continue;
      const plain = isEncrypted(value) ? decryptField(value, field, id) : value;
      out.fields.push({ field, column, plain, sealed: encryptField(plain, field, id) });
      out.from.push(sealedWith(value));
    }
    if (row.sealed) {
      const sealed = Buffer.from(row.sealed);
      if (!sealed.subarray(0, currentBytesHead().length).equals(currentBytesHead())) {
        const bytes = openBytes(sealed, pdfLabel(id));
        if (sha256(bytes) !== row.pdf_sha256) return undefined;
        out.pdf = { sha256: row.pdf_sha256, sealed: sealBytes(bytes, pdfLabel(id)) };
        out.from.push(sealed.subarray(4, 12).toString('ascii'));
      }
    }
  } catch {
    return undefined;
  }
  return out;
}

/** Writes a batch's new seals, reads them back and opens them: throws if any differs. */
async function writeAndVerify(tx: Queryable, plans: Plan[]): Promise<void> {
  for (const { id, fields, pdf } of plans) {
    if (fields.length > 0) {
      await tx.query(
        `UPDATE waivers SET ${fields.map((f, i) => `${f.column} = $${i + 2}`).join(', ')}
          WHERE id = $1`,
        [id, ...fields.map((f) => f.sealed)],
      );
    }
    if (pdf) {
      await tx.query(`UPDATE waiver_pdfs SET sealed = $2 WHERE waiver_id = $1`, [id, pdf.sealed]);
    }
  }
  const { rows } = await tx.query(
    `SELECT w.id, ${COLUMNS.map((column) => `w.${column}`).join(', ')}, p.sha256 AS pdf_sha256,
            p.sealed
       FROM waivers w LEFT JOIN waiver_pdfs p ON p.waiver_id = w.id
      WHERE w.id = ANY($1::uuid[])`,
    [plans.map((p) => p.id)],
  );
  const stored = new Map((rows as Row[]).map((row) => [String(row.id), row]));
  for (const { id, fields, pdf } of plans) {
    const row = stored.get(id);
    if (!row) throw new Error(`Waiver ${id} vanished while it was re-encrypted`);
    for (const { field, column, plain } of fields) {
      const value = (row[column] as string | null) ?? '';
      if (!isSealedWithCurrentKey(value) || decryptField(value, field, id) !== plain) {
        throw new Error(`Waiver ${id}: a re-encrypted field did not read back as it was`);
      }
    }
    if (pdf) {
      const bytes = openBytes(Buffer.from(row.sealed!), pdfLabel(id));
      if (sha256(bytes) !== pdf.sha256 || row.pdf_sha256 !== pdf.sha256) {
        throw new Error(`Waiver ${id}: the re-encrypted PDF did not read back as it was`);
      }
    }
  }
}

/** How many stored values are not sealed with the current key. */
export async function valuesNotOnCurrentKey(): Promise<number> {
  const current = sealedWithCurrentKeyPattern();
  const head = currentBytesHead();
  const [row] = await query<{ n: number }>(
    `SELECT (SELECT count(*) FROM waivers, unnest(ARRAY[${COLUMNS.join(', ')}]) AS v
              WHERE v NOT LIKE $1)
          + (SELECT count(*) FROM waiver_pdfs WHERE substring(sealed FROM 1 FOR $2) <> $3)
            AS n`,
    [current, head.length, head],
  );
  return Number(row?.n ?? 0);
}

/** Re-seals every stored health field and records PDF with the current key. */
export async function rotateKey(options: RotationOptions = {}): Promise<RotationSummary> {
  const batchSize = options.batchSize ?? 100;
  const summary: RotationSummary = {
    toKey: keyring().currentId,
    from: {},
    waivers: 0,
    fields: 0,
    pdfs: 0,
    unreadable: [],
    remaining: 0,
  };
  await resealInBatches({
    batchSize,
    first: '00000000-0000-0000-0000-000000000000',
    nextRows,
    plan,
    writeAndVerify,
    onBatch({ batch, plans, unreadable }) {
      const progress: RotationBatch = { batch, waivers: plans.length, fields: 0, pdfs: 0 };
      for (const { fields, pdf, from } of plans) {
        progress.fields += fields.length;
        progress.pdfs += pdf ? 1 : 0;
        for (const key of from) summary.from[key] = (summary.from[key] ?? 0) + 1;
      }
      summary.waivers += progress.waivers;
      summary.fields += progress.fields;
      summary.pdfs += progress.pdfs;
      summary.unreadable.push(...unreadable);
      options.onBatch?.(progress);
    },
  });
  summary.remaining = await valuesNotOnCurrentKey();
  return summary;
}
