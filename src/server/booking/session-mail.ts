/**
 * The mails about a private or in-home session, each composed by the outbox from its ref,
 * `<session id>:<sequence>`: the invite to the visitor and the instructor's copy
 * (METHOD:REQUEST, at booking and after every move), the cancellation to both (METHOD:CANCEL,
 * same UID, higher SEQUENCE), and the visitor's reminder a day before. A mail about a version
 * the session has since left (moved, cancelled) is no longer owed (`nothingToSend`).
 *
 * The visitor's mail says the amount due (from the row, which took it from content), the
 * cancellation policy, the manage link and, when no waiver on file covers them, the waiver link
 * with words that it must be signed before the session. Of what the visitor typed, their mail
 * holds the first name and, for a session at their address, that address; the rest goes to the
 * studio alone.
 */
import { dollars } from '../../shared/money';
import { aOneOf, oneOf } from '../../shared/one-session';
import { mailBody, type Block } from '../mail/blocks';
import { cancelledMoney, refundedOf, refundWords } from '../payments/store';
import { now } from '../platform/clock';
import { contactRecipient, type CalendarEvent } from '../platform/mail';
import { nothingToSend } from '../platform/outbox';
import { siteFacts } from '../platform/site-facts';
import {
  about as aboutAppointment,
  cancelledBy,
  firstName,
  isFound,
  studioFooter,
  visitorDetails,
  visitorFooter,
  when as whenOf,
  type Composed,
  type When,
} from './appointment-mail';
import { sessionPolicy } from './policy';
import { sessionCalendar } from './session-invite';
import { loadSession, sessionManageUrl, type SessionBooking } from './session-store';
import { waiverCovers } from './session-waiver';

const about = (ref: string, wanted: 'live' | 'cancelled') =>
  aboutAppointment(ref, wanted, loadSession, 'session');

/** One session of its kind, as a sentence says it: "private session" (from "Private Sessions"). */
export const kindOf = (booking: Pick<SessionBooking, 'title'>) =>
  oneOf(booking.title).toLowerCase();

/** "a private session", "an in-home session". */
const aKindOf = (booking: Pick<SessionBooking, 'title'>) => aOneOf(booking.title);

/** Its name on a calendar: "Private Session". */
const nameOf = (booking: Pick<SessionBooking, 'title'>) => oneOf(booking.title);

const isSession = isFound<SessionBooking>;

/** What the visitor owes and where, in their words. */
export function amountLine(
  booking: Pick<SessionBooking, 'amountCents' | 'payment' | 'place'>,
  to: 'visitor' | 'studio' = 'visitor',
) {
  const amount = dollars(booking.amountCents);
  if (booking.payment === 'paid') return `Paid: ${amount}`;
  // Held while the visitor pays online: booked once Stripe confirms the payment.
  if (booking.payment === 'held')
    return `${amount}, paid online: waiting for Stripe to confirm the payment`;
  if (booking.place === 'studio') return `Amount due: ${amount}, paid at the studio`;
  return `Amount due: ${amount}, paid at ${to === 'visitor' ? 'your' : 'the'} session`;
}

/**
 * A visitor's address on one line, with the city: the ZIP codes she serves are the studio's city's
 * (content's `areas`), so a calendar or a map finds "3520 SE Woodstock Blvd, Portland, OR 97202".
 */
const homeAddress = (booking: SessionBooking) => {
  const { city } = siteFacts();
  return `${booking.street ?? ''}, ${city ? `${city} ` : ''}${booking.postalCode ?? ''}`;
};

/** Where the session happens, on one line. */
export function placeOf(booking: SessionBooking, to: 'visitor' | 'studio' = 'visitor'): string {
  return booking.place === 'home'
    ? `At ${to === 'visitor' ? 'your' : 'their'} address: ${homeAddress(booking)}`
    : `At the studio: ${sessionPolicy().studioAddress}`;
}

const location = (booking: SessionBooking) =>
  booking.place === 'home' ? homeAddress(booking) : sessionPolicy().studioAddress;

const when = (booking: SessionBooking): When => whenOf(booking, sessionPolicy().timeZone);

export const WAIVER_NEEDED =
  'A signed liability waiver must be on file before your session. Please sign it before you come (it takes about 5 minutes):';

/** The lines the visitor's confirmation, reminder and invite share. */
async function essentials(booking: SessionBooking, w: When): Promise<Block[]> {
  const covered = await waiverCovers(booking.email);
  return [
    `When: ${w.date}, ${w.time} (${w.zone})\nWhere: ${placeOf(booking)}\n${amountLine(booking)}`,
    `Cancellation policy: ${sessionPolicy().hours.cancellationPolicy}`,
    {
      text: 'To choose another time, or to cancel:',
      link: sessionManageUrl(booking),
      label: 'Change or cancel your session',
    },
    ...(covered
      ? []
      : [{ text: WAIVER_NEEDED, link: `${booking.origin}/waiver`, label: 'Sign the waiver' }]),
  ];
}

const blockText = (block: Block) =>
  typeof block === 'string'
    ? block
    : 'link' in block
      ? `${block.text ?? block.label} ${block.link}`
      : '';

async function calendarOf(
  booking: SessionBooking,
  method: 'REQUEST' | 'CANCEL',
  attendee: string,
): Promise<CalendarEvent> {
  const studio = siteFacts();
  const lines =
    method === 'REQUEST' ? (await essentials(booking, when(booking))).map(blockText) : [];
  return sessionCalendar(method, {
    id: booking.id,
    sequence: booking.sequence,
    start: booking.start,
    end: booking.end,
    title: nameOf(booking),
    location: location(booking),
    attendee: { name: attendee, email: booking.email },
    lines: [`${nameOf(booking)} with ${studio.instructor} at ${studio.name}.`, ...lines],
    manageUrl: sessionManageUrl(booking),
    studio: { ...studio, host: new URL(booking.origin).hostname },
    now: now(),
  });
}

const FOOTER = (studio: string, cancelled = false) => visitorFooter('a session', studio, cancelled);

/** The visitor's invite (REQUEST): at booking, and again with the new time after a move. */
export async function sessionVisitorMail(ref: string): Composed {
  const booking = await about(ref, 'live');
  if (!isSession(booking)) return booking;
  const studio = siteFacts();
  const w = when(booking);
  const moved = booking.sequence > 0;
  return {
    to: booking.email,
    subject: moved ? `Your session has moved to ${w.short}` : `Your session on ${w.short}`,
    ...mailBody(
      [
        `Hello ${firstName(booking.name)},`,
        moved
          ? `Your ${kindOf(booking)} with ${studio.instructor} has moved. The new time:`
          : `Your ${kindOf(booking)} with ${studio.instructor} is booked.`,
        ...(await essentials(booking, w)),
        'The calendar invite is attached: open it to add the session to your calendar.',
        `See you soon,\n${studio.instructor}, ${studio.name}`,
      ],
      [FOOTER(studio.name)],
    ),
    icalEvent: await calendarOf(booking, 'REQUEST', firstName(booking.name)),
  };
}

/** The instructor's invite (REQUEST), to the studio's inbox: who booked, where, and what is due. */
export async function sessionStudioMail(ref: string): Composed {
  const booking = await about(ref, 'live');
  if (!isSession(booking)) return booking;
  const w = when(booking);
  const moved = booking.sequence > 0;
  const covered = await waiverCovers(booking.email);
  return {
    to: contactRecipient(),
    replyTo: booking.email,
    subject: `${nameOf(booking)} ${moved ? 'moved' : 'booked'}: ${booking.name}, ${w.short}`,
    ...mailBody(
      [
        moved
          ? `${booking.name} moved their ${kindOf(booking)} to:`
          : `${booking.name} booked ${aKindOf(booking)}:`,
        `When: ${w.date}, ${w.time} (${w.zone})\nWhere: ${placeOf(booking, 'studio')}\n${amountLine(booking, 'studio')}`,
        ...visitorDetails(booking),
        covered
          ? 'A waiver on file covers them.'
          : 'No waiver on file covers them yet: their confirmation asks them to sign one before the session.',
        'The calendar invite is attached.',
      ],
      [studioFooter(booking)],
    ),
    icalEvent: await calendarOf(booking, 'REQUEST', booking.name),
  };
}

/** The visitor's cancellation (CANCEL). */
export async function sessionVisitorCancelMail(ref: string): Composed {
  const booking = await about(ref, 'cancelled');
  if (!isSession(booking)) return booking;
  const studio = siteFacts();
  const w = when(booking);
  const byStudio = booking.cancelledBy !== 'visitor';
  // Paid online: what is left of it was refunded with the cancellation, and said so.
  const money = await refundedOf('session', booking.id);
  return {
    to: booking.email,
    subject: `Cancelled: your session on ${w.short}`,
    ...mailBody(
      [
        `Hello ${firstName(booking.name)},`,
        byStudio
          ? `${studio.instructor} has had to cancel your ${kindOf(booking)} on ${w.date}, ${w.time} (${w.zone}). We are sorry for the change of plan.${money ? ` ${refundWords(money)}` : ''}`
          : `Your ${kindOf(booking)} on ${w.date}, ${w.time} (${w.zone}) is cancelled, as you asked. ${cancelledMoney(money, booking.payment === 'paid' ? booking.amountCents : 0)}`,
        ...(byStudio && booking.cancelNote
          ? [`A note from the studio:\n${booking.cancelNote}`]
          : []),
        'The cancellation is attached: your calendar removes the session when you open it.',
        {
          text: 'To book another time:',
          link: `${booking.origin}/book/${booking.type}`,
          label: `Book ${aKindOf(booking)}`,
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      [FOOTER(studio.name, true)],
    ),
    icalEvent: await calendarOf(booking, 'CANCEL', firstName(booking.name)),
  };
}

/** The instructor's cancellation (CANCEL), so her calendar drops it too. */
export async function sessionStudioCancelMail(ref: string): Composed {
  const booking = await about(ref, 'cancelled');
  if (!isSession(booking)) return booking;
  const w = when(booking);
  const by = cancelledBy(booking);
  return {
    to: contactRecipient(),
    replyTo: booking.email,
    subject: `${nameOf(booking)} cancelled: ${booking.name}, ${w.short}`,
    ...mailBody(
      [
        `The ${kindOf(booking)} with ${booking.name} on ${w.date}, ${w.time} (${w.zone}) is cancelled. ${by}`,
        ...(booking.cancelNote ? [`Your note to them:\n${booking.cancelNote}`] : []),
        'The cancellation is attached: your calendar removes the session when you open it.',
      ],
      [studioFooter(booking, true)],
    ),
    icalEvent: await calendarOf(booking, 'CANCEL', booking.name),
  };
}

/** The visitor's reminder, due a day before; nothing once the session moved or was cancelled. */
export async function sessionReminderMail(ref: string): Composed {
  const booking = await about(ref, 'live');
  if (!isSession(booking)) return booking;
  if (booking.start.getTime() <= now().getTime()) return nothingToSend('the session has begun');
  const studio = siteFacts();
  const w = when(booking);
  return {
    to: booking.email,
    subject: `Reminder: your session on ${w.short}`,
    ...mailBody(
      [
        `Hello ${firstName(booking.name)},`,
        `A reminder: your ${kindOf(booking)} with ${studio.instructor} is coming up.`,
        ...(await essentials(booking, w)),
        `See you soon,\n${studio.instructor}, ${studio.name}`,
      ],
      [FOOTER(studio.name)],
    ),
  };
}
