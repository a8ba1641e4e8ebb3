import { FIX_BELOW } from './form-answer';
import {
  EMAIL_FIELD,
  fieldSchema,
  fieldsSchema,
  submissionIdField,
  type FieldSpec,
} from './fields';
import { z } from './zod';

/** The prefix every signature must carry: the pad exports PNG and nothing else. */
export const SIGNATURE_PREFIX = 'data:image/png;base64,';

/** 512 KB of PNG is far more than any signature needs (a drawn one is usually under 40 KB). */
export const MAX_SIGNATURE_BYTES = 512 * 1024;
const MAX_SIGNATURE_CHARS = SIGNATURE_PREFIX.length + Math.ceil(MAX_SIGNATURE_BYTES / 3) * 4;

/** The form's sections, in order; each field below names the one it belongs to. */
export const WAIVER_SECTIONS = {
  personal: 'Personal Information',
  emergency: 'Emergency Contact',
  health: 'Health Information',
} as const;

export type WaiverSection = keyof typeof WAIVER_SECTIONS;

export interface WaiverFieldSpec extends FieldSpec {
  section: WaiverSection;
  /** Health information: encrypted at rest, left out of the participant's copy and of exports. */
  health?: boolean;
}

/**
 * The participant's fields, in the form's order. Everything that lists the waiver's fields reads
 * them from here: the schema, the form, the database columns (the name in snake_case), the PDF,
 * the records desk and its export. Adding a field is an entry here and a migration.
 */
export const WAIVER_FIELDS = {
  firstName: {
    section: 'personal',
    label: 'First Name',
    kind: 'text',
    required: true,
    max: 100,
    about: 'your first name',
    autoComplete: 'given-name',
  },
  lastName: {
    section: 'personal',
    label: 'Last Name',
    kind: 'text',
    required: true,
    max: 100,
    about: 'your last name',
    autoComplete: 'family-name',
  },
  email: { section: 'personal', ...EMAIL_FIELD },
  phone: {
    section: 'personal',
    label: 'Phone',
    kind: 'phone',
    required: true,
    max: 40,
    about: 'your phone number',
    autoComplete: 'tel',
  },
  emergencyName: {
    section: 'emergency',
    label: 'Emergency Contact Name',
    kind: 'text',
    required: true,
    max: 100,
    about: "your emergency contact's name",
  },
  emergencyPhone: {
    section: 'emergency',
    label: 'Emergency Contact Phone',
    kind: 'phone',
    required: true,
    max: 40,
    about: "your emergency contact's phone number",
  },
  medicalConditions: {
    section: 'health',
    health: true,
    label: 'Medical Conditions or Injuries',
    kind: 'text',
    required: false,
    max: 2000,
    about: 'the medical conditions',
    multiline: true,
    placeholder: 'Please list any medical conditions, injuries, surgeries or pregnancy',
  },
  medications: {
    section: 'health',
    health: true,
    label: 'Current Medications',
    kind: 'text',
    required: false,
    max: 2000,
    about: 'the medications',
    multiline: true,
    placeholder: 'Please list any medications you are currently taking',
  },
} as const satisfies Record<string, WaiverFieldSpec>;

export type WaiverFieldName = keyof typeof WAIVER_FIELDS;

export const WAIVER_FIELD_NAMES = Object.keys(WAIVER_FIELDS) as WaiverFieldName[];

/** Whether a field holds health information: sealed when stored, shown only to the studio. */
export const isHealthField = (name: WaiverFieldName): boolean =>
  (WAIVER_FIELDS[name] as WaiverFieldSpec).health === true;

/** The two consents, as the form and the PDF word them. */
export const CONSENTS = {
  agreedToTerms: 'Agreed to the liability waiver terms',
  agreedToPhotos: 'Consents to promotional photos',
} as const;

export const SIGNATURE_MISSING = 'Please provide your electronic signature.';
export const TERMS_MISSING = 'Please read and agree to the liability waiver terms.';

/** The typed-name signature: drawn by the pad in the browser, or by the server with no script. */
export const SIGNATURE_NAME_FIELD = {
  label: 'Type your full name to sign',
  kind: 'text',
  required: false,
  max: 80,
  about: 'your typed name',
  autoComplete: 'name',
} as const satisfies FieldSpec;

/** How a signature was made, for the audit trail. */
export const SIGNATURE_KINDS = {
  drawn: 'Drawn on the signature pad',
  typed: 'Typed name, drawn on the signature pad',
  'typed-server': 'Typed name, drawn by the server (the form was sent without its script)',
} as const;

export type SignatureKind = keyof typeof SIGNATURE_KINDS;

/** The waiver fields, checked the same way by the form in the browser and by the function. */
export const waiverSchema = z
  .object(
    {
      ...fieldsSchema(WAIVER_FIELDS),
      agreedToTerms: z.literal(true, TERMS_MISSING),
      agreedToPhotos: z.boolean('Photo consent must be yes or no.').optional().default(false),
      /** The pad's PNG; or empty, with the name typed to sign in `signatureName`. */
      signature: z
        .string(SIGNATURE_MISSING)
        .max(
          MAX_SIGNATURE_CHARS,
          'Your signature image is too large. Please clear it and sign again.',
        )
        .refine(
          (value) => value === '' || value.startsWith(SIGNATURE_PREFIX),
          'Your signature must be a PNG image. Please clear it and sign again.',
        )
        .refine(
          (value) =>
            value === '' || /^[A-Za-z0-9+/]+={0,2}$/.test(value.slice(SIGNATURE_PREFIX.length)),
          'Your signature image is damaged. Please clear it and sign again.',
        )
        .optional()
        .default(''),
      signatureName: fieldSchema(SIGNATURE_NAME_FIELD),
      /** What the pad says it holds: strokes, or a typed name it drew. */
      signatureKind: z.enum(['drawn', 'typed']).optional(),
      submissionId: submissionIdField('waiver'),
      /** The version of the waiver text shown to the participant, when the page sends it. */
      waiverVersion: z.string().max(40).optional(),
    },
    'Please send the waiver as {"waiver": {...}}.',
  )
  .refine((waiver) => Boolean(waiver.signature || waiver.signatureName), {
    message: SIGNATURE_MISSING,
    path: ['signature'],
    // Named with the other missing fields, not only once they are all right.
    when: ({ value }) => typeof value === 'object' && value !== null,
  });

export type WaiverInput = z.input<typeof waiverSchema>;
export type Waiver = z.output<typeof waiverSchema>;

/** The form's order, for focusing the first field that needs fixing. */
export const WAIVER_FIELD_ORDER = [
  ...WAIVER_FIELD_NAMES,
  'agreedToTerms',
  'agreedToPhotos',
  'signature',
] as const;

/** The waiver form's notices, in the product's words: the toasts, and the pages a post without script gets. */
export const WAIVER_NOTICES = {
  sent: {
    title: 'Waiver submitted successfully!',
    text: 'Your liability waiver has been processed and saved. A copy has been sent to our records.',
  },
  failed: {
    title: 'Error submitting waiver',
    fallback: 'Please try again or contact us directly.',
    /** The product's default thrown text: logged when the answer carries no words. */
    thrown: 'Failed to submit waiver',
  },
  agreement: { title: 'Agreement Required', text: TERMS_MISSING },
  signature: { title: 'Signature Required', text: SIGNATURE_MISSING },
} as const;

/** Every field's label as the form shows it, for naming the fields that need fixing. */
export const WAIVER_LABELS: Record<string, string> = {
  ...Object.fromEntries(WAIVER_FIELD_NAMES.map((name) => [name, WAIVER_FIELDS[name].label])),
  agreedToTerms: 'Agreement to the waiver terms',
  agreedToPhotos: 'Photo consent',
  signature: 'Electronic Signature',
  signatureName: SIGNATURE_NAME_FIELD.label,
  signatureKind: 'Electronic Signature',
  submissionId: 'Form',
  waiverVersion: 'Waiver version',
};

/**
 * What the page for a refused waiver says (a post without script), in the product's words: the
 * terms and the signature have notices of their own, as their toasts do.
 */
export function waiverProblemNotice(problem: {
  error: string;
  fieldErrors?: Record<string, string>;
}) {
  const { agreement, signature, failed } = WAIVER_NOTICES;
  const fieldErrors = problem.fieldErrors ?? {};
  const notice = fieldErrors.agreedToTerms
    ? agreement
    : fieldErrors.signature === SIGNATURE_MISSING
      ? signature
      : { title: failed.title, text: problem.fieldErrors ? FIX_BELOW : problem.error };
  return { ...notice, fallback: failed.fallback };
}

/**
 * The fragment of a re-sign link from the studio's e-mail (`/waiver#re-sign=<token>`): the form
 * hydrates at once and fills in the name and e-mail address it is for.
 */
export const RE_SIGN_HASH = '#re-sign=';

/** Where the waiver form exchanges a re-sign link's token (in a POST's body) for who it is for. */
export const RE_SIGN_ACTION = '/api/waiver/re-sign';

/** What the waiver form says above itself when opened from a re-sign link. */
export const RE_SIGN_NOTICE = {
  title: 'The waiver has changed since you last signed',
  text: 'Please read it again and sign this version before your next session.',
  changesLabel: 'What changed',
} as const;

/** A re-sign link that is not the studio's (or whose request was removed). */
export const RE_SIGN_UNKNOWN =
  'This link is not one the studio sent, or its request was removed. Please fill in the form.';
/** A re-sign link whose address has signed since. */
export const RE_SIGN_SPENT =
  'This link has already been used to sign the new waiver. To sign again, please fill in the form.';
/** A re-sign link past its days. */
export const RE_SIGN_EXPIRED =
  'This link has expired. Please fill in the form, or ask the studio for a new link.';

/**
 * Said before booking on every booking page (a session's, the classes'): the page cannot know
 * whether a waiver covers the visitor, and must not tell a stranger whether one covers an
 * address typed; the confirmation, sent to that address, says so only when none does.
 */
export const waiverBeforeBooking = (what: 'session' | 'class') =>
  `New to the studio? Please sign the liability waiver before your first ${what}: it takes about 5 minutes, and once is enough. Signed already? Nothing more to do; your confirmation says so if the studio has no waiver from your e-mail address.`;
