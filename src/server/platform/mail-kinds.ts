/**
 * Every kind of mail the outbox may hold, and how each is composed from the id of the row it is
 * about. The outbox imports this list on purpose: a kind is queued only by its name here
 * (`enqueueMail` takes a `MailKind`), so a kind without a composer cannot be queued at all.
 *
 * Each composer loads its module when it first runs, so a function bundles every composer but
 * starts up without the PDF renderer unless it sends a waiver.
 */
import type { Mail } from './mail';

/** Builds the mail from the id of its source row; `undefined` when that row is gone. */
export type Composer = (ref: string) => Promise<Mail | undefined>;

export const MAIL_KINDS = {
  /** The visitor's message, to the studio's inbox. */
  contact: async (ref) => (await import('../contact/mail')).contactMail(ref),
  /** The signed waiver with health information, to the studio's records inbox. */
  'waiver-records': async (ref) => (await import('../waiver/mail')).recordsMail(ref),
  /** The participant's copy, without health information. */
  'waiver-participant': async (ref) => (await import('../waiver/mail')).participantMail(ref),
} satisfies Record<string, Composer>;

export type MailKind = keyof typeof MAIL_KINDS;

export function isMailKind(kind: string): kind is MailKind {
  return Object.hasOwn(MAIL_KINDS, kind);
}
