/**
 * Key rotation of the bookings' manage-link tokens (`manage_token_sealed`, of consultations and
 * of sessions alike), the way
 * waiver/key-rotation.ts re-seals the waivers: `npm run rotate-key` runs both.
 *
 * - **In batches, each one transaction**: a batch's rows are locked, their tokens opened with
 *   whichever given key sealed them, sealed with the current key, written, read back and opened
 *   again (the token's SHA-256 still the one the row is found by) before the batch commits.
 * - **A booking made before tokens were sealed** (null) has its token rebuilt under the given
 *   key that made it (the one whose hash the row holds), and sealed: run while that key is still
 *   given, the rotation leaves every booking's link rebuildable after it is removed.
 * - **Resumable**: a token sealed with the current key is skipped.
 * - **What no given key opens or rebuilds** is left as it is and named by the booking's id.
 * - It reports counts and key ids only, never a token.
 */
import { tokenHash } from '../platform/tokens';
import {
  encryptField,
  decryptField,
  isSealedWithCurrentKey,
  sealedWithCurrentKeyPattern,
} from '../platform/crypto';
import { query, type Queryable } from '../platform/db';
import { resealInBatches } from '../platform/reseal';
import { MANAGE_TOKEN_FIELD, derivedManageToken, manageToken } from './store';

export interface LinkRotationBatch {
  /** 1, 2, 3 ... */
  batch: number;
  /** Bookings whose token was sealed anew in this batch. */
  bookings: number;
}

export interface LinkRotationSummary {
  /** What was re-sealed, by the key it was sealed with before (`derived:<key id>`: never sealed). */
  from: Record<string, number>;
  bookings: number;
  /** Bookings whose token no given key opens or rebuilds, left as they are. */
  unreadable: string[];
  /** Tokens still not sealed with the current key after the run (the unreadable ones). */
  remaining: number;
}

interface Row {
  id: string;
  manage_token_sealed: string | null;
  manage_token_sha256: string;
}

interface Plan {
  id: string;
  sealed: string;
  sha256: string;
  from: string;
}

const link = (row: Row) => ({ sealed: row.manage_token_sealed, sha256: row.manage_token_sha256 });

/** Which key a token was sealed with, or made under (`derived:<key id>`), for the counts. */
function madeWith(row: Row): string {
  if (row.manage_token_sealed) return row.manage_token_sealed.split(':')[1] ?? 'unknown';
  return `derived:${derivedManageToken({ id: String(row.id), link: link(row) })?.keyId}`;
}

function plan(row: Row): Plan | undefined {
  const id = String(row.id);
  try {
    const token = manageToken({ id, link: link(row) });
    return {
      id,
      sealed: encryptField(token, MANAGE_TOKEN_FIELD, id),
      sha256: row.manage_token_sha256,
      from: madeWith(row),
    };
  } catch {
    return undefined;
  }
}

const STALE = `(manage_token_sealed IS NULL OR manage_token_sealed NOT LIKE $1)`;
const currentPattern = sealedWithCurrentKeyPattern;

/** The tables whose rows carry a sealed manage token: consultations, and sessions (0080). */
const TABLES = ['consultation_bookings', 'session_bookings'] as const;
type Table = (typeof TABLES)[number];

async function nextRows(table: Table, tx: Queryable, after: string, limit: number): Promise<Row[]> {
  const { rows } = await tx.query(
    `SELECT id, manage_token_sealed, manage_token_sha256 FROM ${table}
      WHERE id > $2::uuid AND ${STALE}
      ORDER BY id
      LIMIT $3
      FOR UPDATE`,
    [currentPattern(), after, limit],
  );
  return rows as Row[];
}

/** Writes a batch's new seals, reads them back and opens them: throws if any differs. */
async function writeAndVerify(table: Table, tx: Queryable, plans: Plan[]): Promise<void> {
  for (const { id, sealed } of plans) {
    await tx.query(`UPDATE ${table} SET manage_token_sealed = $2 WHERE id = $1`, [id, sealed]);
  }
  const { rows } = await tx.query(
    `SELECT id, manage_token_sealed, manage_token_sha256 FROM ${table}
      WHERE id = ANY($1::uuid[])`,
    [plans.map((p) => p.id)],
  );
  const stored = new Map((rows as Row[]).map((row) => [String(row.id), row]));
  for (const { id, sha256 } of plans) {
    const row = stored.get(id);
    if (!row) throw new Error(`Booking ${id} vanished while its link was re-encrypted`);
    const sealed = row.manage_token_sealed ?? '';
    if (
      !isSealedWithCurrentKey(sealed) ||
      row.manage_token_sha256 !== sha256 ||
      tokenHash(decryptField(sealed, MANAGE_TOKEN_FIELD, id)) !== sha256
    ) {
      throw new Error(`Booking ${id}: its re-encrypted link did not read back as it was`);
    }
  }
}

/** How many bookings' tokens are not sealed with the current key. */
export async function linksNotOnCurrentKey(): Promise<number> {
  const [row] = await query<{ n: number }>(
    `SELECT (SELECT count(*) FROM consultation_bookings WHERE ${STALE})
          + (SELECT count(*) FROM session_bookings WHERE ${STALE}) AS n`,
    [currentPattern()],
  );
  return Number(row?.n ?? 0);
}

/** Seals every booking's manage token with the current key. */
export async function rotateBookingLinks(
  options: { batchSize?: number; onBatch?(progress: LinkRotationBatch): void } = {},
): Promise<LinkRotationSummary> {
  const batchSize = options.batchSize ?? 100;
  const summary: LinkRotationSummary = { from: {}, bookings: 0, unreadable: [], remaining: 0 };
  let batches = 0;
  for (const table of TABLES) {
    await resealInBatches({
      batchSize,
      first: '00000000-0000-0000-0000-000000000000',
      nextRows: (tx, after, limit) => nextRows(table, tx, after, limit),
      plan,
      writeAndVerify: (tx, plans) => writeAndVerify(table, tx, plans),
      onBatch({ plans, unreadable }) {
        for (const { from } of plans) summary.from[from] = (summary.from[from] ?? 0) + 1;
        summary.bookings += plans.length;
        summary.unreadable.push(...unreadable);
        batches += 1;
        options.onBatch?.({ batch: batches, bookings: plans.length });
      },
    });
  }
  summary.remaining = await linksNotOnCurrentKey();
  return summary;
}
