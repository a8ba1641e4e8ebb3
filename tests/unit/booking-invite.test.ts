/**
 * Invitations, cancellations and the instructor's feed, each read back by node-ical with the
 * server in a zone far from the studio's, so every time is checked as an instant.
 */
import ical, { type VEvent } from 'node-ical';
import nodemailer from 'nodemailer';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bookingsFeed } from '../../src/server/booking/bookings-calendar';
import { bookingUid } from '../../src/server/booking/ics-write';
import {
  cancellation,
  invitation,
  type InviteBooking,
  type InviteContext,
} from '../../src/server/booking/invite';

const STUDIO = {
  name: 'Still Point Pilates',
  email: 'hello@stillpointpilates.studio',
  instructor: 'Maya Lindqvist',
  host: 'stillpointpilates.studio',
};
const CONTEXT: InviteContext = {
  studio: STUDIO,
  place: {
    kind: 'studio',
    label: 'At the studio',
    address: '2140 SE Division St, Portland, OR 97202',
  },
  manageUrl: 'https://stillpointpilates.studio/consultation/manage?token=t0k3n',
  now: new Date('2027-03-02T18:04:05Z'),
};
const BOOKING: InviteBooking = {
  id: '42',
  sequence: 0,
  start: new Date('2027-03-15T16:00:00Z'), // Monday 9:00 AM PDT, the day after the change
  end: new Date('2027-03-15T16:15:00Z'),
  visitor: { name: 'Ana "Annie" O’Neil; Jr., PhD', email: 'ana@example.org' },
};

function readBack(content: string) {
  const parsed = ical.sync.parseICS(content);
  const events = Object.values(parsed).filter((c): c is VEvent => c?.type === 'VEVENT');
  return { calendar: parsed.vcalendar, events, event: events[0]! };
}

const textOf = (value: unknown) =>
  typeof value === 'object' && value && 'val' in value ? String(value.val) : String(value);

let zone: string | undefined;
beforeAll(() => {
  zone = process.env.TZ;
  process.env.TZ = 'Pacific/Kiritimati'; // UTC+14: any local-time slip shows as a day off
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('the invitation sent with a booking', () => {
  test('is METHOD:REQUEST with a stable UID, the given SEQUENCE, and the exact instants', () => {
    const invite = invitation(BOOKING, CONTEXT);
    const { calendar, events, event } = readBack(invite.content);

    expect(invite.method).toBe('REQUEST');
    expect(invite.filename).toBe('invite.ics');
    expect(calendar?.method).toBe('REQUEST');
    expect(invite.content).toMatch(/^METHOD:REQUEST\r$/m);
    expect(events).toHaveLength(1);
    expect(event.uid).toBe('booking-42@stillpointpilates.studio');
    expect(event.uid).toBe(bookingUid('42', STUDIO.host));
    expect(event.sequence).toBe(0);
    expect(event.start.toISOString()).toBe('2027-03-15T16:00:00.000Z');
    expect(event.end?.toISOString()).toBe('2027-03-15T16:15:00.000Z');
    expect(event.dtstamp.toISOString()).toBe('2027-03-02T18:04:05.000Z');
    expect(invite.content).toContain('DTSTART:20270315T160000Z');
    expect(event.status).toBe('CONFIRMED');
  });

  test('names the studio as organizer and the visitor as attendee, whatever their name holds', () => {
    const { event } = readBack(invitation(BOOKING, CONTEXT).content);
    const organizer = event.organizer as { params: { CN: string }; val: string };
    const attendee = event.attendee as { params: Record<string, unknown>; val: string };

    expect(organizer.val.toLowerCase()).toBe('mailto:hello@stillpointpilates.studio');
    expect(organizer.params.CN).toBe('Still Point Pilates');
    expect(attendee.val.toLowerCase()).toBe('mailto:ana@example.org');
    expect(attendee.params).toMatchObject({ PARTSTAT: 'ACCEPTED', ROLE: 'REQ-PARTICIPANT' });
    // Quotes and semicolons, which some readers split on, are written as ' and ,.
    expect(attendee.params.CN).toBe("Ana 'Annie' O’Neil, Jr., PhD");
  });

  test('a line break in a name cannot add a line to the calendar', () => {
    const visitor = {
      name: 'Ana\r\nATTENDEE:mailto:mallory@example.org',
      email: 'ana@example.org',
    };

    const { content } = invitation({ ...BOOKING, visitor }, CONTEXT);
    const { event } = readBack(content);

    expect(content).not.toMatch(/^ATTENDEE:mailto:mallory/m);
    expect((event.attendee as { val: string }).val.toLowerCase()).toBe('mailto:ana@example.org');
  });

  test('says what, where and how to change it', () => {
    const { event } = readBack(invitation(BOOKING, CONTEXT).content);

    expect(textOf(event.summary)).toBe('Complimentary consultation with Maya Lindqvist');
    expect(textOf(event.location)).toBe('2140 SE Division St, Portland, OR 97202');
    expect(textOf(event.description)).toBe(
      'Your complimentary 15-minute consultation with Maya Lindqvist at Still Point Pilates.\n\n' +
        'At the studio: 2140 SE Division St, Portland, OR 97202\n\n' +
        'To change or cancel it: https://stillpointpilates.studio/consultation/manage?token=t0k3n',
    );
    expect(textOf(event.url)).toBe(CONTEXT.manageUrl);
  });

  test('by video, the location is the call’s link', () => {
    const link = 'https://meet.example.com/still-point';
    const video = { ...CONTEXT, place: { kind: 'video', label: 'By video call', link } as const };

    const { event } = readBack(invitation(BOOKING, video).content);

    expect(textOf(event.location)).toBe(link);
    expect(textOf(event.description)).toContain(`By video call: ${link}`);
  });

  test('a moved booking keeps its UID with a higher SEQUENCE and the new time', () => {
    const moved = { ...BOOKING, sequence: 1, start: new Date('2027-03-16T22:30:00Z') };
    moved.end = new Date('2027-03-16T22:45:00Z');

    const { event } = readBack(invitation(moved, CONTEXT).content);

    expect(event.uid).toBe('booking-42@stillpointpilates.studio');
    expect(event.sequence).toBe(1);
    expect(event.start.toISOString()).toBe('2027-03-16T22:30:00.000Z');
  });

  test('is written in CRLF lines, long ones folded, a long non-ASCII name read back whole', () => {
    const long = { ...BOOKING, visitor: { ...BOOKING.visitor, name: 'Åsa Lindström-'.repeat(8) } };
    const { content } = invitation(long, CONTEXT);

    expect(content.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(content.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    // ical-generator folds after 75 octets of content, so a continued line is its space + 75.
    for (const line of content.slice(0, -2).split('\r\n')) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(76);
    }
    const attendee = readBack(content).event.attendee as { params: { CN: string } };
    expect(attendee.params.CN).toBe(long.visitor.name);
  });

  test('a SEQUENCE that is not a whole number from 0 is refused', () => {
    for (const sequence of [-1, 1.5, Number.NaN]) {
      expect(() => invitation({ ...BOOKING, sequence }, CONTEXT)).toThrow(RangeError);
    }
  });
});

describe('the cancellation', () => {
  test('is METHOD:CANCEL with the same UID, a higher SEQUENCE and STATUS:CANCELLED', () => {
    const cancel = cancellation({ ...BOOKING, sequence: 2 }, CONTEXT);
    const { calendar, event } = readBack(cancel.content);

    expect(cancel.method).toBe('CANCEL');
    expect(calendar?.method).toBe('CANCEL');
    expect(cancel.content).toMatch(/^METHOD:CANCEL\r$/m);
    expect(event.uid).toBe(readBack(invitation(BOOKING, CONTEXT).content).event.uid);
    expect(event.sequence).toBe(2);
    expect(event.status).toBe('CANCELLED');
    expect(event.start.toISOString()).toBe('2027-03-15T16:00:00.000Z');
    expect(textOf(event.summary)).toBe('Cancelled: Complimentary consultation with Maya Lindqvist');
    expect((event.attendee as { val: string }).val.toLowerCase()).toBe('mailto:ana@example.org');
  });
});

describe('sent through nodemailer', () => {
  test.each([
    ['REQUEST', invitation(BOOKING, CONTEXT)],
    ['CANCEL', cancellation({ ...BOOKING, sequence: 1 }, CONTEXT)],
  ])(
    'the %s is a text/calendar part whose method parameter matches METHOD inside',
    async (method, icalEvent) => {
      const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
      const { message } = await transport.sendMail({
        from: STUDIO.email,
        to: BOOKING.visitor.email,
        subject: 'Your consultation',
        text: 'See the attached invitation.',
        icalEvent,
      });
      const raw = message.toString();
      const mail = await simpleParser(message);
      const part = mail.attachments.find((a) => a.contentType === 'text/calendar');

      expect(raw).toMatch(
        new RegExp(`Content-Type: text/calendar; charset=utf-8; method=${method}`, 'i'),
      );
      expect(part?.content.toString()).toBe(icalEvent.content);
      expect(readBack(part!.content.toString()).calendar?.method).toBe(method);
    },
  );
});

describe('the instructor’s subscribable feed', () => {
  const bookings = [
    BOOKING,
    {
      id: '43',
      sequence: 3,
      start: new Date('2026-11-01T17:00:00Z'), // Sunday 9:00 AM PST, the fall-back day
      end: new Date('2026-11-01T17:15:00Z'),
      visitor: { name: 'Ben Okafor', email: 'ben@example.org' },
    },
  ];
  const feed = bookingsFeed(bookings, {
    studio: STUDIO,
    place: CONTEXT.place,
    deskUrl: (id) => `https://stillpointpilates.studio/records/bookings/${id}`,
    now: CONTEXT.now,
  });

  test('holds every booking with its invitation’s UID, SEQUENCE and instants', () => {
    const { events } = readBack(feed);
    const byUid = Object.fromEntries(events.map((event) => [event.uid, event]));

    expect(events).toHaveLength(2);
    expect(byUid['booking-42@stillpointpilates.studio']?.start.toISOString()).toBe(
      '2027-03-15T16:00:00.000Z',
    );
    const ben = byUid['booking-43@stillpointpilates.studio']!;
    expect(ben.sequence).toBe(3);
    expect(ben.start.toISOString()).toBe('2026-11-01T17:00:00.000Z');
    expect(textOf(ben.summary)).toBe('Consultation: Ben Okafor');
    expect(textOf(ben.url)).toBe('https://stillpointpilates.studio/records/bookings/43');
  });

  test('asks subscribers to refresh every 15 minutes and names itself', () => {
    expect(feed).toMatch(/^REFRESH-INTERVAL;VALUE=DURATION:PT15M\r$/m);
    expect(feed).toMatch(/^X-PUBLISHED-TTL:PT15M\r$/m);
    expect(feed).toMatch(/^METHOD:PUBLISH\r$/m);
    expect(readBack(feed).calendar?.['WR-CALNAME']).toBe('Still Point Pilates: bookings');
  });

  test('with no bookings it is still a calendar', () => {
    const empty = bookingsFeed([], {
      studio: STUDIO,
      place: CONTEXT.place,
      deskUrl: String,
      now: CONTEXT.now,
    });

    expect(readBack(empty).events).toEqual([]);
    expect(empty).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/);
  });
});
