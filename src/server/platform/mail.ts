import { mkdir, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import { isHostedFunction } from './hosting';
import { pathIn, projectPath } from './paths';
import { missingSetting, readSetting } from './settings';
import { siteFacts } from './site-facts';

export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

/**
 * A calendar invitation or cancellation, as nodemailer's `icalEvent` takes it: nodemailer puts it
 * in the mail twice, as the `text/calendar; method=...` alternative calendar clients act on and as
 * an `.ics` attachment.
 */
export interface CalendarEvent {
  method: 'REQUEST' | 'CANCEL';
  filename: string;
  content: string;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
  attachments?: Attachment[];
  icalEvent?: CalendarEvent;
  /** A stable Message-ID (the outbox sets one per mail, so a repeated send is recognisable). */
  messageId?: string;
}

export interface MailSettings {
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
}

export function mailSettings(): MailSettings {
  return {
    smtpUrl: readSetting('SMTP_URL'),
    from:
      readSetting('MAIL_FROM') ?? `"${headerText(siteFacts().name)} website" <no-reply@localhost>`,
    outboxDir: readSetting('MAIL_OUTBOX_DIR') ?? projectPath('.netlify/outbox'),
  };
}

/** The studio's inbox: `CONTACT_TO`, else the e-mail in content/site.yaml. */
export function contactRecipient(): string {
  return readSetting('CONTACT_TO') ?? siteFacts().email;
}

/** Where signed waivers are filed: `WAIVER_RECORDS_TO`, else the contact inbox. */
export function waiverRecordsRecipient(): string {
  return readSetting('WAIVER_RECORDS_TO') ?? contactRecipient();
}

let smtp: { url: string; transport: Transporter } | undefined;

function smtpTransport(url: string): Transporter {
  if (smtp?.url !== url) {
    // A function has seconds, not nodemailer's default minutes, to find out the server is gone.
    smtp = {
      url,
      transport: nodemailer.createTransport({
        url,
        connectionTimeout: 5_000,
        greetingTimeout: 5_000,
        socketTimeout: 15_000,
      }),
    };
  }
  return smtp.transport;
}

/**
 * Sends through SMTP when `SMTP_URL` is set; otherwise writes the message as an .eml file to
 * the local outbox, so a fresh clone works with no mail account. Throws when it cannot send.
 */
export async function sendMail(mail: Mail): Promise<{ messageId: string; file?: string }> {
  const settings = mailSettings();
  const message = { ...mail, subject: headerText(mail.subject), from: settings.from };
  if (isHostedFunction()) {
    // A deployed function has no disk to keep a local outbox on, and no address to send from:
    // say which setting is missing, once, instead of failing on a read-only disk.
    if (!settings.smtpUrl) throw missingSetting('SMTP_URL', 'mail stays queued in mail_outbox');
    if (!readSetting('MAIL_FROM')) throw missingSetting('MAIL_FROM', 'mail stays queued');
  }
  if (settings.smtpUrl) {
    const info = await smtpTransport(settings.smtpUrl).sendMail(message);
    return { messageId: info.messageId };
  }
  const info = await nodemailer
    .createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
    .sendMail(message);
  await mkdir(settings.outboxDir, { recursive: true });
  const file = pathIn(
    settings.outboxDir,
    `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`,
  );
  await writeFile(file, info.message as Buffer);
  console.info(`No SMTP_URL set: wrote the e-mail to ${file}`);
  return { messageId: info.messageId, file };
}

/** Enough to tell a refused recipient from a dead server, and never the message itself. */
export function transportCode(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  return (
    [code, responseCode]
      .filter((part) => typeof part === 'string' || typeof part === 'number')
      .join(' ') || 'unknown error'
  );
}

/**
 * A visitor's text made safe for a header such as the subject: one line (control characters and
 * line breaks become spaces), and no `=?` left to start a MIME encoded word, which a mail client
 * would decode into text the visitor chose (a zero-width space after the `=` keeps the words as
 * typed, and makes the mailer encode the whole header itself).
 */
export function headerText(value: string): string {
  return value
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/=\?/g, '=\u200B?');
}

/** Escapes a visitor's text for HTML. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
