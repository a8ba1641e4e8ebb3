import {
  WAIVER_FIELD_NAMES,
  type Waiver,
  type WaiverFieldName,
  isHealthField,
  type SignatureKind,
} from '../../shared/waiver';
import { decryptField, encryptField, isEncrypted } from '../platform/crypto';
import { ok, type Result } from '../../shared/result';
import { query, transaction, type Queryable } from '../platform/db';
import type { Problem } from '../request/responses';
import { keptAsSpam, queue, repeated, type FormOutbox, type Received } from '../request/steps';
import { holdBackCopy } from './copy-limit';
import { spendReSignLinks } from './re-sign';
import type { SpamReason } from '../../shared/anti-spam';
import { sha256, type WaiverText } from './current-text';

/** A stored waiver as the PDF, the mails and the records desk read it. */
export type WaiverRecord = Record<WaiverFieldName, string> & {
  id: string;
  agreedToTerms: boolean;
  agreedToPhotos: boolean;
  signaturePng: Buffer;
  createdAt: Date;
  clientIp: string | null;
  userAgent: string | null;
  waiverText: WaiverText;
  signatureKind: SignatureKind;
  /** The name typed to sign, for a typed signature. */
  signatureName: string | null;
  spamReason: SpamReason | null;
  /** The form's time trap ran (not for a form sent without script). */
  timed: boolean;
};

/** What the form's own checks found out, stored with the fields. */
export interface SignedWith {
  signaturePng: Buffer;
  signatureKind: SignatureKind;
  signatureName: string | null;
  text: WaiverText;
}

/** The column of a participant's field: its name in snake_case (`firstName` → `first_name`). */
export const columnOf = (field: WaiverFieldName) =>
  field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The mails a signed waiver owes: its PDF to the records inbox, a copy to the participant. */
export const WAIVER_MAILS = ['waiver-records', 'waiver-participant'] as const;

/**
 * Stores the waiver and queues its mails in one transaction: the ids of the mails to send now
 * (none for spam, or for a submission id already stored), or 409 for a known submission id sent
 * with other details. The participant's copy is held back past WAIVER_COPY_LIMIT (copy-limit.ts).
 */
export function storeWaiver(
  outbox: FormOutbox<(typeof WAIVER_MAILS)[number]>,
  waiver: Waiver,
  received: Received,
  signed: SignedWith,
): Promise<Result<string[], Problem>> {
  return transaction(async (tx) => {
    const id = await insertWaiver(tx, waiver, received, signed);
    if (id === undefined) return repeated(tx, 'waivers', received);
    if (received.spam) return keptAsSpam('waiver', id, received.spam);
    return ok(
      await queue(tx, outbox, [
        { kind: 'waiver-records', ref: id },
        { kind: 'waiver-participant', ref: id, skipped: await holdBackCopy(tx, waiver.email) },
      ]),
    );
  });
}

/**
 * Stores the waiver, its audit trail and (once per version) the text it was signed under, in the
 * transaction `storeWaiver` opened for it and its mails. Health fields are encrypted first
 * (AES-256-GCM, crypto.ts) and bound to this row: the database never holds them in clear, and a
 * value copied into another participant's row does not open there. The waiver's id is its
 * submission id, known before the row is written, so a repeat of it (even at the same moment)
 * stores nothing and returns `undefined`.
 */
export async function insertWaiver(
  tx: Queryable,
  waiver: Waiver,
  { submissionId, fingerprint, spam, timed, client }: Received,
  { signaturePng, signatureKind, signatureName, text }: SignedWith,
): Promise<string | undefined> {
  await tx.query(
    `INSERT INTO waiver_texts (sha256, version, text) VALUES ($1, $2, $3)
     ON CONFLICT (sha256) DO NOTHING`,
    [text.sha256, text.version, text.text],
  );
  const row: Record<string, unknown> = {
    id: submissionId,
    submission_id: submissionId,
    agreed_to_terms: waiver.agreedToTerms,
    agreed_to_photos: waiver.agreedToPhotos,
    signature_png: signaturePng,
    signature_sha256: sha256(signaturePng),
    signature_kind: signatureKind,
    signature_name: signatureName,
    waiver_text_sha256: text.sha256,
    client_ip: client.ip.slice(0, 100),
    user_agent: client.userAgent?.slice(0, 1000) ?? null,
    spam_reason: spam,
    timed,
    request_sha256: fingerprint,
  };
  for (const field of WAIVER_FIELD_NAMES) {
    row[columnOf(field)] = isHealthField(field)
      ? encryptField(waiver[field], field, submissionId)
      : waiver[field];
  }
  const columns = Object.keys(row);
  const { rows } = await tx.query(
    `INSERT INTO waivers (${columns.join(', ')})
     VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
     ON CONFLICT DO NOTHING
     RETURNING id`,
    Object.values(row),
  );
  const id = (rows[0] as { id: string } | undefined)?.id;
  // Signed: a re-sign link mailed to this address has done its work.
  if (id && !spam) await spendReSignLinks(tx, waiver.email);
  return id;
}

/** The SELECT a waiver record is read with (`w` the waiver, `t` the text it was signed under). */
export const WAIVER_SELECT = `SELECT w.*, t.version AS text_version, t.text
  FROM waivers w JOIN waiver_texts t ON t.sha256 = w.waiver_text_sha256`;

/**
 * Reads a stored waiver back, with the text it was signed under; health fields decrypted unless
 * `health: false` (see `waiverRecord`).
 */
export async function loadWaiver(
  id: string,
  options?: { health?: boolean },
): Promise<WaiverRecord | undefined> {
  const [row] = await query<Record<string, unknown>>(`${WAIVER_SELECT} WHERE w.id = $1`, [id]);
  return row && waiverRecord(row, options);
}

/**
 * A row of `WAIVER_SELECT` as a record. With `health: false` the health fields stay sealed and
 * read as '' (a list or an export that leaves them out has no reason to open them).
 */
export function waiverRecord(
  row: Record<string, unknown>,
  { health = true }: { health?: boolean } = {},
): WaiverRecord {
  const id = String(row.id);
  const fields = Object.fromEntries(
    WAIVER_FIELD_NAMES.map((field) => {
      const value = (row[columnOf(field)] as string | null) ?? '';
      if (!isHealthField(field)) return [field, value];
      if (!health) return [field, ''];
      return [field, isEncrypted(value) ? decryptField(value, field, id) : value];
    }),
  ) as Record<WaiverFieldName, string>;
  return {
    ...fields,
    id,
    agreedToTerms: Boolean(row.agreed_to_terms),
    agreedToPhotos: Boolean(row.agreed_to_photos),
    signaturePng: Buffer.from(row.signature_png as Uint8Array),
    createdAt: new Date(row.created_at as string),
    clientIp: (row.client_ip as string | null) ?? null,
    userAgent: (row.user_agent as string | null) ?? null,
    waiverText: {
      version: String(row.text_version),
      text: String(row.text),
      sha256: String(row.waiver_text_sha256),
    },
    signatureKind: row.signature_kind as SignatureKind,
    signatureName: (row.signature_name as string | null) ?? null,
    spamReason: (row.spam_reason as SpamReason | null) ?? null,
    timed: row.timed !== false,
  };
}

/** The phone of each address's latest waiver (not spam), by the address in lower case. */
export async function latestWaiverPhones(emails: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(emails.map((email) => email.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  const rows = await query<{ email: string; phone: string }>(
    `SELECT DISTINCT ON (lower(email)) lower(email) AS email, phone FROM waivers
      WHERE lower(email) = ANY($1::text[]) AND spam_reason IS NULL
      ORDER BY lower(email), created_at DESC`,
    [wanted],
  );
  return new Map(rows.map((row) => [row.email, row.phone]));
}
