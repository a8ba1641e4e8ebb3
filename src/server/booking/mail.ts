/**
 * The mails about a booking, each composed by the outbox from its ref, `<booking id>:<sequence>`
 * (store.ts): the invite to the visitor and the instructor's copy (METHOD:REQUEST, for the
 * booking and again after every move), the cancellation to both (METHOD:CANCEL, the same UID, a
 * higher SEQUENCE), and the visitor's reminder a day before.
 *
 * A mail is about one version of the booking. When the booking has changed since it was queued
 * (moved or cancelled: a higher sequence), a REQUEST or a reminder is no longer owed, and its
 * composer answers `nothingToSend`, so an old time is never mailed after a new one.
 *
 * The visitor's address was typed by whoever booked and nobody verified it: what goes to it is
 * the studio's own words, the time, the place and the links, and of what was typed only the first
 * name. Everything the visitor wrote goes to the studio alone.
 */
import type { ConsultationPlace } from '../../shared/booking/place';
import { withinHours } from '../../shared/booking/window-starts';
import { now } from '../platform/clock';
import { mailBody, type Block } from '../mail/blocks';
import { contactRecipient, type CalendarEvent } from '../platform/mail';
import { nothingToSend } from '../platform/outbox';
import { siteFacts } from '../platform/site-facts';
import { consultationSettings } from './consultation';
import { cancellation, invitation, type InviteContext } from './invite';
import { checkSlot } from './offer';
import { loadBooking, manageUrl, type Booking } from './store';
import * as appointment from './appointment-mail';

import { PAGES } from '../../shared/site-paths';

/** The booking a ref names, at the version it names; or why there is nothing to send. */
const about = (ref: string, wanted: 'live' | 'cancelled') =>
  appointment.about(ref, wanted, loadBooking, 'booking');

const isBooking = appointment.isFound<Booking>;

const when = (booking: Booking, timeZone: string): appointment.When =>
  appointment.when(booking, timeZone);

const placeLine = (place: ConsultationPlace) =>
  place.kind === 'studio' ? `${place.label}: ${place.address}` : `${place.label}: ${place.link}`;

function context(booking: Booking): InviteContext {
  const { place } = consultationSettings();
  const studio = siteFacts();
  return {
    studio: { ...studio, host: new URL(booking.origin).hostname },
    place,
    manageUrl: manageUrl(booking),
    now: now(),
  };
}

/** A line of text, or a link: the blocks of a mail (src/server/mail). */
type Line = Block;

const body = (lines: Line[], footer?: string) => mailBody(lines, footer ? [footer] : []);

function visitorLines(booking: Booking, w: appointment.When, heading: string): Line[] {
  const { place } = consultationSettings();
  const studio = siteFacts();
  return [
    `Hello ${appointment.firstName(booking.name)},`,
    heading,
    `When: ${w.date}, ${w.time} (${w.zone})\nWhere: ${placeLine(place)}`,
    'The calendar invite is attached: open it to add the consultation to your calendar.',
    {
      text: 'To choose another time, or to cancel:',
      link: manageUrl(booking),
      label: 'Change or cancel your consultation',
    },
    {
      text: 'Before your first session, please complete the liability waiver (it takes about 5 minutes):',
      link: `${booking.origin}${PAGES.waiver}`,
      label: 'Complete the waiver',
    },
    `See you soon,\n${studio.instructor}, ${studio.name}`,
  ];
}

const FOOTER = (studio: string, cancelled = false) =>
  appointment.visitorFooter('a consultation', studio, cancelled);

/** The visitor's invite (REQUEST): at booking, and again with the new time after a move. */
export async function visitorInviteMail(ref: string): appointment.Composed {
  const booking = await about(ref, 'live');
  if (!isBooking(booking)) return booking;
  const { timeZone } = consultationSettings();
  const studio = siteFacts();
  const w = when(booking, timeZone);
  const moved = booking.sequence > 0;
  const minutes = Math.round((booking.end.getTime() - booking.start.getTime()) / 60_000);
  return {
    to: booking.email,
    subject: moved
      ? `Your consultation has moved to ${w.short}`
      : `Your consultation on ${w.short}`,
    ...body(
      visitorLines(
        booking,
        w,
        moved
          ? `Your consultation with ${studio.instructor} has moved. The new time:`
          : `Your complimentary ${minutes}-minute consultation with ${studio.instructor} is booked.`,
      ),
      FOOTER(studio.name),
    ),
    icalEvent: visitorInvite(booking, 'REQUEST'),
  };
}

/** The visitor's copy of the invite: the attendee named by the first name only. */
function visitorInvite(booking: Booking, method: 'REQUEST' | 'CANCEL'): CalendarEvent {
  const details = {
    id: booking.id,
    sequence: booking.sequence,
    start: booking.start,
    end: booking.end,
    visitor: { name: appointment.firstName(booking.name), email: booking.email },
  };
  return method === 'REQUEST'
    ? invitation(details, context(booking))
    : cancellation(details, context(booking));
}

function studioInvite(booking: Booking, method: 'REQUEST' | 'CANCEL'): CalendarEvent {
  const details = {
    id: booking.id,
    sequence: booking.sequence,
    start: booking.start,
    end: booking.end,
    visitor: { name: booking.name, email: booking.email },
  };
  return method === 'REQUEST'
    ? invitation(details, context(booking))
    : cancellation(details, context(booking));
}

const visitorDetails = (booking: Booking) =>
  appointment.visitorDetails(
    booking,
    booking.topic ? [`What they would like to talk about:\n${booking.topic}`] : [],
  );

/** The instructor's invite (REQUEST), to the studio's inbox: who booked, and what they wrote. */
export async function studioInviteMail(ref: string): appointment.Composed {
  const booking = await about(ref, 'live');
  if (!isBooking(booking)) return booking;
  const { timeZone, place } = consultationSettings();
  const w = when(booking, timeZone);
  const moved = booking.sequence > 0;
  return {
    to: contactRecipient(),
    replyTo: booking.email,
    // sendMail keeps the subject one line with no encoded word in it (headerText).
    subject: `Consultation ${moved ? 'moved' : 'booked'}: ${booking.name}, ${w.short}`,
    ...body(
      [
        moved
          ? `${booking.name} moved their consultation to:`
          : `${booking.name} booked a consultation:`,
        `When: ${w.date}, ${w.time} (${w.zone})\nWhere: ${placeLine(place)}`,
        ...visitorDetails(booking),
        'The calendar invite is attached. Every booking is also on the records desk (Consultations), and in your consultations calendar if you subscribed to it.',
      ],
      appointment.studioFooter(booking),
    ),
    icalEvent: studioInvite(booking, 'REQUEST'),
  };
}

/** The visitor's cancellation (CANCEL): whoever cancelled, with the studio's note if it wrote one. */
export async function visitorCancelMail(ref: string): appointment.Composed {
  const booking = await about(ref, 'cancelled');
  if (!isBooking(booking)) return booking;
  const { timeZone } = consultationSettings();
  const studio = siteFacts();
  const w = when(booking, timeZone);
  const byStudio = booking.cancelledBy !== 'visitor';
  return {
    to: booking.email,
    subject: `Cancelled: your consultation on ${w.short}`,
    ...body(
      [
        `Hello ${appointment.firstName(booking.name)},`,
        byStudio
          ? `${studio.instructor} has had to cancel your consultation on ${w.date}, ${w.time} (${w.zone}). We are sorry for the change of plan.`
          : `Your consultation on ${w.date}, ${w.time} (${w.zone}) is cancelled, as you asked.`,
        ...(byStudio && booking.cancelNote
          ? [`A note from the studio:\n${booking.cancelNote}`]
          : []),
        'The cancellation is attached: your calendar removes the consultation when you open it.',
        {
          text: 'To book another time:',
          link: `${booking.origin}${PAGES.consultation}`,
          label: 'Book a free consultation',
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name, true),
    ),
    icalEvent: visitorInvite(booking, 'CANCEL'),
  };
}

/**
 * What the instructor's cancellation says of the time it freed: only what the site knows when it
 * writes the mail. Free to book when the booking page offers it now; outside her weekly hours
 * when they changed since it was booked; otherwise (too soon, blocked, busy, past) nothing.
 */
async function freedTime(booking: Booking): Promise<string> {
  const check = await checkSlot(booking.start.toISOString());
  if (check.ok) return ' The time is free to book again.';
  const { availability, timeZone } = consultationSettings();
  if (!withinHours(availability, booking, timeZone)) {
    return ' The time is outside your weekly hours now, so it is not offered to visitors.';
  }
  return '';
}

/** The instructor's cancellation (CANCEL), so her calendar drops it too. */
export async function studioCancelMail(ref: string): appointment.Composed {
  const booking = await about(ref, 'cancelled');
  if (!isBooking(booking)) return booking;
  const freed = await freedTime(booking);
  const { timeZone } = consultationSettings();
  const w = when(booking, timeZone);
  const by = appointment.cancelledBy(booking);
  return {
    to: contactRecipient(),
    replyTo: booking.email,
    subject: `Consultation cancelled: ${booking.name}, ${w.short}`,
    ...body(
      [
        `The consultation with ${booking.name} on ${w.date}, ${w.time} (${w.zone}) is cancelled. ${by}`,
        ...(booking.cancelNote ? [`Your note to them:\n${booking.cancelNote}`] : []),
        `The cancellation is attached: your calendar removes the consultation when you open it.${freed}`,
      ],
      appointment.studioFooter(booking, true),
    ),
    icalEvent: studioInvite(booking, 'CANCEL'),
  };
}

/** The visitor's reminder, due a day before; nothing once the booking was moved or cancelled. */
export async function reminderMail(ref: string): appointment.Composed {
  const booking = await about(ref, 'live');
  if (!isBooking(booking)) return booking;
  if (booking.start.getTime() <= now().getTime()) {
    return nothingToSend('the consultation has begun');
  }
  const { timeZone } = consultationSettings();
  const studio = siteFacts();
  const w = when(booking, timeZone);
  return {
    to: booking.email,
    subject: `Reminder: your consultation on ${w.short}`,
    ...body(
      [
        `Hello ${appointment.firstName(booking.name)},`,
        `A reminder: your consultation with ${studio.instructor} is coming up.`,
        ...visitorLines(booking, w, '')
          .slice(2, -1)
          .filter((line) => !isInviteLine(line)),
        `See you soon,\n${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
  };
}

const isInviteLine = (line: Line) =>
  typeof line === 'string' && line.startsWith('The calendar invite');
