/**
 * The calendar invitations of the classes (booking/ics-write.ts writes them): a participant's
 * place (`METHOD:REQUEST`, UID from the place's id, SEQUENCE its sequence; `METHOD:CANCEL` with
 * the same UID and a higher SEQUENCE when it is cancelled), and the instructor's own event of the
 * class date (UID from the date's id), which names nobody. A participant's invite lists that
 * participant alone: never another participant.
 */
import type { CalendarEvent } from '../platform/mail';
import { bookingCalendar, type BookingInvite } from '../booking/ics-write';

export type ClassInvite = Omit<BookingInvite, 'product'>;

export const placeUid = (placeId: string, host: string) => `class-place-${placeId}@${host}`;
export const classUid = (dateId: string, host: string) => `class-${dateId}@${host}`;

export const classCalendar = (method: 'REQUEST' | 'CANCEL', invite: ClassInvite): CalendarEvent =>
  bookingCalendar(method, { ...invite, product: 'Classes' });
