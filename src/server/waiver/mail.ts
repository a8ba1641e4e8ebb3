import { mailBody } from '../mail/blocks';
import { waiverRecordsRecipient, type Mail } from '../platform/mail';
import { siteFacts } from '../platform/site-facts';
import { signedAt, ON_FILE, renderParticipantPdf, type PdfCopy } from './pdf';
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

async function attachment(record: WaiverRecord, copy: PdfCopy) {
  // The records copy is the one on record, made once and kept: the records desk serves its bytes.
  const facts = siteFacts();
  const content =
    copy === 'records'
      ? (await recordsPdf(record)).bytes
      : await renderParticipantPdf(record, { name: facts.name, email: facts.email });
  return { filename: pdfName(record, copy), content, contentType: 'application/pdf' };
}

/** The studio's records copy: the full signed PDF, health information included. */
export async function composeRecordsMail(record: WaiverRecord): Promise<Mail> {
  const fullName = `${record.firstName} ${record.lastName}`;
  return {
    to: waiverRecordsRecipient(),
    replyTo: record.email,
    subject: `Signed waiver: ${fullName} (${signedAt(record.createdAt).day})`,
    ...mailBody(
      [
        `${fullName} signed the liability waiver on ${signedAt(record.createdAt).local}.`,
        `Record ID: ${record.id}`,
        'The signed PDF, with health information and the audit trail, is attached. It contains health information: please file it securely.',
      ],
      [`Reply to this e-mail to write to ${fullName}: replies go to ${record.email}.`],
    ),
    attachments: [await attachment(record, 'records')],
  };
}

/**
 * The participant's copy. Anyone can type anyone's address into the form, so this mail goes to an
 * address nobody verified: it carries nothing the visitor typed but the first name (no other
 * field, no signature image, no audit trail), so the studio's domain cannot be made to send a
 * stranger anyone's words. It holds the studio's own: the day, the waiver text signed and its
 * version, and how to ask the studio for the full copy (a reply reaches the studio).
 */
export async function composeParticipantMail(record: WaiverRecord): Promise<Mail> {
  const { name: studio, email: studioEmail } = siteFacts();
  return {
    to: record.email,
    replyTo: studioEmail,
    subject: `Your signed liability waiver - ${studio}`,
    ...mailBody(
      [
        `Hello ${record.firstName},`,
        `Thank you for completing the liability waiver for ${studio} on ${signedAt(record.createdAt).local}. The waiver text you agreed to (version ${record.waiverText.version}) is attached for your records.`,
        `This e-mail holds none of the details you typed into the form. ${ON_FILE(studioEmail)} Replying to this e-mail reaches the studio too.`,
        'If any of your details or your health change significantly, just let us know. See you in the studio!',
      ],
      [`You get this e-mail because this address was given on a liability waiver for ${studio}.`],
    ),
    attachments: [await attachment(record, 'participant')],
  };
}
