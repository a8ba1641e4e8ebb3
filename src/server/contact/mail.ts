import { serviceLabel, type ContactMessage } from '../../shared/contact';
import { contactRecipient, escapeHtml, type Mail } from '../platform/mail';
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
  const e = {
    name: escapeHtml(message.name),
    email: escapeHtml(message.email),
    service: escapeHtml(service),
    message: escapeHtml(message.message).replace(/\r\n|\r|\n/g, '<br>'),
  };
  const html = `<!doctype html>
<html>
<body style="font-family: Arial, sans-serif; color: #1e2a23; line-height: 1.5;">
<h2 style="margin: 0 0 16px;">New Inquiry from ${e.name}</h2>
<p><strong>Name:</strong> ${e.name}</p>
<p><strong>Email:</strong> <a href="mailto:${e.email}">${e.email}</a></p>
<p><strong>Service Interest:</strong> ${e.service}</p>
<p><strong>Message:</strong></p>
<p>${e.message}</p>
<hr>
${message.timed === false ? `<p style="color: #4a5650; font-size: 14px;">${UNTIMED}</p>\n` : ''}<p style="color: #4a5650; font-size: 14px;">Reply to this e-mail to answer ${e.name} directly: replies go to ${e.email}.</p>
</body>
</html>
`;
  const text = [
    `New Inquiry from ${message.name}`,
    '',
    `Name: ${message.name}`,
    `Email: ${message.email}`,
    `Service Interest: ${service}`,
    '',
    'Message:',
    message.message,
    '',
    '--',
    ...(message.timed === false ? [UNTIMED] : []),
    `Reply to this e-mail to answer ${message.name} directly: replies go to ${message.email}.`,
    '',
  ].join('\n');
  return {
    to: contactRecipient(),
    // sendMail keeps the subject one line with no encoded word in it (headerText).
    subject: `New Inquiry from ${message.name}`,
    replyTo: message.email,
    html,
    text,
  };
}
