/**
 * What the mails of a consultation (mail.ts) and of a session (session-mail.ts) are made of
 * alike: the appointment a ref names at the version it names (or why nothing is owed), its time
 * as a mail says it, the visitor's first name, the lines that tell the studio who booked and who
 * cancelled, and the footers.
 */
import * as zoned from '../../shared/booking/zoned';
import {
  dayLabel,
  fullDateLabel,
  timeLabel,
  timeRangeLabel,
  zoneName,
} from '../../shared/time-format';
import { now } from '../platform/clock';
import type { Mail } from '../platform/mail';
import type { QueuedMail } from '../request/steps';
import { nothingToSend, type NothingToSend } from '../platform/outbox';
import { mailRef, readMailRef } from '../bookings/mail-ref';
import type { Appointment } from './appointments';

/** What a composer answers: the mail, nothing owed (and why), or nothing found. */
export type Composed = Promise<Mail | NothingToSend | undefined>;

/** The first word of the name typed, as a greeting: the one piece of it the visitor's mail holds. */
export function firstName(name: string): string {
  return (name.trim().split(/\s+/)[0] ?? '').slice(0, 40);
}

/**
 * The appointment a ref names, at the version it names; or why there is nothing to send: it
 * changed since (a higher sequence), or is not `wanted` (live, or cancelled). `noun` names it in
 * that reason ('booking', 'session').
 */
export async function about<Booked extends Appointment>(
  ref: string,
  wanted: 'live' | 'cancelled',
  load: (id: string) => Promise<Booked | undefined>,
  noun: string,
): Promise<Booked | NothingToSend | undefined> {
  const read = readMailRef(ref);
  const booking = read && (await load(read.id));
  if (!read || !booking) return undefined;
  if (booking.sequence !== read.sequence) {
    return nothingToSend(`${noun} changed since (now version ${booking.sequence})`);
  }
  if (wanted === 'live' && booking.cancelledAt) return nothingToSend(`${noun} cancelled`);
  if (wanted === 'cancelled' && !booking.cancelledAt) return nothingToSend(`${noun} not cancelled`);
  return booking;
}

export const isFound = <Booked extends Appointment>(
  value: Booked | NothingToSend | undefined,
): value is Booked => value !== undefined && 'id' in value;

/** An appointment's time as its mails say it, in the studio's zone. */
export interface When {
  date: string;
  time: string;
  short: string;
  zone: string;
}

export function when(booking: Pick<Appointment, 'start' | 'end'>, timeZone: string): When {
  const start = zoned.instantOf(booking.start);
  const end = zoned.instantOf(booking.end);
  return {
    date: fullDateLabel(start, timeZone),
    time: timeRangeLabel(start, end, timeZone),
    short: `${dayLabel(zoned.localDate(start, timeZone))} at ${timeLabel(start, timeZone)}`,
    zone: zoneName(timeZone),
  };
}

/**
 * Said to her only of a booking whose browser ran no script at all: the form could not time it,
 * so one of the spam checks could not run. What she can do about it, in her words.
 */
export const UNTIMED_NOTE =
  'Their browser ran no scripts, so this booking had one spam check fewer than usual. If you do not know them and it looks wrong, cancel it on the desk.';

/** Who booked, for the studio's mail: name, address, phone, what else `more` says, spam's note. */
export function visitorDetails(booking: Appointment, more: string[] = []): string[] {
  return [
    `Name: ${booking.name}\nEmail: ${booking.email}\nPhone: ${booking.phone || 'not given'}`,
    ...more,
    ...(booking.timed ? [] : [UNTIMED_NOTE]),
  ];
}

/** Who cancelled it, for the studio's cancellation. */
export const cancelledBy = (booking: Appointment) =>
  booking.cancelledBy === 'visitor'
    ? `${booking.name} cancelled it from the link in their confirmation.`
    : `It was cancelled on the records desk by ${booking.cancelledBy ?? 'the studio'}.`;

/** The visitor's footer: why this address gets the mail (`what`: 'a consultation', 'a session'). */
export const visitorFooter = (what: string, studio: string, cancelled = false) =>
  `You get this e-mail because this address was used to book ${what} with ${studio}.${cancelled ? '' : ' If that was not you, use the link above to cancel it.'}`;

/** The studio's footer: a reply reaches the visitor. */
export const studioFooter = (booking: Appointment, cancelled = false) =>
  cancelled
    ? `Reply to this e-mail to write to ${booking.name}: replies go to ${booking.email}.`
    : `Reply to this e-mail to answer ${booking.name} directly: replies go to ${booking.email}.`;

const DAY_MS = 24 * 3_600_000;

/** The kinds of mail about one kind of appointment (composers listed in mail-kinds.ts). */
export type AppointmentMailKind<Prefix extends string> =
  | `${Prefix}-visitor`
  | `${Prefix}-studio`
  | `${Prefix}-cancel-visitor`
  | `${Prefix}-cancel-studio`
  | `${Prefix}-reminder`;

/** The mails a new one queues (`appointmentMails`). */
export const newMails = <Prefix extends string>(prefix: Prefix) =>
  [`${prefix}-visitor`, `${prefix}-studio`, `${prefix}-reminder`] as const;

/**
 * The mails of an appointment booked or moved (its `sequence` then): both invites now, and the
 * reminder a day before if there is one. `prefix` is its kind's mails' ('booking', 'session').
 */
export function appointmentMails<Prefix extends 'booking' | 'session'>(
  prefix: Prefix,
  id: string,
  start: Date,
  sequence: number,
): QueuedMail<`${Prefix}-visitor` | `${Prefix}-studio` | `${Prefix}-reminder`>[] {
  const ref = mailRef(id, sequence);
  const remindAt = new Date(start.getTime() - DAY_MS);
  return [
    { kind: `${prefix}-visitor` as const, ref },
    { kind: `${prefix}-studio` as const, ref },
    // Booked less than a day ahead: the confirmation is reminder enough.
    ...(remindAt.getTime() > now().getTime()
      ? [{ kind: `${prefix}-reminder` as const, ref, notBefore: remindAt }]
      : []),
  ];
}

/** The kinds of mail about a consultation (composers: mail.ts) and a session (session-mail.ts). */
export type BookingMailKind = AppointmentMailKind<'booking'>;
export type SessionMailKind = AppointmentMailKind<'session'>;

/** The mails a new consultation, and a new session, queue (`bookingMails`, `sessionMails`). */
export const BOOKING_MAILS = newMails('booking');
export const SESSION_MAILS = newMails('session');

/** The mails of a consultation, and of a session, booked or moved: both invites, the reminder. */
export const bookingMails = (id: string, start: Date, sequence: number) =>
  appointmentMails('booking', id, start, sequence);
export const sessionMails = (id: string, start: Date, sequence: number) =>
  appointmentMails('session', id, start, sequence);
