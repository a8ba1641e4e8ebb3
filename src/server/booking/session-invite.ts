/**
 * The calendar invitation of a private or in-home session, and its cancellation: the same rules
 * as the consultation's (invite.ts): `METHOD:REQUEST` / `METHOD:CANCEL` in the mail's part and
 * inside, one UID for every message about the session (made from its id), a SEQUENCE raised on
 * every change, times in UTC. Its description says what the visitor must know before coming:
 * the amount due at the studio, the cancellation policy, the manage link, and the waiver when
 * none on file covers them.
 */
import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
} from 'ical-generator';
import type { CalendarEvent } from '../platform/mail';
import { displayName, reminderAlarm, withFinalLineBreak } from './ics-write';

export interface SessionInvite {
  id: string;
  sequence: number;
  start: Date;
  end: Date;
  title: string;
  /** Where: the studio's address, or the visitor's. */
  location: string;
  attendee: { name: string; email: string };
  /** The description's lines (the amount due, the policy, the links). */
  lines: string[];
  manageUrl: string;
  studio: { name: string; email: string; instructor: string; host: string };
  now: Date;
}

/** The UID of every message about one session: never changes. */
export const sessionUid = (id: string, host: string) => `session-${id}@${host}`;

export function sessionCalendar(
  method: 'REQUEST' | 'CANCEL',
  invite: SessionInvite,
): CalendarEvent {
  if (!Number.isInteger(invite.sequence) || invite.sequence < 0) {
    throw new RangeError(`SEQUENCE must be a whole number from 0, not ${invite.sequence}`);
  }
  const { studio } = invite;
  const cancelled = method === 'CANCEL';
  const summary = `${invite.title} with ${studio.instructor}`;
  const calendar = ical({
    prodId: { company: studio.name, product: 'Sessions', language: 'EN' },
    method: cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: sessionUid(invite.id, studio.host),
    sequence: invite.sequence,
    stamp: invite.now,
    start: invite.start,
    end: invite.end,
    summary: cancelled ? `Cancelled: ${summary}` : summary,
    location: invite.location,
    description: cancelled
      ? `This session at ${studio.name} was cancelled.`
      : invite.lines.join('\n\n'),
    url: invite.manageUrl,
    organizer: { name: studio.name, email: studio.email },
    attendees: [
      {
        name: displayName(invite.attendee.name),
        email: invite.attendee.email,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.ACCEPTED,
        rsvp: false,
      },
    ],
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    alarms: reminderAlarm(summary, cancelled),
  });
  return {
    method,
    filename: cancelled ? 'cancel.ics' : 'invite.ics',
    content: withFinalLineBreak(calendar.toString()),
  };
}
