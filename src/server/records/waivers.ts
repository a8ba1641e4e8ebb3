import {
  CONSENTS,
  SIGNATURE_KINDS,
  WAIVER_FIELDS,
  WAIVER_FIELD_NAMES,
  WAIVER_SECTIONS,
  isHealthField,
} from '../../shared/waiver';
import type { Page, WaiverRow, WaiverView } from '../../shared/desk-api';
import { query } from '../platform/db';
import type { SpamReason } from '../../shared/anti-spam';
import { loadWaiver } from '../waiver/store';
import { pageOf, PAGE_SIZE, textOrPhone, Where, type Filters } from './filters';
import { kindsAbout, mailLabel } from '../mail-kinds';
import { mailState } from './delivery';

export const isWaiverId = (id: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/**
 * Waivers whose name, e-mail or phone contains the search text (any case; a phone however
 * punctuated, so "5550142" finds "(503) 555-0142"), in the date range, newest first. Health
 * fields are sealed in the database, so they are never searched.
 */
export async function searchWaivers(filters: Filters): Promise<Page<WaiverRow>> {
  const where = new Where().range(filters, 'w', 'uuid');
  if (filters.text) {
    where.add(
      ...textOrPhone(
        filters.text,
        [`w.first_name || ' ' || w.last_name`, 'w.email', 'w.phone'],
        ['w.phone'],
      ),
    );
  }
  const rows = await query<{
    id: string;
    at_text: string;
    created_at: Date;
    first_name: string;
    last_name: string;
    email: string;
    phone: string;
    spam_reason: SpamReason | null;
  }>(
    `SELECT w.id, w.created_at, w.created_at::text AS at_text, w.first_name, w.last_name,
            w.email, w.phone, w.spam_reason
       FROM waivers w ${where.sql}
      ORDER BY w.created_at DESC, w.id DESC
      LIMIT ${where.param(PAGE_SIZE + 1)}`,
    where.params,
  );
  return pageOf(rows, (row) => ({
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    spamReason: row.spam_reason,
  }));
}

/** One waiver as the desk shows it: every field (health decrypted), its trail, PDF and mails. */
export async function waiverView(id: string): Promise<WaiverView | undefined> {
  if (!isWaiverId(id)) return undefined;
  const record = await loadWaiver(id);
  if (!record) return undefined;
  const [pdf] = await query<{ sha256: string; created_at: Date }>(
    `SELECT sha256, created_at FROM waiver_pdfs WHERE waiver_id = $1`,
    [id],
  );
  const mails = await query<{
    kind: string;
    sent_at: Date | null;
    failed_at: Date | null;
    skipped: string | null;
  }>(
    `SELECT kind, sent_at, failed_at, skipped FROM mail_outbox
      WHERE ref = $1 AND kind = ANY($2::text[])
      ORDER BY id`,
    [id, kindsAbout('waiver')],
  );
  return {
    id: record.id,
    createdAt: record.createdAt.toISOString(),
    fullName: `${record.firstName} ${record.lastName}`,
    email: record.email,
    fields: WAIVER_FIELD_NAMES.map((name) => {
      const spec = WAIVER_FIELDS[name];
      return {
        name,
        label: spec.label,
        section: WAIVER_SECTIONS[spec.section],
        value: record[name],
        health: isHealthField(name),
      };
    }),
    consents: Object.entries(CONSENTS).map(([name, label]) => ({
      name,
      label,
      value: record[name as keyof typeof CONSENTS],
    })),
    signature: `data:image/png;base64,${record.signaturePng.toString('base64')}`,
    audit: {
      signedAt: record.createdAt.toISOString(),
      clientIp: record.clientIp,
      userAgent: record.userAgent,
      textVersion: record.waiverText.version,
      textSha256: record.waiverText.sha256,
      signature: SIGNATURE_KINDS[record.signatureKind],
      signatureName: record.signatureName,
      timed: record.timed,
    },
    spamReason: record.spamReason,
    pdf: pdf ? { sha256: pdf.sha256, createdAt: new Date(pdf.created_at).toISOString() } : null,
    mails: mails.map((mail) => ({
      kind: mail.kind,
      label: mailLabel(mail.kind),
      state: mailState(mail.sent_at, mail.failed_at, mail.skipped),
    })),
  };
}
