/**
 * The calendar invitation of a private or in-home session, and its cancellation (ics-write.ts
 * writes them, as every kind's). Its description says what the visitor must know before coming:
 * the amount due at the studio, the cancellation policy, the manage link, and the waiver when
 * none on file covers them.
 */
import type { CalendarEvent } from '../platform/mail';
import { bookingCalendar } from './ics-write';

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
  const { studio } = invite;
  return bookingCalendar(method, {
    uid: sessionUid(invite.id, studio.host),
    sequence: invite.sequence,
    start: invite.start,
    end: invite.end,
    summary: `${invite.title} with ${studio.instructor}`,
    description:
      method === 'CANCEL'
        ? `This session at ${studio.name} was cancelled.`
        : invite.lines.join('\n\n'),
    location: invite.location,
    url: invite.manageUrl,
    studio,
    attendee: invite.attendee,
    now: invite.now,
    product: 'Sessions',
  });
}
