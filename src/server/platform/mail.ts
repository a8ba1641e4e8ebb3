import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
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
  /**
   * A list mail's List-Id (RFC 2919) and List-Unsubscribe (RFC 2369), written by nodemailer; the
   * RFC 8058 one-click header goes in `headers`.
   */
  list?: {
    id: { url: string; comment: string };
    unsubscribe: { url: string; comment?: string };
  };
  headers?: Record<string, string>;
  /** A stable Message-ID (the outbox sets one per mail, so a repeated send is recognisable). */
  messageId?: string;
  /** The outbox row it is sent for: it names the mail's file when mail goes to the local folder. */
  outboxId?: string;
  /**
   * For a mail sent straight, not through the outbox (a sign-in link): its record's key, which
   * names its file the same way (`sign-in-<key>.eml`).
   */
  record?: { kind: 'sign-in'; key: string };
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

let smtp: { key: string; transport: Transporter } | undefined;

/**
 * The SMTP transport for `url`. An `smtps://` server speaks TLS from the first byte; on
 * `smtp://` the connection must be upgraded with STARTTLS before anything is sent (nodemailer's
 * `requireTLS`), so a server that does not offer it, or a machine in between that strips the
 * offer, gets no mail and no password: the mail stays in the outbox with the error. Only
 * SMTP_ALLOW_PLAINTEXT (a relay on the same machine) lets `smtp://` go in plaintext.
 */
function smtpTransport(url: string): Transporter {
  const requireTLS = !readSetting('SMTP_ALLOW_PLAINTEXT');
  const key = `${requireTLS} ${url}`;
  if (smtp?.key !== key) {
    // A function has seconds, not nodemailer's default minutes, to find out the server is gone.
    smtp = {
      key,
      transport: nodemailer.createTransport({
        url,
        requireTLS,
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
  const file = await writeMailFile(settings.outboxDir, fileName(mail), info.message as Buffer);
  console.info(`No SMTP_URL set: wrote the e-mail to ${file}`);
  return { messageId: info.messageId, file };
}

/**
 * The local mail folder (`MAIL_OUTBOX_DIR`, when there is no mail server) holds whole mails, the
 * studio's records copy of a waiver with its health information among them. So its files are
 * the site's only (mode 0600, in a folder made 0700), and every file is named one way, by the
 * record it was sent for: `outbox-<id>.eml` for a mail of the outbox (an erasure removes the
 * files of the mails it erases), `sign-in-<key>.eml` for a sign-in link (its row's key: the first
 * 16 hex digits of the link's SHA-256, never the link). The retention run removes every file
 * after a few days (content/retention.yaml, `mailFiles`).
 */
const fileOf = (outboxId: string) => `outbox-${outboxId.replace(/\D/g, '')}.eml`;

function fileName(mail: Mail): string {
  if (mail.outboxId) return fileOf(mail.outboxId);
  if (mail.record) return `${mail.record.kind}-${mail.record.key.replace(/[^0-9a-f]/g, '')}.eml`;
  throw new Error('sendMail: a mail names its outbox row or its record');
}

async function writeMailFile(dir: string, name: string, bytes: Buffer) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = pathIn(dir, name);
  // Written whole under a name of its own, then moved into place: a mail sent again replaces its
  // file, and no reader ever sees half of one.
  const draft = pathIn(dir, `.${randomUUID()}.tmp`);
  await writeFile(draft, bytes, { mode: 0o600 });
  await rename(draft, file);
  return file;
}

/** Removes the local files of these outbox mails (an erasure); those never written are skipped. */
export async function removeMailFiles(outboxIds: string[]): Promise<void> {
  const dir = mailSettings().outboxDir;
  await Promise.all(outboxIds.map((id) => rm(pathIn(dir, fileOf(id)), { force: true })));
}

/** The mails in the local folder last written before `cutoff` (none when there is no folder). */
export async function mailFilesBefore(cutoff: Date): Promise<string[]> {
  const dir = mailSettings().outboxDir;
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const old: string[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.eml'))) {
    const file = pathIn(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() && info.mtime < cutoff) old.push(file);
  }
  return old;
}

/** Removes the mails in the local folder last written before `cutoff`; how many went. */
export async function removeMailFilesBefore(cutoff: Date): Promise<number> {
  const files = await mailFilesBefore(cutoff);
  await Promise.all(files.map((file) => rm(file, { force: true })));
  return files.length;
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
