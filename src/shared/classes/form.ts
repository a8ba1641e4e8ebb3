/**
 * The forms of /classes: booking a place in a class, and joining a full class's waitlist. Both
 * post the class (its timetable key and start) and the person; the booking also posts the price
 * the page showed, which the function compares with the price in content (a price changed since,
 * or typed into the page, is refused with nothing stored). Browser and server: src/shared/ only.
 */
import { EMAIL_FIELD, NAME_FIELD, fieldsSchema, submissionIdField } from '../fields';
import { z } from '../zod';

export const CLASS_FIELDS = {
  name: NAME_FIELD,
  email: { ...EMAIL_FIELD, placeholder: 'you@example.com' },
} as const;

const CHOOSE_A_CLASS = 'Please choose a class from the timetable.';
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/;

const classFields = {
  /** The timetable class (`mat-foundations-tu-1800`). */
  class: z
    .string(CHOOSE_A_CLASS)
    .trim()
    .regex(/^[a-z0-9-]{1,120}$/, CHOOSE_A_CLASS),
  /** Its start, an ISO instant as the page posts it. */
  start: z
    .string(CHOOSE_A_CLASS)
    .trim()
    .refine((value) => INSTANT.test(value) && !Number.isNaN(Date.parse(value)), CHOOSE_A_CLASS),
  ...fieldsSchema(CLASS_FIELDS),
};

const PRICE = 'The price could not be read. Please reload the page and book again.';

export const classBookingSchema = z.object({
  ...classFields,
  /** The price the page showed, in dollars: checked against content, never used. */
  price: z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^\d{1,5}(\.\d{1,2})?$/, PRICE),
      ],
      PRICE,
    )
    .transform(Number)
    .optional(),
  submissionId: submissionIdField('booking'),
});

export const waitlistSchema = z.object({
  ...classFields,
  submissionId: submissionIdField('request'),
});

export type ClassBookingRequest = z.output<typeof classBookingSchema>;
export type WaitlistRequest = z.output<typeof waitlistSchema>;

export const CLASS_LABELS: Record<string, string> = {
  class: 'Class',
  start: 'Class',
  price: 'Price',
  name: CLASS_FIELDS.name.label,
  email: CLASS_FIELDS.email.label,
  submissionId: 'Form',
};

export const CLASS_BOOK_ACTION = '/api/classes/book';
export const CLASS_WAITLIST_ACTION = '/api/classes/waitlist';

export const CLASS_NOTICES = {
  booked: {
    title: 'Your place is booked!',
    text: 'A confirmation with a calendar invite is on its way to your inbox.',
  },
  waiting: {
    title: 'You are on the waitlist',
    text: 'If a place comes free, we will e-mail you a link that holds it for you for a while.',
  },
  failed: {
    title: 'The place could not be booked',
    fallback: (email: string) => `Please try again or write to ${email}`,
  },
  /** The price shown is not the class's price in content (changed since, or altered). */
  priceChanged:
    'The price of this class has changed since the page was loaded, so nothing was booked. Please reload the page and book again.',
  full: 'This class has just filled up, so nothing was booked. You can join its waitlist instead.',
  notFull: 'This class still has places, so there is no waitlist: book a place instead.',
  already: 'This e-mail address already has a place in this class.',
  alreadyWaiting: 'This e-mail address is already on the waitlist of this class.',
  closed: 'This class can no longer be booked. Please choose another one.',
  waitlistClosed:
    'The waitlist of this class has closed: no more places are offered this close to the class.',
} as const;

/** What a refusal page says (a post without script). */
export function classProblemNotice(
  problem: { error: string; fieldErrors?: Record<string, string> },
  studioEmail: string,
) {
  return {
    title: CLASS_NOTICES.failed.title,
    text: problem.error,
    fallback: CLASS_NOTICES.failed.fallback(studioEmail),
  };
}

/** A class of the coming weeks as /classes lists it: what it posts, and how it reads. */
export interface ClassListing {
  key: string;
  /** Its start, an ISO instant: what the forms post. */
  start: string;
  title: string;
  /** "Tuesday, December 1, 2026" */
  date: string;
  /** "6:00 – 6:55 PM PST" */
  time: string;
  /** "Tuesday, December 1 at 6:00 PM PST", to name it in a form's label. */
  short: string;
  capacity: number;
  placesLeft: number;
  /** Dollars, as the booking form posts it back (`45`, `42.5`). */
  price: number;
  /** "$45" */
  priceLabel: string;
  /** Paid online when booked (the studio's Stripe keys are set), else at the studio. */
  payOnline: boolean;
  /** open: places to book; full: the waitlist is open; closed: past its cutoff, or begun. */
  state: 'open' | 'full' | 'closed' | 'cancelled';
  /** Why booking is closed or the class cancelled, in a visitor's words. */
  why?: string;
  /** What the class is, from the timetable (a single date of a class of its own has none). */
  description?: string;
}
