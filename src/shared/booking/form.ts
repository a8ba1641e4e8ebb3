/**
 * The booking form on /consultation: its fields, described once like the other forms' (fields.ts),
 * the schema the island and the function both check with, and its words. Browser and server:
 * it imports only src/shared/ (zod through ../zod, jitless).
 */
import { FIX_BELOW, SLOT_TAKEN } from '../form-answer';

export { SLOT_TAKEN };
import {
  EMAIL_FIELD,
  NAME_FIELD,
  fieldsSchema,
  submissionIdField,
  type FieldSpec,
} from '../fields';
import { z } from '../zod';

/** The name of the slot's radio buttons: each posts the slot's start, an ISO instant. */
export const SLOT_FIELD = 'slot';

/**
 * The look of a slot's radio button and its label (src/styles/global.css), the same whether the
 * server wrote it (the page's list) or the form's script did (the nearest free slots after one
 * was taken).
 */
export const SLOT_CHIP = 'slot';

export const BOOKING_FIELDS = {
  name: NAME_FIELD,
  email: { ...EMAIL_FIELD, placeholder: 'you@example.com' },
  phone: {
    label: 'Phone (optional)',
    kind: 'phone',
    required: false,
    max: 40,
    about: 'your phone number',
    autoComplete: 'tel',
  },
  topic: {
    label: 'What would you like to talk about? (optional)',
    kind: 'text',
    required: false,
    max: 2000,
    about: 'what you would like to talk about',
    multiline: true,
    placeholder: 'Your goals, your experience, anything you would like the instructor to know...',
  },
} as const satisfies Record<string, FieldSpec>;

/** An instant as the slots post it: `2027-03-15T16:00:00Z` (a second or millisecond part allowed). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/;

/** A slot chosen for a booking of `what` (its words name it: "a time for your session"). */
export function slotSchemaFor(what: 'consultation' | 'session') {
  const choose = `Please choose a time for your ${what}.`;
  return z
    .string(choose)
    .trim()
    .refine((value) => value.length > 0, choose)
    .refine(
      (value) => value === '' || (INSTANT.test(value) && !Number.isNaN(Date.parse(value))),
      'Please choose one of the times offered.',
    );
}

export const slotSchema = slotSchemaFor('consultation');

export const bookingSchema = z.object({
  [SLOT_FIELD]: slotSchema,
  ...fieldsSchema(BOOKING_FIELDS),
  submissionId: submissionIdField('booking'),
});

export type BookingInput = z.input<typeof bookingSchema>;
export type BookingRequest = z.output<typeof bookingSchema>;
export type BookingField = keyof BookingRequest;

/** The form's own order, for focusing the first field that needs fixing. */
export const BOOKING_FIELD_ORDER: readonly BookingField[] = [
  SLOT_FIELD,
  'name',
  'email',
  'phone',
  'topic',
];

/** Every field's label, for naming the fields that need fixing. */
export const BOOKING_LABELS: Record<BookingField, string> = {
  [SLOT_FIELD]: 'Time',
  name: BOOKING_FIELDS.name.label,
  email: BOOKING_FIELDS.email.label,
  phone: 'Phone',
  topic: 'What would you like to talk about?',
  submissionId: 'Form',
};

/** Where the booking form posts. */
export const BOOKING_ACTION = '/api/consultation/book';

/** What the booking form says, in the site's words. */
export const BOOKING_NOTICES = {
  sent: {
    title: 'Your consultation is booked!',
    text: 'A confirmation with a calendar invite is on its way to your inbox.',
  },
  failed: {
    title: 'The consultation could not be booked',
    fallback: (email: string) => `Please try again or write to ${email}`,
  },
  taken: {
    title: 'That time has just been taken',
    text: 'Someone booked it a moment ago. Here are the nearest free times; everything you typed is kept.',
    none: 'Someone booked it a moment ago, and no other time is free just now. Please look again later, or write to the studio.',
  },
} as const;

/** A slot offered in an answer: when it starts (what the form posts) and how it reads. */
export interface OfferedSlot {
  start: string;
  /** "Monday, March 15" */
  day: string;
  /** "9:00 AM PDT" */
  time: string;
}

/** The booking as the answer to a stored booking describes it to the visitor. */
export interface BookedSummary {
  start: string;
  end: string;
  day: string;
  time: string;
  /** "At the studio: 2140 SE Division St, ..." or "By video call: https://..." */
  place: string;
  /** The page to change or cancel it. */
  manage: string;
}

/** What a refusal page says (a post without script), in the form's words. */
export function bookingProblemNotice(
  problem: { error: string; fieldErrors?: Record<string, string> },
  studioEmail: string,
) {
  return {
    title: BOOKING_NOTICES.failed.title,
    text: problem.fieldErrors ? FIX_BELOW : problem.error,
    fallback: BOOKING_NOTICES.failed.fallback(studioEmail),
  };
}
