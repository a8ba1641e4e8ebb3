import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Waiver } from '../lib/waiver';
import { contentPath } from './site';
import { decryptField, encryptField, isEncrypted } from './crypto';
import { query, transaction } from './db';
import { enqueueMail, type AttemptOutcome } from './outbox';
import type { SpamReason } from './spam';

export interface WaiverText {
  version: string;
  /** The body of content/waiver.md, exactly as signed and hashed. */
  text: string;
  sha256: string;
}

export interface AuditTrail {
  clientIp: string | null;
  userAgent: string | null;
}

export interface WaiverRecord {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  emergencyName: string;
  emergencyPhone: string;
  medicalConditions: string;
  medications: string;
  agreedToTerms: boolean;
  agreedToPhotos: boolean;
  signaturePng: Buffer;
  createdAt: Date;
  clientIp: string | null;
  userAgent: string | null;
  waiverText: WaiverText;
  recordsMailedAt: Date | null;
  participantMailedAt: Date | null;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

let cached: { file: string; text: WaiverText } | undefined;

/** The waiver text in force: content/waiver.md, shipped beside the functions. */
export function currentWaiverText(): WaiverText {
  const file = contentPath('waiver.md');
  if (cached?.file === file) return cached.text;
  const source = readFileSync(file, 'utf8').replace(/\r\n?/g, '\n');
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source);
  const version = match ? (parse(match[1]!) as { version?: unknown })?.version : undefined;
  if (!match || typeof version !== 'string' || !match[2]!.trim()) {
    throw new Error('content/waiver.md needs a `version` in its frontmatter and a body');
  }
  const text = match[2]!.trim();
  cached = { file, text: { version, text, sha256: sha256(text) } };
  return cached.text;
}

export interface StoredWaiver {
  /** The waiver's record id (the first one's, for a repeated submission). */
  id: string;
  /** This submission had been received before (a retry or a double click): nothing new stored. */
  duplicate: boolean;
  /** The outbox rows of its two e-mails, queued in the same transaction (none for a duplicate or spam). */
  outboxIds: string[];
}

/**
 * Stores the waiver, its audit trail, (once) the text it was signed under and its two queued
 * e-mails, atomically. The health fields are encrypted first (AES-256-GCM, see crypto.ts): the
 * database never holds them in clear. `spam` marks a waiver caught by the form's spam checks,
 * kept for review and never mailed (nothing queued). Idempotent on `waiver.submissionId`: the
 * same id again (even concurrently) stores and queues nothing more and answers with the first
 * waiver's id.
 */
export async function storeWaiver(
  waiver: Waiver,
  signaturePng: Buffer,
  audit: AuditTrail,
  text: WaiverText = currentWaiverText(),
  spam: SpamReason | null = null,
): Promise<StoredWaiver> {
  const medicalConditions = encryptField(waiver.medicalConditions, 'medicalConditions');
  const medications = encryptField(waiver.medications, 'medications');
  const submissionId = waiver.submissionId ?? randomUUID();
  return transaction(async (tx) => {
    await tx.query(
      `INSERT INTO waiver_texts (sha256, version, text) VALUES ($1, $2, $3)
       ON CONFLICT (sha256) DO NOTHING`,
      [text.sha256, text.version, text.text],
    );
    const { rows } = await tx.query(
      `INSERT INTO waivers (id, first_name, last_name, email, phone, emergency_name,
         emergency_phone, medical_conditions, medications, agreed_to_terms, agreed_to_photos,
         signature_png, signature_sha256, waiver_text_sha256, client_ip, user_agent, spam_reason,
         submission_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
       ON CONFLICT ON CONSTRAINT waivers_submission_once DO NOTHING
       RETURNING id`,
      [
        randomUUID(),
        waiver.firstName,
        waiver.lastName,
        waiver.email,
        waiver.phone,
        waiver.emergencyName,
        waiver.emergencyPhone,
        medicalConditions,
        medications,
        waiver.agreedToTerms,
        waiver.agreedToPhotos,
        signaturePng,
        sha256(signaturePng),
        text.sha256,
        audit.clientIp?.slice(0, 100) ?? null,
        audit.userAgent?.slice(0, 1000) ?? null,
        spam,
        submissionId,
      ],
    );
    const inserted = rows[0] as { id: string } | undefined;
    if (!inserted) {
      // The first submission with this id committed first (ON CONFLICT waited for it).
      const { rows: first } = await tx.query('SELECT id FROM waivers WHERE submission_id = $1', [
        submissionId,
      ]);
      return { id: (first[0] as { id: string }).id, duplicate: true, outboxIds: [] };
    }
    const outboxIds: string[] = [];
    if (spam) return { id: inserted.id, duplicate: false, outboxIds };
    for (const kind of WAIVER_MAIL_KINDS) {
      const queued = await enqueueMail(tx, kind, inserted.id);
      if (queued) outboxIds.push(queued);
    }
    return { id: inserted.id, duplicate: false, outboxIds };
  });
}

/** The two e-mails every waiver owes: the studio's records copy and the participant's copy. */
export const WAIVER_MAIL_KINDS = ['waiver-records', 'waiver-participant'] as const;
export type WaiverMailKind = (typeof WAIVER_MAIL_KINDS)[number];

interface WaiverRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  emergency_name: string;
  emergency_phone: string;
  medical_conditions: string;
  medications: string;
  agreed_to_terms: boolean;
  agreed_to_photos: boolean;
  signature_png: Buffer;
  created_at: Date;
  client_ip: string | null;
  user_agent: string | null;
  text_version: string;
  text: string;
  waiver_text_sha256: string;
  records_mailed_at: Date | null;
  participant_mailed_at: Date | null;
}

/** Reads a stored waiver back, with the text it was signed under. */
export async function loadWaiver(id: string): Promise<WaiverRecord | undefined> {
  const [row] = await query<WaiverRow>(
    `SELECT w.*, t.version AS text_version, t.text
       FROM waivers w JOIN waiver_texts t ON t.sha256 = w.waiver_text_sha256
      WHERE w.id = $1`,
    [id],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    emergencyName: row.emergency_name,
    emergencyPhone: row.emergency_phone,
    medicalConditions: openHealthField(row.medical_conditions, 'medicalConditions'),
    medications: openHealthField(row.medications, 'medications'),
    agreedToTerms: row.agreed_to_terms,
    agreedToPhotos: row.agreed_to_photos,
    signaturePng: Buffer.from(row.signature_png),
    createdAt: new Date(row.created_at),
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    waiverText: { version: row.text_version, text: row.text, sha256: row.waiver_text_sha256 },
    recordsMailedAt: row.records_mailed_at,
    participantMailedAt: row.participant_mailed_at,
  };
}

/** A waiver stored before health data was encrypted (migration 0011) still reads as it was. */
function openHealthField(value: string, field: 'medicalConditions' | 'medications'): string {
  return isEncrypted(value) ? decryptField(value, field) : value;
}

/** Mirrors an outbox attempt onto the waiver's own mail columns, for the studio. */
export async function recordWaiverMailAttempt(
  id: string,
  kind: WaiverMailKind,
  outcome: AttemptOutcome,
): Promise<void> {
  const column = kind === 'waiver-records' ? 'records_mailed_at' : 'participant_mailed_at';
  await query(
    `UPDATE waivers
        SET ${column} = CASE WHEN $2::boolean THEN now() ELSE ${column} END,
            mail_attempts = mail_attempts + 1,
            mail_last_error = CASE WHEN $2::boolean THEN mail_last_error ELSE $3 END
      WHERE id = $1`,
    [id, outcome.sent, outcome.error && `${kind}: ${outcome.error}`.slice(0, 200)],
  );
}
