/**
 * The records desk's words and the types of what it shows: what its API (src/server/records/api.ts)
 * answers and its island (src/islands/records/) reads, the island through Hono's typed client.
 * Types and words only, no server code, so the island bundles none.
 *
 * Every JSON answer has the site's answer shape: `{ success: true, ... }` (with `id` when it is
 * about one record) or `{ success: false, error, fieldErrors? }` with an error status.
 */
import type { FieldErrors } from './fields';
import type { SpamReason } from './anti-spam';

export type { SpamReason };

export const DESK_API = '/api/records';

/** How long a sign-in link works, and a session lasts: at most, and without a request. */
export const LINK_MINUTES = 15;
export const SESSION_HOURS = 12;
export const IDLE_MINUTES = 30;
/** An erasure, or an export with health information, asks for a sign-in at most this old. */
export const FRESH_SIGN_IN_MINUTES = 15;

/** Why such a request was refused (403, with `reason: 'fresh-sign-in'`). */
export const FRESH_SIGN_IN_NEEDED = `For this, please sign in again with a fresh link: your last sign-in was more than ${FRESH_SIGN_IN_MINUTES} minutes ago.`;

/** What the desk says when it closed itself after IDLE_MINUTES without use. */
export const SIGNED_OUT_IDLE = `You were signed out after ${IDLE_MINUTES} minutes without use. Please sign in again.`;

/** The one answer to every sign-in request, whoever asks: it reveals nothing. */
export const SIGN_IN_SENT = `If that address may sign in, a link is on its way. It works once, within ${LINK_MINUTES} minutes.`;

export const LINK_REFUSED =
  'This sign-in link has expired or was already used. Ask for a new one on the records desk.';

export type DeskAnswer<T extends object = object> =
  | ({ success: true } & T)
  | { success: false; error: string; fieldErrors?: FieldErrors; reason?: RefusalReason };

/**
 * A refusal the desk handles in its own way: a sign-in too old for what was asked, or a device
 * that is the studio's waiver kiosk (403 for every desk request; 409 for a sign-in link followed
 * on it without saying that the kiosk may be turned off).
 */
export type RefusalReason = 'fresh-sign-in' | 'kiosk';

/** Every desk request from a waiver kiosk is refused with these words. */
export const KIOSK_DEVICE =
  'This device is the studio’s waiver kiosk, so the records desk does not open on it. To use the desk here, turn the kiosk off on the desk of another device (Kiosk, then Turn off), or open a sign-in link on this device: it asks before it turns the kiosk off.';

/** A sign-in link followed on a kiosk: it is not spent until she says the kiosk may go. */
export const KIOSK_SIGN_IN =
  'This device is the studio’s waiver kiosk. Signing in turns the kiosk off on it: the waiver form here becomes the ordinary one again.';

/** A page of a list, newest first; `next` fetches the older ones (keyset paging). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface Undelivered {
  /** Still being tried. */
  owed: number;
  /** Given up on: waiting for "send again". */
  failed: number;
}

export interface SessionInfo {
  email: string;
  expiresAt: string;
  /** Signed in under FRESH_SIGN_IN_MINUTES ago: an erasure or a health export may go ahead. */
  fresh: boolean;
  undelivered: Undelivered;
  counts: { waivers: number; waiversThisWeek: number; messages: number; spam: number };
}

export const SPAM_WORDS: Record<SpamReason, string> = {
  honeypot: 'filled in the hidden field only bots see',
  'too-fast': 'sent faster than a person can type',
  'no-timer': 'sent without the form (no timer)',
};

export interface WaiverRow {
  id: string;
  createdAt: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  spamReason: SpamReason | null;
}

export interface WaiverField {
  name: string;
  label: string;
  section: string;
  value: string;
  health: boolean;
}

/** `skipped`: held back on purpose (a participant's copy past the day's limit to one address). */
export type MailState = 'sent' | 'owed' | 'failed' | 'skipped';

export interface WaiverView {
  id: string;
  createdAt: string;
  fullName: string;
  email: string;
  /** Every field of WAIVER_FIELDS, by section, health information decrypted. */
  fields: WaiverField[];
  consents: { name: string; label: string; value: boolean }[];
  /** The drawn signature as a PNG data URL (the pages' policy allows `img-src data:`). */
  signature: string;
  audit: {
    signedAt: string;
    clientIp: string | null;
    userAgent: string | null;
    textVersion: string;
    textSha256: string;
    /** How the signature was made, in words (drawn, or a typed name drawn by the pad or server). */
    signature: string;
    /** The name typed to sign, for a typed signature. */
    signatureName: string | null;
    /** The form's time trap ran (not for a form sent without JavaScript). */
    timed: boolean;
  };
  spamReason: SpamReason | null;
  /** The records PDF's SHA-256, recorded when it was made; `null` before it is made. */
  pdf: { sha256: string; createdAt: string } | null;
  mails: { kind: string; label: string; state: MailState }[];
}

/**
 * Where a participant (everyone who signed with one e-mail address, in any case) stands: their
 * latest waiver is under the version in force (or a later non-material one), under an older
 * one, older than the studio's optional validity, or there is none.
 */
export type WaiverStatus = 'covered' | 'older' | 'expired' | 'none';

export const STATUS_WORDS: Record<WaiverStatus, string> = {
  covered: 'Covered',
  older: 'Signed an older version',
  expired: 'Expired',
  none: 'Nothing on file',
};

export interface ParticipantStatus {
  status: WaiverStatus;
  /** Their latest waiver: when, and under which version of the text. */
  signedAt: string | null;
  version: string | null;
}

export interface ParticipantRow extends ParticipantStatus {
  /** Their latest waiver; the participant's own page is reached through it. */
  waiverId: string;
  name: string;
  email: string;
  waivers: number;
}

export interface ParticipantView extends ParticipantRow {
  /** Every waiver they signed, newest first. */
  signed: { id: string; createdAt: string; version: string; name: string }[];
  /** A re-sign request for the version in force was sent to them, and when. */
  reSignRequestedAt: string | null;
}

/** A participant's health information (a logged view): their latest, and what last changed. */
export interface ParticipantHealth {
  latest: WaiverField[];
  /** The last waiver whose health fields differ from the one before it, and which differ. */
  lastChange: { at: string; waiverId: string; fields: string[] } | null;
  /** When the health information was first given (their first waiver). */
  since: string;
}

/** A text that was signed, exactly as signed, with how many waivers are under it. */
export interface WaiverTextRow {
  sha256: string;
  version: string;
  /** Whether its version is material; `null` for a text that is not a published version. */
  material: boolean | null;
  inForce: boolean;
  firstSignedAt: string;
  signatures: number;
  text: string;
}

export interface WaiverTexts {
  texts: WaiverTextRow[];
  /** The version in force, and whether it asks earlier signers to sign again. */
  current: { version: string; material: boolean; reSignFrom: string };
  validForMonths: number | null;
}

/** A device turned into the studio's waiver kiosk. */
export interface KioskRow {
  id: string;
  label: string;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** The device asking is this kiosk. */
  thisDevice: boolean;
}

/** Someone whose latest waiver is under a version before the one they must sign. */
export interface ReSignRow {
  waiverId: string;
  name: string;
  email: string;
  version: string;
  signedAt: string;
  requestedAt: string | null;
}

export interface MessageRow {
  id: string;
  createdAt: string;
  name: string;
  email: string;
  /** The service's label, or '' when none was chosen. */
  service: string;
  message: string;
  spamReason: SpamReason | null;
  /** Where its mail to the studio stands; `null` for spam (never queued). */
  mail: MailState | null;
  /** The sender's waiver status, by their e-mail address in any case. */
  waiverStatus: WaiverStatus;
}

/** The kinds of record the desk holds: signed waivers, messages to the studio, consultations. */
export type RecordKind = 'waiver' | 'message' | 'booking' | 'subscriber';

export interface MailRow {
  id: string;
  kind: string;
  label: string;
  /** The record the mail is about, if it is still there. */
  about: { kind: RecordKind; id: string; name: string } | null;
  state: 'owed' | 'failed';
  createdAt: string;
  attempts: number;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

export interface LogRow {
  id: string;
  at: string;
  actor: string;
  action: string;
  recordKind: string | null;
  recordId: string | null;
  detail: Record<string, unknown>;
}

/** Everything the access log records, in words. */
export const ACTION_WORDS = {
  'sign-in': 'Signed in',
  'sign-out': 'Signed out',
  'sign-out-everywhere': 'Signed out everywhere',
  'view-waiver': 'Opened a waiver with its health information',
  'view-participant-health': "Opened a participant's health information",
  'request-re-sign': 'Sent re-sign requests',
  'kiosk-on': 'Turned a device into a waiver kiosk',
  'kiosk-off': 'Turned a waiver kiosk off',
  'download-pdf': 'Downloaded a signed waiver PDF',
  'export-waivers': 'Exported waivers',
  'export-messages': 'Exported messages',
  'export-bookings': 'Exported bookings and payments',
  'not-spam': 'Marked a message as not spam',
  'send-again': 'Sent an e-mail again',
  erase: "Erased a participant's records",
  'rotate-key': 'Re-encrypted the health information with a new key',
  retention: 'Removed records past their keeping time',
  restore: 'Restored the records from a backup',
  'cancel-booking': 'Cancelled a consultation',
  'cancel-session': 'Cancelled a session',
  'cancel-place': "Cancelled a person's place in a class",
  'cancel-class': 'Cancelled a class date',
  'add-class': 'Added a single class date',
  'mark-paid': 'Marked a booking paid at the studio',
  'unmark-paid': 'Took back a payment marked at the studio',
  'mark-no-show': 'Marked a no-show',
  'unmark-no-show': 'Took back a no-show',
  refund: 'Refunded a payment',
  'block-time': 'Blocked time for consultations',
  'unblock-time': 'Removed a block of time',
  'new-feed-address': 'Made a new address for the consultations calendar',
  'export-list': 'Exported the Get Notified list',
  'remove-from-list': 'Removed an address from the Get Notified list',
  announce: 'Sent an event announcement to the list',
} as const;

export type DeskAction = keyof typeof ACTION_WORDS;

/**
 * Who did it, in words, for the log's entries made by the site itself rather than a person
 * signed in (the names stored are the retention run's and the key rotation command's).
 */
export const ACTOR_WORDS: Record<string, string> = {
  'the retention schedule': 'The site’s daily clean-up',
  'npm run rotate-key': 'Whoever runs the site',
  'npm run restore': 'Whoever runs the site',
};

/** One retention rule in the desk's preview: what it removes, after how long, and how many. */
export interface RetentionCount {
  name: string;
  /** One, many: 'message taken for spam', 'messages taken for spam'. */
  what: readonly [string, string];
  /** Its keeping time, e.g. '30 days'. */
  keep: string;
  /** From when the keeping time runs, e.g. 'from arrival'. */
  from: string;
  count: number;
}

/** What a retention run removed, as its tombstone in the access log says. */
export interface RetentionRemoved {
  name: string;
  one: string;
  many: string;
  count: number;
}

/** The desk's retention panel: the next run, what it will remove, and the last that removed any. */
export interface RetentionPreview {
  /** When the next run happens. */
  next: string;
  items: RetentionCount[];
  last: { at: string; removed: RetentionRemoved[] } | null;
}

export interface ErasurePreview {
  waivers: { id: string; createdAt: string }[];
  messages: { id: string; createdAt: string }[];
  /**
   * Consultations, sessions, class places and waitlist entries booked with the address; `start`
   * is when each is (or was).
   */
  bookings: { id: string; start: string; upcoming: boolean }[];
  /** The address is on the Get Notified list (in any state). */
  listed: boolean;
  mails: number;
}

export interface Erased {
  waivers: number;
  messages: number;
  bookings: number;
  /** Its row on the Get Notified list (0 or 1), with its confirmations. */
  subscriptions: number;
  mails: number;
  pdfs: number;
}

/** One consultation as the desk lists it. Times are instants; the desk shows them in `timeZone`. */
export interface BookingRow {
  id: string;
  start: string;
  end: string;
  name: string;
  email: string;
  phone: string;
  topic: string;
  createdAt: string;
  cancelledAt: string | null;
  /** 'visitor' (from the link in their mail), or the staff address that cancelled it. */
  cancelledBy: string | null;
  cancelNote: string | null;
  spamReason: SpamReason | null;
  /** Their waiver status, by the e-mail address in any case. */
  waiverStatus: WaiverStatus;
  /**
   * Still to come and not cancelled, but no longer inside the weekly hours (they changed after
   * it was booked): it stays booked until someone cancels it.
   */
  outsideHours: boolean;
}

/** Upcoming consultations soonest first, past ones latest first. */
export type BookingsWhen = 'upcoming' | 'past';

export interface BookingsPage extends Page<BookingRow> {
  /** The studio's zone, which every time of a consultation is shown in. */
  timeZone: string;
  /**
   * Upcoming (first page only): the consultations to come that one network holds, where it
   * holds several (the network itself is never named).
   */
  crowded?: CrowdedNetwork[];
}

/** Consultations to come booked from one network, soonest first. */
export interface CrowdedNetwork {
  bookings: { id: string; name: string; start: string }[];
}

/** A span blocked on the desk: no consultation is offered inside it. */
export interface BlockRow {
  id: string;
  start: string;
  end: string;
  note: string;
  createdBy: string;
  createdAt: string;
}

/** The instructor's own calendar (CONSULTATION_BUSY_ICS_URL): how its last reads went. */
export interface BusyFeedInfo {
  configured: boolean;
  /** Which address it is (its host), never the secret part. */
  hint: string | null;
  /** The last copy that could be read, and how many events it holds. */
  fetchedAt: string | null;
  events: number | null;
  unreadable: number | null;
  /** The last attempt, and what went wrong then (`null`: it went well). */
  checkedAt: string | null;
  error: string | null;
}

export interface ConsultationsCalendar {
  timeZone: string;
  busy: BusyFeedInfo;
  /** The subscribable feed of bookings: whether an address exists, and since when. */
  feed: { exists: boolean; createdAt: string | null };
  blocks: BlockRow[];
  /** How many consultations still to come (not cancelled) lie outside the weekly hours now. */
  outsideHours: number;
}

/** The longest note the studio may send with a cancellation, and a block's note. */
export const NOTE_MAX = 1000;

/** The Get Notified list's counts: confirmed (mailed), pending (never confirmed), unsubscribed. */
export interface ListCounts {
  confirmed: number;
  pending: number;
  unsubscribed: number;
}

/** An event the build lists as still to come, and whether it was announced. */
export interface ListEvent {
  id: string;
  title: string;
  when: string;
  place: string;
  announced: { at: string; recipients: number; sent: number } | null;
}

/** The desk's List screen. */
export interface ListOverview {
  counts: ListCounts;
  events: ListEvent[];
}

// ---- Bookings: consultations, sessions and classes, today and to come, on one screen.

/**
 * Where a booking's money stands: due at the studio, being paid online now (the place held),
 * paid at the studio, paid online, or refunded (in full). Amounts in cents, from content.
 */
export type PaymentState = 'due' | 'paying' | 'paid-studio' | 'paid-online' | 'refunded';

export interface PaymentView {
  state: PaymentState;
  amountCents: number;
  /** Refunded or being refunded (every refund not refused by Stripe). */
  refundedCents: number;
  /** Of which Stripe has not confirmed yet. */
  refundPendingCents: number;
  /** What may still be refunded: paid online, less every refund. */
  refundableCents: number;
  /** Refunds Stripe would not make (counted as nothing), with Stripe's words. */
  refused: { amountCents: number; words: string }[];
}

export interface BookedPerson {
  name: string;
  email: string;
  phone: string;
  waiverStatus: WaiverStatus;
}

/** A consultation or a private or in-home session. */
export interface DeskBooking {
  kind: 'consultation' | 'session';
  id: string;
  title: string;
  /** At the visitor's address: the street and ZIP code; else null (the studio). */
  address: string | null;
  start: string;
  end: string;
  person: BookedPerson;
  /** null for a consultation (nothing to pay). */
  payment: PaymentView | null;
  noShow: boolean;
  cancelledAt: string | null;
  cancelledBy: string | null;
  /** Still to come, booked before her weekly hours changed, and outside them now. */
  outsideHours: boolean;
}

/** One place in a class, as only the studio sees it. */
export interface DeskPlace {
  id: string;
  /** 'offered': held for the first person waiting, until they claim it. */
  status: 'booked' | 'offered' | 'cancelled';
  person: BookedPerson;
  payment: PaymentView;
  noShow: boolean;
}

/** One date of a class: of the timetable (nobody booked yet: `id` null) or added on the desk. */
export interface DeskClass {
  id: string | null;
  key: string;
  title: string;
  start: string;
  end: string;
  capacity: number;
  minimum: number;
  priceCents: number;
  booked: number;
  cancelledAt: string | null;
  /** Why it was cancelled: too few booked at its cutoff, or on the desk. */
  cancelReason: 'minimum' | 'studio' | null;
  /** Added on the desk as a single date (not a date of the timetable). */
  single: boolean;
  /** Booked, and no longer a time of her timetable (it changed since). */
  outsideTimetable: boolean;
  places: DeskPlace[];
}

/** A class of her timetable, as the form adding a single date offers it. */
export interface TimetableClass {
  name: string;
  /** Its weekly start, HH:MM. */
  time: string;
  lengthMinutes: number;
  capacity: number;
  minimum: number;
  priceCents: number;
}

/**
 * What the classes page will do with a single date starting at `start`, said to her before she
 * adds it and again once it is added: bookable until its cutoff, and cancelled then below its
 * minimum; or, when its cutoff has passed already, that nobody could book it and it would be
 * cancelled at once (the desk refuses it). `at` formats a moment on the studio's clock.
 */
export function singleDateOutlook(
  start: Date,
  now: Date,
  rules: { cutoffHours: number; minimum: number },
  at: (moment: Date) => string,
): { bookable: boolean; words: string } {
  const hours = `${rules.cutoffHours} ${rules.cutoffHours === 1 ? 'hour' : 'hours'}`;
  const cutoff = new Date(start.getTime() - rules.cutoffHours * 3_600_000);
  const fewer = `fewer than ${rules.minimum} ${rules.minimum === 1 ? 'person' : 'people'}`;
  if (cutoff <= now) {
    return {
      bookable: false,
      words: `A class with ${fewer} booked ${hours} before it starts is cancelled then, and booking for it closes. So nobody could book this one on the classes page, and it would be cancelled at once. Please choose a time at least ${hours} from now.`,
    };
  }
  return {
    bookable: true,
    words: `Visitors can book it on the classes page now. If ${fewer} have booked by ${at(cutoff)}, ${hours} before it starts, it is cancelled and those booked are told; otherwise they can book until it starts.`,
  };
}

export interface BookingsOverview {
  timeZone: string;
  bookings: DeskBooking[];
  classes: DeskClass[];
  /** Her timetable's classes, and the places and price of a class with none of its own. */
  timetable: TimetableClass[];
  defaults: { capacity: number; minimum: number; priceCents: number; cutoffHours: number };
}

/** What the desk's actions on one booking name: a consultation, a session or a class place. */
export type BookingKind = 'consultation' | 'session' | 'place';

/** The bookings that have a price, paid at the studio or online: a session, a class place. */
export type PayableKind = Exclude<BookingKind, 'consultation'>;
