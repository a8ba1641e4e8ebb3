import { serviceLabel, type ContactMessage } from '../../shared/contact';
import { mailBody } from '../mail/blocks';
import { contactRecipient, type Mail } from '../platform/mail';
import { loadContactMessage } from './store';

/** The mail of a stored message, for the outbox; `undefined` when the message is gone. */
export async function contactMail(id: string): Promise<Mail | undefined> {
  const message = await loadContactMessage(id);
  return message && composeContactMail(message);
}

const UNTIMED =
  'Sent from a browser without JavaScript, so the form could not time it; the hidden spam field and the rate limit still checked it.';

/** The e-mail the studio receives. The server alone decides recipient, subject and body. */
export function composeContactMail(message: ContactMessage & { timed?: boolean }): Mail {
  const service = serviceLabel(message.service) ?? 'Not specified';
  return {
    to: contactRecipient(),
    // sendMail keeps the subject one line with no encoded word in it (headerText).
    subject: `New Inquiry from ${message.name}`,
    replyTo: message.email,
    ...mailBody(
      [
        { heading: `New Inquiry from ${message.name}` },
        {
          fields: [
            ['Name', message.name],
            ['Email', message.email],
            ['Service Interest', service],
          ],
          links: { Email: `mailto:${message.email}` },
        },
        'Message:',
        message.message,
      ],
      [
        ...(message.timed === false ? [UNTIMED] : []),
        `Reply to this e-mail to answer ${message.name} directly: replies go to ${message.email}.`,
      ],
    ),
  };
}
