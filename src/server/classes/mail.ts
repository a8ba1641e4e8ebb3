/**
 * The classes' mails, each composed by the outbox from its ref (store.ts `mailRef`): a place's
 * `<place id>:<sequence>`, a class date's `<date id>:<sequence>`, a waitlist entry's
 * `<entry id>:<0 joined | 1 offer | 2 closed>` (engine.ts WAIT_MAIL). A mail about a version that
 * has changed since, or an offer no longer open, is no longer owed (`nothingToSend`).
 *
 * Each participant's mail is about them alone: their first name, the class, its time, place and
 * price, their own links. No mail to a participant names another participant or shows another's
 * address; the class's roster is the studio's (the desk).
 */
import { firstName } from '../booking/appointment-mail';
import {
  deskRefundWords,
  mismatchWords,
  refundToTell,
  studioRefundComposer,
} from '../payments/store';
import { mailBody, type Block } from '../mail/blocks';
import { cancelledMoney, refundedOf, refundWords } from '../payments/store';
import { now } from '../platform/clock';
import { siteOrigin } from '../platform/hosting';
import { query } from '../platform/db';
import { contactRecipient, type Mail } from '../platform/mail';
import { nothingToSend, type NothingToSend } from '../platform/outbox';
import { siteFacts } from '../platform/site-facts';
import { statusOf } from '../waiver/versions';
import { WAIT_MAIL } from './engine';
import { classCalendar, classUid, placeUid } from './invite';
import { cutoffOf } from './occurrences';
import { placePolicy } from './policy';
import { classSettings } from './settings';
import {
  claimUrl,
  leaveToken,
  loadClassDate,
  loadPlace,
  loadWaitEntry,
  readMailRef,
  placeManageUrl,
  type ClassDate,
  type Place,
} from './store';
import { dollars } from '../../shared/money';
import { PAGES } from '../../shared/site-paths';
import { momentOf, whenOf } from './words';

type Composed = Promise<Mail | NothingToSend | undefined>;

const body = (lines: Block[], footer: string) => mailBody(lines, [footer]);

const FOOTER = (studio: string) =>
  `You get this e-mail because this address was used to book a class with ${studio}.`;

function whereLine(): string {
  const { address } = siteFacts();
  return `At the studio${address ? `: ${address}` : ''}`;
}

/** A place at the version its ref names, with its class; or why there is nothing to send. */
async function placeAbout(
  ref: string,
  wanted: 'booked' | 'cancelled' | 'any',
): Promise<{ place: Place; date: ClassDate } | NothingToSend | undefined> {
  const read = readMailRef(ref);
  const place = read && (await loadPlace(read.id));
  const date = place && (await loadClassDate(place.classDateId));
  if (!read || !place || !date) return undefined;
  if (place.sequence !== read.sequence) {
    return nothingToSend(`place changed since (now version ${place.sequence})`);
  }
  if (wanted === 'booked' && place.status !== 'booked')
    return nothingToSend(`place ${place.status}`);
  if (wanted === 'cancelled' && place.status !== 'cancelled') {
    return nothingToSend('place not cancelled');
  }
  return { place, date };
}

const isNothing = (value: unknown): value is NothingToSend | undefined =>
  value === undefined || (typeof value === 'object' && value !== null && 'retired' in value);

function placeInvite(place: Place, date: ClassDate, method: 'REQUEST' | 'CANCEL') {
  const studio = siteFacts();
  const host = new URL(place.origin).hostname;
  const manage = placeManageUrl(place);
  const { words } = placePolicy();
  return classCalendar(method, {
    uid: placeUid(place.id, host),
    sequence: place.sequence,
    start: date.start,
    end: date.end,
    summary: `${date.title} with ${studio.instructor}`,
    location: studio.address ?? studio.name,
    description:
      method === 'CANCEL'
        ? `Your place in ${date.title} at ${studio.name} is cancelled.`
        : `Your place in ${date.title} with ${studio.instructor} at ${studio.name}.\n\nDue at the studio: ${dollars(date.priceCents)}\n\n${words}\n\nTo cancel your place: ${manage}`,
    url: manage,
    studio: { name: studio.name, email: studio.email },
    attendee: { name: firstName(place.name), email: place.email },
    now: now(),
  });
}

/**
 * Whether a waiver covering this address (any case) is on file: its latest waiver, spam aside,
 * read as the desk reads it (waiver/versions.ts `statusOf`, as records/participants.ts does).
 */
async function waiverCovers(email: string): Promise<boolean> {
  const [latest] = await query<{ created_at: Date; waiver_text_sha256: string }>(
    `SELECT created_at, waiver_text_sha256 FROM waivers
      WHERE lower(email) = lower($1) AND spam_reason IS NULL
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [email],
  );
  const status = statusOf(
    latest && { createdAt: new Date(latest.created_at), sha256: latest.waiver_text_sha256 },
  );
  return status === 'covered';
}

/** The participant's confirmation (REQUEST): the class, the amount due, the links. */
export async function visitorMail(ref: string): Composed {
  const found = await placeAbout(ref, 'booked');
  if (isNothing(found)) return found;
  const { place, date } = found;
  const studio = siteFacts();
  const settings = classSettings();
  const w = whenOf(date.start, date.end, settings.timeZone);
  const covered = await waiverCovers(place.email);
  const paid = place.payment === 'paid';
  return {
    to: place.email,
    subject: `Your place in ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(place.name)},`,
        `Your place in ${date.title} with ${studio.instructor} is booked.`,
        {
          fields: [
            ['When', `${w.date}, ${w.time} (${w.zone})`],
            ['Where', whereLine()],
            [paid ? 'Paid' : 'Due at the studio', dollars(date.priceCents)],
          ],
        },
        placePolicy().words,
        'The calendar invite is attached: open it to add the class to your calendar.',
        { text: 'To cancel your place:', link: placeManageUrl(place), label: 'Manage your place' },
        ...(covered
          ? []
          : [
              {
                text: 'The liability waiver must be signed before the class (it takes about 5 minutes):',
                link: `${place.origin}/waiver`,
                label: 'Complete the waiver',
              },
            ]),
        `See you soon,\n${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
    icalEvent: placeInvite(place, date, 'REQUEST'),
  };
}

/** The participant's reminder a day before: the class, the amount due, the links again. */
export async function reminderMail(ref: string): Composed {
  const found = await placeAbout(ref, 'booked');
  if (isNothing(found)) return found;
  const { place, date } = found;
  if (date.cancelledAt) return nothingToSend('the class is cancelled');
  if (date.start <= now()) return nothingToSend('the class has begun');
  const studio = siteFacts();
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  const covered = await waiverCovers(place.email);
  return {
    to: place.email,
    subject: `Reminder: ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(place.name)},`,
        `A reminder: your place in ${date.title} with ${studio.instructor} is coming up.`,
        {
          fields: [
            ['When', `${w.date}, ${w.time} (${w.zone})`],
            ['Where', whereLine()],
            [place.payment === 'paid' ? 'Paid' : 'Due at the studio', dollars(date.priceCents)],
          ],
        },
        placePolicy().words,
        { text: 'To cancel your place:', link: placeManageUrl(place), label: 'Manage your place' },
        ...(covered
          ? []
          : [
              {
                text: 'The liability waiver must be signed before the class (it takes about 5 minutes):',
                link: `${place.origin}/waiver`,
                label: 'Complete the waiver',
              },
            ]),
        `See you soon,\n${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
  };
}

/** The participant's cancellation (CANCEL): as they asked, too few booked, or the studio's. */
export async function visitorCancelMail(ref: string): Composed {
  const found = await placeAbout(ref, 'cancelled');
  if (isNothing(found)) return found;
  const { place, date } = found;
  const studio = siteFacts();
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  const when = `${w.date}, ${w.time} (${w.zone})`;
  // Paid online: what is left of it was refunded with the cancellation, and said so.
  const money = await refundedOf('place', place.id);
  const nothingDue = money ? refundWords(money) || 'Nothing is due.' : 'Nothing is due.';
  const why =
    place.cancelledBy === 'visitor'
      ? `Your place in ${date.title} on ${when} is cancelled, as you asked. ${cancelledMoney(money, place.payment === 'paid' ? date.priceCents : 0)}`
      : place.cancelledBy === 'minimum'
        ? `${date.title} on ${when} will not take place: fewer than ${date.minimum} people booked it, so it is cancelled. We are sorry for the change of plan. ${nothingDue}`
        : `${studio.instructor} has had to cancel ${date.title} on ${when}. We are sorry for the change of plan. ${nothingDue}`;
  return {
    to: place.email,
    subject: `Cancelled: ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(place.name)},`,
        why,
        ...(place.cancelledBy !== 'visitor' && place.cancelNote
          ? [`A note from the studio:\n${place.cancelNote}`]
          : []),
        'The cancellation is attached: your calendar removes the class when you open it.',
        {
          text: 'To book another class:',
          link: `${place.origin}/classes`,
          label: 'See the classes',
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
    icalEvent: placeInvite(place, date, 'CANCEL'),
  };
}

/** The studio's notice of a place booked or cancelled: who, and how full the class is. */
export async function studioMail(ref: string): Composed {
  const found = await placeAbout(ref, 'any');
  if (isNothing(found)) return found;
  const { place, date } = found;
  if (place.status !== 'booked' && place.status !== 'cancelled') {
    return nothingToSend(`place ${place.status}`);
  }
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  const [{ n }] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM class_places WHERE class_date_id = $1 AND status = 'booked'`,
    [date.id],
  );
  const booked = place.status === 'booked';
  return {
    to: contactRecipient(),
    replyTo: place.email,
    subject: `Class ${booked ? 'place booked' : 'place cancelled'}: ${place.name}, ${date.title} ${w.short}`,
    ...body(
      [
        booked
          ? `${place.name} booked a place in ${date.title} on ${w.date}, ${w.time} (${w.zone}).`
          : place.cancelledBy === 'visitor'
            ? `${place.name} cancelled their place in ${date.title} on ${w.date}, ${w.time} (${w.zone}).`
            : `${place.name}'s place in ${date.title} on ${w.date}, ${w.time} (${w.zone}) was cancelled on the records desk by ${place.cancelledBy ?? 'the studio'}.`,
        {
          fields: [
            ['Booked now', `${n} of ${date.capacity} places (it runs with ${date.minimum})`],
            [
              place.payment === 'paid' ? 'Paid' : booked ? 'Due at the studio' : 'Price',
              dollars(date.priceCents),
            ],
          ],
        },
        'The roster is on the records desk.',
      ],
      `Reply to this e-mail to write to ${place.name}: replies go to ${place.email}.`,
    ),
  };
}

/** The instructor's own event of the class (REQUEST when first booked, CANCEL when cancelled). */
export async function calendarMail(ref: string): Composed {
  const read = readMailRef(ref);
  const date = read && (await loadClassDate(read.id));
  if (!read || !date) return undefined;
  if (date.sequence !== read.sequence) return nothingToSend('class changed since');
  const cancelled = date.cancelledAt !== null;
  if (cancelled) {
    const [{ n }] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM class_places
        WHERE class_date_id = $1 AND status IN ('booked', 'cancelled')`,
      [date.id],
    );
    // A date cancelled before anyone booked it never reached her calendar.
    if (n === 0) return nothingToSend('the class was never booked');
  }
  const studio = siteFacts();
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  const { cutoffHours } = classSettings().timetable;
  const why =
    date.cancelReason === 'minimum'
      ? `Fewer than its minimum of ${date.minimum} had booked when its booking closed, ${cutoffHours} ${cutoffHours === 1 ? 'hour' : 'hours'} before it starts. Everyone booked and everyone waiting has been told.`
      : `It was cancelled on the records desk by ${date.cancelledBy ?? 'the studio'}. Everyone booked and everyone waiting has been told.`;
  return {
    to: contactRecipient(),
    subject: `${cancelled ? 'Class cancelled' : 'Class booked'}: ${date.title}, ${w.short}`,
    ...body(
      [
        cancelled
          ? `${date.title} on ${w.date}, ${w.time} (${w.zone}) is cancelled. ${why}`
          : `The first place in ${date.title} on ${w.date}, ${w.time} (${w.zone}) is booked: the class is in your calendar from this invite. Each booking is on the records desk.`,
      ],
      'The invite names no participant: the roster is on the records desk.',
    ),
    icalEvent: classCalendar(cancelled ? 'CANCEL' : 'REQUEST', {
      uid: classUid(date.id, new URL(siteOrigin()).hostname),
      sequence: date.sequence,
      start: date.start,
      end: date.end,
      summary: date.title,
      location: studio.address ?? studio.name,
      description: cancelled ? why : `${date.title}: up to ${date.capacity} people.`,
      studio: { name: studio.name, email: studio.email },
      now: now(),
    }),
  };
}

/** A waitlist entry at the step its ref names, with its class. */
async function entryAbout(ref: string, step: number) {
  const read = readMailRef(ref);
  if (!read || read.sequence !== step) return undefined;
  const entry = await loadWaitEntry(read.id);
  const date = entry && (await loadClassDate(entry.classDateId));
  return entry && date ? { entry, date } : undefined;
}

/** To a person who joined a full class's waitlist. */
export async function waitlistMail(ref: string): Composed {
  const found = await entryAbout(ref, WAIT_MAIL.joined);
  if (!found) return undefined;
  const { entry, date } = found;
  if (entry.status !== 'waiting') return nothingToSend(`waitlist entry ${entry.status}`);
  const studio = siteFacts();
  const settings = classSettings();
  const w = whenOf(date.start, date.end, settings.timeZone);
  const hours = settings.timetable.claimHoldHours;
  return {
    to: entry.email,
    subject: `You are on the waitlist for ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(entry.name)},`,
        `${date.title} on ${w.date}, ${w.time} (${w.zone}) is full, and you are on its waitlist.`,
        `If a place comes free before ${momentOf(cutoffOf(date.start, settings), settings.timeZone)}, we will e-mail you a link that holds it for you for ${hours} ${hours === 1 ? 'hour' : 'hours'}. After that, the waitlist closes.`,
        ...(entry.leave
          ? [
              {
                text: 'Plans changed? You can leave the waitlist:',
                link: `${entry.origin}${PAGES.classWaiting}?token=${leaveToken(entry)}`,
                label: 'Leave the waitlist',
              },
            ]
          : []),
        `${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
  };
}

/** The offer of a freed place: the claim link, and until when it holds the place. */
export async function offerMail(ref: string): Composed {
  const found = await entryAbout(ref, WAIT_MAIL.offer);
  if (!found) return undefined;
  const { entry, date } = found;
  if (entry.status !== 'offered' || !entry.offerExpiresAt) {
    return nothingToSend(`waitlist entry ${entry.status}`);
  }
  if (entry.offerExpiresAt <= now()) return nothingToSend('the offer has lapsed');
  const studio = siteFacts();
  const settings = classSettings();
  const w = whenOf(date.start, date.end, settings.timeZone);
  return {
    to: entry.email,
    subject: `A place is free in ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(entry.name)},`,
        `A place has come free in ${date.title} on ${w.date}, ${w.time} (${w.zone}), and it is yours if you claim it.`,
        {
          fields: [
            ['Held for you until', momentOf(entry.offerExpiresAt, settings.timeZone)],
            ['Due at the studio', dollars(date.priceCents)],
          ],
        },
        { text: 'To take the place:', link: claimUrl(entry), label: 'Claim your place' },
        `If you do not claim it by then, it is offered to the next person waiting.`,
        `${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
  };
}

/** To a person still waiting when the waitlist closed (the cutoff), or the class was cancelled. */
export async function waitlistClosedMail(ref: string): Composed {
  const found = await entryAbout(ref, WAIT_MAIL.closed);
  if (!found) return undefined;
  const { entry, date } = found;
  if (entry.status !== 'closed') return nothingToSend(`waitlist entry ${entry.status}`);
  const studio = siteFacts();
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  const when = `${w.date}, ${w.time} (${w.zone})`;
  return {
    to: entry.email,
    subject: date.cancelledAt
      ? `Cancelled: ${date.title} on ${w.short}`
      : `No place came free in ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(entry.name)},`,
        date.cancelledAt
          ? `${date.title} on ${when}, whose waitlist you were on, is cancelled.`
          : `No place came free in ${date.title} on ${when} before its waitlist closed, so you are not booked. We are sorry.`,
        {
          text: 'To book another class:',
          link: `${entry.origin}/classes`,
          label: 'See the classes',
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
  };
}

/**
 * The participant's mail when their payment came after the place held for them went to someone
 * else (payment.ts): what was refunded, and where to book another class. Composed from
 * `<place id>:refund-<refund id>`.
 */
export async function classRefundedMail(ref: string): Promise<Mail | NothingToSend | undefined> {
  const refund = await refundToTell(ref, 'place');
  const place = refund && (await loadPlace(refund.bookingId));
  const date = place && (await loadClassDate(place.classDateId));
  if (!refund || !place || !date) return undefined;
  const studio = siteFacts();
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  // Stripe refused it: nothing was refunded, so nothing is told.
  if (refund.state === 'failed') return nothingToSend('Stripe refused the refund');
  if (refund.reason === 'mismatch') {
    return {
      to: place.email,
      subject: `Refunded: your payment for ${date.title} on ${w.short}`,
      ...body(
        [
          `Hello ${firstName(place.name)},`,
          mismatchWords(refund, `${date.title} on ${w.date}, ${w.time} (${w.zone})`),
          {
            text: 'To book a class again:',
            link: `${place.origin}/classes`,
            label: 'See the classes',
          },
          `${studio.instructor}, ${studio.name}`,
        ],
        FOOTER(studio.name),
      ),
      replyTo: contactRecipient(),
    };
  }
  if (refund.reason === 'studio') {
    const full = refund.amountCents >= refund.paidCents;
    const live = place.status === 'booked' && !date.cancelledAt;
    return {
      to: place.email,
      subject: `Refunded: ${full ? 'your payment' : `${dollars(refund.amountCents)} of your payment`} for ${date.title} on ${w.short}`,
      ...body(
        [
          `Hello ${firstName(place.name)},`,
          deskRefundWords(
            studio.instructor,
            refund,
            `${date.title} on ${w.date}, ${w.time} (${w.zone})`,
          ),
          ...(live ? ['Your place is still booked.'] : []),
          `${studio.instructor}, ${studio.name}`,
        ],
        FOOTER(studio.name),
      ),
      replyTo: contactRecipient(),
    };
  }
  return {
    to: place.email,
    subject: `Refunded: your payment for ${date.title} on ${w.short}`,
    ...body(
      [
        `Hello ${firstName(place.name)},`,
        `Your payment for ${date.title} on ${w.date}, ${w.time} (${w.zone}) reached us after the place held for you had run out, and the place has since been taken. We could not keep it for you, so your payment of ${dollars(refund.amountCents)} has been refunded in full. It reaches your card in 5 to 10 days.`,
        {
          text: 'To book another class:',
          link: `${place.origin}/classes`,
          label: 'See the classes',
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      FOOTER(studio.name),
    ),
    replyTo: contactRecipient(),
  };
}

/** The studio's mail about a refund of a place's payment (`studioRefundComposer`). */
export const classStudioRefundMail = studioRefundComposer('place', async (id) => {
  const place = await loadPlace(id);
  const date = place && (await loadClassDate(place.classDateId));
  if (!place || !date) return undefined;
  const w = whenOf(date.start, date.end, classSettings().timeZone);
  return { person: place, what: `a place in ${date.title} on ${w.date}, ${w.time} (${w.zone})` };
});
