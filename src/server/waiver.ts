import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Waiver } from '../lib/waiver';
import { contentPath } from './site';
import { decryptField, encryptField, isEncrypted } from './crypto';
import { query, transaction } from './db';
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

/**
 * Stores the waiver, its audit trail and (once) the text it was signed under, atomically. The
 * health fields are encrypted first (AES-256-GCM, see crypto.ts): the database never holds them
 * in clear. `spam` marks a waiver caught by the form's spam checks, kept for review, never mailed.
 */
export async function storeWaiver(
  waiver: Waiver,
  signaturePng: Buffer,
  audit: AuditTrail,
  text: WaiverText = currentWaiverText(),
  spam: SpamReason | null = null,
): Promise<string> {
  const medicalConditions = encryptField(waiver.medicalConditions, 'medicalConditions');
  const medications = encryptField(waiver.medications, 'medications');
  const id = randomUUID();
  await transaction(async (tx) => {
    await tx.query(
      `INSERT INTO waiver_texts (sha256, version, text) VALUES ($1, $2, $3)
       ON CONFLICT (sha256) DO NOTHING`,
      [text.sha256, text.version, text.text],
    );
    await tx.query(
      `INSERT INTO waivers (id, first_name, last_name, email, phone, emergency_name,
         emergency_phone, medical_conditions, medications, agreed_to_terms, agreed_to_photos,
         signature_png, signature_sha256, waiver_text_sha256, client_ip, user_agent, spam_reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [
        id,
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
      ],
    );
  });
  return id;
}

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

/** Waivers whose mail has not gone out yet, oldest first (for a retry job). */
export async function unmailedWaiverIds(limit = 50): Promise<string[]> {
  const rows = await query<{ id: string }>(
    `SELECT id FROM waivers
      WHERE (records_mailed_at IS NULL OR participant_mailed_at IS NULL) AND spam_reason IS NULL
      ORDER BY created_at LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.id);
}

export async function markMailed(id: string, copy: 'records' | 'participant'): Promise<void> {
  const column = copy === 'records' ? 'records_mailed_at' : 'participant_mailed_at';
  await query(`UPDATE waivers SET ${column} = now() WHERE id = $1`, [id]);
}

export async function markMailFailed(id: string, reason: string): Promise<void> {
  await query(
    `UPDATE waivers SET mail_attempts = mail_attempts + 1, mail_last_error = $2 WHERE id = $1`,
    [id, reason.slice(0, 200)],
  );
}
