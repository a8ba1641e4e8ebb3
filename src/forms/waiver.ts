import { EMAIL_FIELD, fieldsSchema, submissionIdField, type FieldSpec } from './fields';
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

/** The two consents, as the form and the PDF word them. */
export const CONSENTS = {
  agreedToTerms: 'Agreed to the liability waiver terms',
  agreedToPhotos: 'Consents to promotional photos',
} as const;

export const SIGNATURE_MISSING = 'Please provide your electronic signature.';
export const TERMS_MISSING = 'Please read and agree to the liability waiver terms.';

/** The waiver fields, checked the same way by the form in the browser and by the function. */
export const waiverSchema = z.object(
  {
    ...fieldsSchema(WAIVER_FIELDS),
    agreedToTerms: z.literal(true, TERMS_MISSING),
    agreedToPhotos: z.boolean('Photo consent must be yes or no.').optional().default(false),
    signature: z
      .string(SIGNATURE_MISSING)
      .min(1, SIGNATURE_MISSING)
      .max(
        MAX_SIGNATURE_CHARS,
        'Your signature image is too large. Please clear it and sign again.',
      )
      .refine(
        (value) => value.startsWith(SIGNATURE_PREFIX),
        'Your signature must be a PNG image. Please clear it and sign again.',
      )
      .refine(
        (value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value.slice(SIGNATURE_PREFIX.length)),
        'Your signature image is damaged. Please clear it and sign again.',
      ),
    submissionId: submissionIdField('waiver'),
    /** The version of the waiver text shown to the participant, when the page sends it. */
    waiverVersion: z.string().max(40).optional(),
  },
  'Please send the waiver as {"waiver": {...}}.',
);

export type WaiverInput = z.input<typeof waiverSchema>;
export type Waiver = z.output<typeof waiverSchema>;

/** The form's order, for focusing the first field that needs fixing. */
export const WAIVER_FIELD_ORDER = [
  ...WAIVER_FIELD_NAMES,
  'agreedToTerms',
  'agreedToPhotos',
  'signature',
] as const;
