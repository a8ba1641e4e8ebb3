import { escapeHtml, waiverRecordsRecipient, type Mail } from '../platform/mail';
import { siteFacts } from '../platform/site-facts';
import { formatUtc, renderWaiverPdf, type PdfCopy } from './pdf';
import { pdfName, recordsPdf } from './records-pdf';
import { loadWaiver, type WaiverRecord } from './store';

/** The studio's records copy of a stored waiver, for the outbox; `undefined` when it is gone. */
export async function recordsMail(id: string): Promise<Mail | undefined> {
  const record = await loadWaiver(id);
  return record && composeRecordsMail(record);
}

/** The participant's copy of a stored waiver, for the outbox; `undefined` when it is gone. */
export async function participantMail(id: string): Promise<Mail | undefined> {
  const record = await loadWaiver(id);
  return record && composeParticipantMail(record);
}

function paragraphs(lines: string[]) {
  return {
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n'),
  };
}

async function attachment(record: WaiverRecord, copy: PdfCopy) {
  // The records copy is the one on record, made once and kept: the records desk serves its bytes.
  const content =
    copy === 'records'
      ? (await recordsPdf(record)).bytes
      : await renderWaiverPdf(record, siteFacts().name, copy);
  return { filename: pdfName(record, copy), content, contentType: 'application/pdf' };
}

/** The studio's records copy: the full signed PDF, health information included. */
export async function composeRecordsMail(record: WaiverRecord): Promise<Mail> {
  const fullName = `${record.firstName} ${record.lastName}`;
  return {
    to: waiverRecordsRecipient(),
    replyTo: record.email,
    subject: `Signed waiver: ${fullName} (${record.createdAt.toISOString().slice(0, 10)})`,
    ...paragraphs([
      `${fullName} signed the liability waiver on ${formatUtc(record.createdAt)}.`,
      `Record ID: ${record.id}`,
      'The signed PDF, with health information and the audit trail, is attached. It contains health information: please file it securely.',
    ]),
    attachments: [await attachment(record, 'records')],
  };
}

/** The participant's copy of what they signed; health details stay with the studio. */
export async function composeParticipantMail(record: WaiverRecord): Promise<Mail> {
  const studio = siteFacts().name;
  return {
    to: record.email,
    subject: `Your signed liability waiver - ${studio}`,
    ...paragraphs([
      `Hello ${record.firstName},`,
      `Thank you for completing the liability waiver for ${studio}. A copy of what you signed on ${formatUtc(record.createdAt)} is attached for your records.`,
      'Your health information is kept on file with the studio and is not included in this copy.',
      `If any of your details or your health change significantly, just let us know. See you in the studio!`,
    ]),
    attachments: [await attachment(record, 'participant')],
  };
}
