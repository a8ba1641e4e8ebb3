/**
 * Key rotation of the sealed link tokens of the Get Notified list (`list_confirmations.token_sealed`,
 * `list_subscribers.unsubscribe_sealed`) and of the waiver's re-sign requests
 * (`waiver_resign_requests.token_sealed`), as booking/key-rotation.ts re-seals the bookings':
 * `npm run rotate-key` runs it after them. In batches, each one transaction: a batch's rows are
 * locked, their tokens opened with whichever given key sealed them, sealed with the current key,
 * written, read back and checked against the hash the row is found by before the batch commits.
 * A token sealed with the current key is skipped (resumable); one no given key opens is left as it
 * is and named by its row. Counts and row ids only, never a token.
 */
import {
  decryptField,
  encryptField,
  isSealedWithCurrentKey,
  sealedWithCurrentKeyPattern,
} from '../platform/crypto';
import { query } from '../platform/db';
import { resealInBatches } from '../platform/reseal';
import { RE_SIGN_TOKEN_FIELD } from '../waiver/re-sign';
import { openStoredToken, tokenHash } from '../platform/tokens';
import { CONFIRM_TOKEN_FIELD, UNSUBSCRIBE_TOKEN_FIELD } from './tokens';

interface Column {
  table: 'list_confirmations' | 'list_subscribers' | 'waiver_resign_requests';
  sealed: 'token_sealed' | 'unsubscribe_sealed';
  hash: 'token_hash' | 'unsubscribe_hash' | 'token_sha256';
  field: string;
}

const COLUMNS: readonly Column[] = [
  {
    table: 'list_confirmations',
    sealed: 'token_sealed',
    hash: 'token_hash',
    field: CONFIRM_TOKEN_FIELD,
  },
  {
    table: 'list_subscribers',
    sealed: 'unsubscribe_sealed',
    hash: 'unsubscribe_hash',
    field: UNSUBSCRIBE_TOKEN_FIELD,
  },
  {
    table: 'waiver_resign_requests',
    sealed: 'token_sealed',
    hash: 'token_sha256',
    field: RE_SIGN_TOKEN_FIELD,
  },
];

const stale = (column: Column) => `${column.sealed} IS NOT NULL AND ${column.sealed} NOT LIKE $1`;
const currentPattern = sealedWithCurrentKeyPattern;

export interface ListTokenRotation {
  /** Tokens sealed anew. */
  tokens: number;
  /** `<table>:<id>` of the tokens no given key opens, left as they are. */
  unreadable: string[];
  /** Tokens still not sealed with the current key after the run. */
  remaining: number;
}

/** How many of the list's tokens are not sealed with the current key. */
export async function listTokensNotOnCurrentKey(): Promise<number> {
  let total = 0;
  for (const column of COLUMNS) {
    const [row] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${column.table} WHERE ${stale(column)}`,
      [currentPattern()],
    );
    total += Number(row?.n ?? 0);
  }
  return total;
}

/** A token to seal anew: its row, the token opened, the hash the row is found by. */
interface Plan {
  id: string;
  token: string;
  hash: string;
}

/** Seals every token of the list (and of the re-sign requests) with the current key. */
export async function rotateListTokens({ batchSize = 100 } = {}): Promise<ListTokenRotation> {
  const summary: ListTokenRotation = { tokens: 0, unreadable: [], remaining: 0 };
  for (const column of COLUMNS) {
    await resealInBatches({
      batchSize,
      // By the id's text: the list's ids are numbers, a re-sign request's a UUID.
      first: '',
      async nextRows(tx, after, limit) {
        const { rows } = await tx.query(
          `SELECT id, ${column.sealed} AS sealed, ${column.hash} AS hash FROM ${column.table}
            WHERE id::text > $2 AND ${stale(column)} ORDER BY id::text LIMIT $3 FOR UPDATE`,
          [currentPattern(), after, limit],
        );
        return rows as { id: string | number; sealed: string; hash: string }[];
      },
      plan(row): Plan | undefined {
        const id = String(row.id);
        try {
          const stored = { sealed: row.sealed, sha256: row.hash };
          return { id, token: openStoredToken(column.field, id, stored), hash: row.hash };
        } catch {
          return undefined;
        }
      },
      async writeAndVerify(tx, plans) {
        for (const { id, token, hash } of plans) {
          const again = encryptField(token, column.field, id);
          const { rows: back } = await tx.query(
            `UPDATE ${column.table} SET ${column.sealed} = $2 WHERE id = $1
             RETURNING ${column.sealed} AS sealed`,
            [id, again],
          );
          const stored = (back[0] as { sealed: string } | undefined)?.sealed ?? '';
          if (
            !isSealedWithCurrentKey(stored) ||
            tokenHash(decryptField(stored, column.field, id)) !== hash
          ) {
            throw new Error(`${column.table} ${id}: its re-encrypted token did not read back`);
          }
        }
      },
      onBatch({ plans, unreadable }) {
        summary.tokens += plans.length;
        summary.unreadable.push(...unreadable.map((id) => `${column.table}:${id}`));
      },
    });
  }
  summary.remaining = await listTokensNotOnCurrentKey();
  return summary;
}
