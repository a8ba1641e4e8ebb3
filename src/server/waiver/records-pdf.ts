import { openBytes, sealBytes } from '../platform/crypto';
import { query } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import { renderWaiverPdf, type PdfCopy } from './pdf';
import type { WaiverRecord } from './store';
import { sha256 } from './current-text';

/**
 * The studio's records copy of a signed waiver is made once and kept: the first time it is
 * needed (the records mail, or a download from the records desk for a waiver never mailed) it is
 * rendered, its SHA-256 recorded, and its bytes stored sealed (they hold health information) in
 * `waiver_pdfs`. Every later use reads those bytes, so the desk's download is, byte for byte,
 * the document that was mailed, whatever changes later in pdf.ts, pdfkit or its fonts.
 */
export interface RecordsPdf {
  bytes: Buffer;
  sha256: string;
  createdAt: Date;
}

/** What a stored PDF is bound to (its associated data): the waiver it belongs to. */
export const pdfLabel = (waiverId: string) => `waiver-pdf:${waiverId}`;

/** The stored records PDF of a waiver, or `undefined` when none was made yet. */
export async function storedRecordsPdf(waiverId: string): Promise<RecordsPdf | undefined> {
  const [row] = await query<{ sha256: string; sealed: Uint8Array; created_at: Date }>(
    `SELECT sha256, sealed, created_at FROM waiver_pdfs WHERE waiver_id = $1`,
    [waiverId],
  );
  if (!row) return undefined;
  const bytes = openBytes(Buffer.from(row.sealed), pdfLabel(waiverId));
  if (sha256(bytes) !== row.sha256) {
    throw new Error(`The stored PDF of waiver ${waiverId} does not match its recorded hash`);
  }
  return { bytes, sha256: row.sha256, createdAt: new Date(row.created_at) };
}

/** The records PDF of a stored waiver: the one made before, or made, recorded and kept now. */
export async function recordsPdf(record: WaiverRecord): Promise<RecordsPdf> {
  const stored = await storedRecordsPdf(record.id);
  if (stored) return stored;
  const bytes = await renderWaiverPdf(record, siteFacts().name);
  const hash = sha256(bytes);
  const [made] = await query<{ created_at: Date }>(
    `INSERT INTO waiver_pdfs (waiver_id, sha256, sealed) VALUES ($1, $2, $3)
     ON CONFLICT (waiver_id) DO NOTHING
     RETURNING created_at`,
    [record.id, hash, sealBytes(bytes, pdfLabel(record.id))],
  );
  if (made) return { bytes, sha256: hash, createdAt: new Date(made.created_at) };
  // Made by someone else in the meantime: theirs is the one on record.
  const theirs = await storedRecordsPdf(record.id);
  if (!theirs) throw new Error(`The records PDF of waiver ${record.id} vanished`);
  return theirs;
}

/**
 * `waiver-okonkwo-ingrid-2026-11-22.pdf` for the studio's; `waiver-2026-11-22-copy.pdf` for the
 * participant's, which carries nothing typed into the form but the first name (mail.ts).
 */
export function pdfName(record: WaiverRecord, copy: PdfCopy): string {
  const day = record.createdAt.toISOString().slice(0, 10);
  if (copy === 'participant') return `waiver-${day}-copy.pdf`;
  const name = `${record.lastName}-${record.firstName}`.replace(/[^\p{L}\p{N}]+/gu, '-');
  return `waiver-${name}-${day}.pdf`.toLowerCase();
}
