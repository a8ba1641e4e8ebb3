import { escapeHtml, waiverRecordsRecipient, type Mail } from './mail';
import { registerComposer } from './outbox';
import { siteFacts } from './site';
import { formatUtc, renderWaiverPdf } from './waiver-pdf';
import {
  WAIVER_MAIL_KINDS,
  loadWaiver,
  recordWaiverMailAttempt,
  type WaiverMailKind,
  type WaiverRecord,
} from './waiver';

function pdfName(record: WaiverRecord, copy: 'records' | 'participant') {
  const name = `${record.lastName}-${record.firstName}`.replace(/[^\p{L}\p{N}]+/gu, '-');
  const day = record.createdAt.toISOString().slice(0, 10);
  return `waiver-${name}-${day}${copy === 'participant' ? '-copy' : ''}.pdf`.toLowerCase();
}

function paragraphs(lines: string[]) {
  return {
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n'),
  };
}

/** The studio's records copy: the full signed PDF, health information included. */
export async function composeRecordsMail(record: WaiverRecord): Promise<Mail> {
  const fullName = `${record.firstName} ${record.lastName}`;
  const pdf = await renderWaiverPdf(record, siteFacts().name, 'records');
  return {
    to: waiverRecordsRecipient(),
    replyTo: record.email,
    subject: `Signed waiver: ${fullName} (${record.createdAt.toISOString().slice(0, 10)})`,
    ...paragraphs([
      `${fullName} signed the liability waiver on ${formatUtc(record.createdAt)}.`,
      `Record ID: ${record.id}`,
      'The signed PDF, with health information and the audit trail, is attached. It contains health information: please file it securely.',
    ]),
    attachments: [
      { filename: pdfName(record, 'records'), content: pdf, contentType: 'application/pdf' },
    ],
  };
}

/** The participant's copy of what they signed; health details stay with the studio. */
export async function composeParticipantMail(record: WaiverRecord): Promise<Mail> {
  const studio = siteFacts().name;
  const pdf = await renderWaiverPdf(record, studio, 'participant');
  return {
    to: record.email,
    subject: `Your signed liability waiver - ${studio}`,
    ...paragraphs([
      `Hello ${record.firstName},`,
      `Thank you for completing the liability waiver for ${studio}. A copy of what you signed on ${formatUtc(record.createdAt)} is attached for your records.`,
      'Your health information is kept on file with the studio and is not included in this copy.',
      `If any of your details or your health change significantly, just let us know. See you in the studio!`,
    ]),
    attachments: [
      { filename: pdfName(record, 'participant'), content: pdf, contentType: 'application/pdf' },
    ],
  };
}

// The outbox composes each waiver mail from the stored record when it sends it (see outbox.ts).
const composers: Record<WaiverMailKind, (record: WaiverRecord) => Promise<Mail>> = {
  'waiver-records': composeRecordsMail,
  'waiver-participant': composeParticipantMail,
};
for (const kind of WAIVER_MAIL_KINDS) {
  registerComposer(
    kind,
    async (ref) => {
      const record = await loadWaiver(ref);
      return record && composers[kind](record);
    },
    (ref, outcome) => recordWaiverMailAttempt(ref, kind, outcome),
  );
}
