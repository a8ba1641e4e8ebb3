/**
 * Every kind of mail the site sends through its outbox, in one list: how each is composed from
 * the id of the row it is about, which kind of record that row is, and what the records desk
 * calls it. Adding a kind is an entry here and its composer.
 *
 * The site's outbox is made from this list (`createOutbox`), and it is the only way to queue a
 * mail: a kind is queued by its name here, so a kind without a composer cannot be queued at all.
 * The list sits above the features whose mail it composes; the outbox, below them, only runs it.
 *
 * Each composer loads its module when it first runs, so a function bundles every composer but
 * starts up without the PDF renderer unless it sends a waiver.
 */
import type { RecordKind } from '../shared/desk-api';
import { createOutbox, type MailKindSpec } from './platform/outbox';

export interface MailKindEntry extends MailKindSpec {
  /** The kind of record its `ref` names (the desk's delivery list, a participant's erasure). */
  about: RecordKind;
  /** What the records desk calls it. */
  label: string;
}

export const MAIL_KINDS = {
  /** The visitor's message, to the studio's inbox. */
  contact: {
    compose: async (ref) => (await import('./contact/mail')).contactMail(ref),
    about: 'message',
    label: 'Message to the studio',
  },
  /** The signed waiver with health information, to the studio's records inbox. */
  'waiver-records': {
    compose: async (ref) => (await import('./waiver/mail')).recordsMail(ref),
    about: 'waiver',
    label: "Signed waiver to the studio's records",
  },
  /** The participant's copy: nothing typed into the form but the first name (waiver/mail.ts). */
  'waiver-participant': {
    compose: async (ref) => (await import('./waiver/mail')).participantMail(ref),
    about: 'waiver',
    label: "Participant's copy of their waiver",
  },
  /** A request to sign a material new version, to a participant (ref `<waiver id>:<version>`). */
  'waiver-re-sign': {
    compose: async (ref) => (await import('./waiver/re-sign')).reSignMail(ref),
    about: 'waiver',
    label: 'Request to sign the updated waiver',
  },
  // A booking's mails are composed from `<booking id>:<sequence>`: one version of the booking.
  /** The visitor's invite (METHOD:REQUEST): at booking, and after every move. */
  'booking-visitor': {
    compose: async (ref) => (await import('./booking/mail')).visitorInviteMail(ref),
    about: 'booking',
    label: "Visitor's consultation invite",
  },
  /** The instructor's invite (METHOD:REQUEST), to the studio's inbox. */
  'booking-studio': {
    compose: async (ref) => (await import('./booking/mail')).studioInviteMail(ref),
    about: 'booking',
    label: "Studio's consultation invite",
  },
  /** The visitor's cancellation (METHOD:CANCEL, same UID, higher SEQUENCE). */
  'booking-cancel-visitor': {
    compose: async (ref) => (await import('./booking/mail')).visitorCancelMail(ref),
    about: 'booking',
    label: "Visitor's consultation cancellation",
  },
  /** The instructor's cancellation (METHOD:CANCEL), to the studio's inbox. */
  'booking-cancel-studio': {
    compose: async (ref) => (await import('./booking/mail')).studioCancelMail(ref),
    about: 'booking',
    label: "Studio's consultation cancellation",
  },
  /** The visitor's reminder, due a day before; retired if the booking moved or was cancelled. */
  'booking-reminder': {
    compose: async (ref) => (await import('./booking/mail')).reminderMail(ref),
    about: 'booking',
    label: 'Consultation reminder',
  },
  // A private or in-home session's mails, from `<session id>:<sequence>` (booking/session-mail.ts).
  /** The visitor's invite (METHOD:REQUEST) with the amount due and the policy: at booking, after a move. */
  'session-visitor': {
    compose: async (ref) => (await import('./booking/session-mail')).sessionVisitorMail(ref),
    about: 'booking',
    label: "Visitor's session invite",
  },
  /** The instructor's invite (METHOD:REQUEST), to the studio's inbox. */
  'session-studio': {
    compose: async (ref) => (await import('./booking/session-mail')).sessionStudioMail(ref),
    about: 'booking',
    label: "Studio's session invite",
  },
  /** The visitor's cancellation (METHOD:CANCEL, same UID, higher SEQUENCE). */
  'session-cancel-visitor': {
    compose: async (ref) => (await import('./booking/session-mail')).sessionVisitorCancelMail(ref),
    about: 'booking',
    label: "Visitor's session cancellation",
  },
  /** The instructor's cancellation (METHOD:CANCEL), to the studio's inbox. */
  'session-cancel-studio': {
    compose: async (ref) => (await import('./booking/session-mail')).sessionStudioCancelMail(ref),
    about: 'booking',
    label: "Studio's session cancellation",
  },
  /** The visitor's reminder, due a day before; retired if the session moved or was cancelled. */
  'session-reminder': {
    compose: async (ref) => (await import('./booking/session-mail')).sessionReminderMail(ref),
    about: 'booking',
    label: 'Session reminder',
  },
  /**
   * A payment refunded, the visitor told: one that came after its place went, or one she refunded
   * on the desk (`<session or class place id>:refund-<refund id>`).
   */
  'payment-refunded': {
    compose: async (ref) =>
      (await (await import('./booking/session-refund-mail')).sessionRefundedMail(ref)) ??
      (await import('./classes/mail')).classRefundedMail(ref),
    about: 'booking',
    label: 'Payment refunded',
  },
  /** A payment that was not the price asked for, refunded and nothing booked: to the studio. */
  'payment-mismatch': {
    compose: async (ref) =>
      (await (
        await import('./booking/session-refund-mail')
      ).sessionStudioRefundMail(ref, 'mismatch')) ??
      (await import('./classes/mail')).classStudioRefundMail(ref, 'mismatch'),
    about: 'booking',
    label: 'Payment not the price asked for',
  },
  /** A refund Stripe would not make, to the studio (`<session or class place id>:refund-<refund id>`). */
  'refund-refused': {
    compose: async (ref) =>
      (await (
        await import('./booking/session-refund-mail')
      ).sessionStudioRefundMail(ref, 'refused')) ??
      (await import('./classes/mail')).classStudioRefundMail(ref, 'refused'),
    about: 'booking',
    label: 'Refund Stripe would not make',
  },
  // The classes' mails (src/server/classes/mail.ts): a place's ref is `<place id>:<sequence>`, a
  // class date's `<date id>:<sequence>`, a waitlist entry's `<entry id>:<step>`.
  /** The participant's confirmation with the invite (METHOD:REQUEST) and the amount due. */
  'class-visitor': {
    compose: async (ref) => (await import('./classes/mail')).visitorMail(ref),
    about: 'booking',
    label: "Participant's class confirmation",
  },
  /** The participant's reminder a day before; retired once the place is cancelled. */
  'class-reminder': {
    compose: async (ref) => (await import('./classes/mail')).reminderMail(ref),
    about: 'booking',
    label: 'Class reminder',
  },
  /** The participant's cancellation (METHOD:CANCEL): as asked, too few booked, or the studio's. */
  'class-cancel-visitor': {
    compose: async (ref) => (await import('./classes/mail')).visitorCancelMail(ref),
    about: 'booking',
    label: "Participant's class cancellation",
  },
  /** The studio's notice of a place booked or cancelled. */
  'class-studio': {
    compose: async (ref) => (await import('./classes/mail')).studioMail(ref),
    about: 'booking',
    label: "Studio's notice of a class place",
  },
  /** The instructor's own event of a class date (REQUEST when first booked, CANCEL when cancelled). */
  'class-calendar': {
    compose: async (ref) => (await import('./classes/mail')).calendarMail(ref),
    about: 'booking',
    label: "Studio's class invite",
  },
  /** To a person who joined a full class's waitlist. */
  'class-waitlist': {
    compose: async (ref) => (await import('./classes/mail')).waitlistMail(ref),
    about: 'booking',
    label: 'Class waitlist confirmation',
  },
  /** A freed place offered to the first person waiting: the claim link and its hold time. */
  'class-offer': {
    compose: async (ref) => (await import('./classes/mail')).offerMail(ref),
    about: 'booking',
    label: 'Class place offered from the waitlist',
  },
  /** The waitlist closed (the cutoff) or the class was cancelled, with no place for them. */
  'class-waitlist-closed': {
    compose: async (ref) => (await import('./classes/mail')).waitlistClosedMail(ref),
    about: 'booking',
    label: 'Class waitlist closed',
  },
  // The Get Notified list's mails are composed from `<subscriber id>:<confirmation or announcement id>`.
  /** The link that confirms a sign-up (double opt-in). */
  'list-confirm': {
    compose: async (ref) => (await import('./list/mail')).confirmMail(ref),
    about: 'subscriber',
    label: 'Get Notified confirmation',
  },
  /** An event's announcement, to one confirmed address; retired if it unsubscribed meanwhile. */
  'list-announcement': {
    compose: async (ref) => (await import('./list/mail')).announcementMail(ref),
    about: 'subscriber',
    label: 'Event announcement',
  },
} as const satisfies Record<string, MailKindEntry>;

export type MailKind = keyof typeof MAIL_KINDS;

/** The site's outbox: queues, sends and retries the mail of these kinds. */
export const outbox = createOutbox<MailKind>(MAIL_KINDS);

export function isMailKind(kind: string): kind is MailKind {
  return Object.hasOwn(MAIL_KINDS, kind);
}

/** The kinds of mail composed from a waiver, a message, or a booking. */
export function kindsAbout(record: RecordKind): MailKind[] {
  return (Object.keys(MAIL_KINDS) as MailKind[]).filter(
    (kind) => MAIL_KINDS[kind].about === record,
  );
}

/** What the desk calls a kind of mail (its name, for a kind no longer listed). */
export function mailLabel(kind: string): string {
  return isMailKind(kind) ? MAIL_KINDS[kind].label : kind;
}

/** The kind of record a mail is about, if its kind is listed. */
export function mailAbout(kind: string): RecordKind | undefined {
  return isMailKind(kind) ? MAIL_KINDS[kind].about : undefined;
}
