import { escapeHtml, sendMail, waiverRecordsRecipient } from './mail';
import { siteFacts } from './site';
import { formatUtc, renderWaiverPdf } from './waiver-pdf';
import { loadWaiver, markMailFailed, markMailed, type WaiverRecord } from './waiver';

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

/**
 * Mails a stored waiver: the full record to the studio and a copy without health details to
 * the participant. Each copy is marked once sent, so running it again (a retry job) only sends
 * what is missing. Returns true when both copies have gone out.
 */
export async function deliverWaiver(id: string): Promise<boolean> {
  const record = await loadWaiver(id);
  if (!record) throw new Error(`waiver ${id} not found`);
  const studio = siteFacts().name;
  const fullName = `${record.firstName} ${record.lastName}`;
  let delivered = true;

  const attempt = async (copy: 'records' | 'participant', send: () => Promise<unknown>) => {
    try {
      await send();
      await markMailed(id, copy);
    } catch (error) {
      delivered = false;
      // Only the id and a short reason: never the participant's details.
      const reason = `${copy}: ${(error as { code?: string })?.code ?? (error as Error)?.name ?? 'error'}`;
      console.error(`Waiver ${id}: could not send the ${copy} e-mail (${reason})`);
      await markMailFailed(id, reason).catch(() => undefined);
    }
  };

  if (!record.recordsMailedAt) {
    await attempt('records', async () => {
      const pdf = await renderWaiverPdf(record, studio, 'records');
      await sendMail({
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
      });
    });
  }
  if (!record.participantMailedAt) {
    await attempt('participant', async () => {
      const pdf = await renderWaiverPdf(record, studio, 'participant');
      await sendMail({
        to: record.email,
        subject: `Your signed liability waiver - ${studio}`,
        ...paragraphs([
          `Hello ${record.firstName},`,
          `Thank you for completing the liability waiver for ${studio}. A copy of what you signed on ${formatUtc(record.createdAt)} is attached for your records.`,
          'Your health information is kept on file with the studio and is not included in this copy.',
          `If any of your details or your health change significantly, just let us know. See you in the studio!`,
        ]),
        attachments: [
          {
            filename: pdfName(record, 'participant'),
            content: pdf,
            contentType: 'application/pdf',
          },
        ],
      });
    });
  }
  return delivered;
}
