import { z } from './zod';

/** The prefix every signature must carry: the pad exports PNG and nothing else. */
export const SIGNATURE_PREFIX = 'data:image/png;base64,';

/** 512 KB of PNG is far more than any signature needs (a drawn one is usually under 40 KB). */
export const MAX_SIGNATURE_BYTES = 512 * 1024;
const MAX_SIGNATURE_CHARS = SIGNATURE_PREFIX.length + Math.ceil(MAX_SIGNATURE_BYTES / 3) * 4;

const requiredText = (max: number, missing: string, tooLong: string) =>
  z.string(missing).trim().min(1, missing).max(max, tooLong);

const phone = (missing: string) =>
  requiredText(40, missing, 'Please keep the phone number under 40 characters.').refine(
    (value) => (value.match(/\d/g) ?? []).length >= 7 && /^[\d\s+().\-/#extEXT]+$/.test(value),
    'Please enter a phone number with at least 7 digits.',
  );

const optionalText = (max: number, tooLong: string) =>
  z.string().trim().max(max, tooLong).optional().default('');

/** The waiver fields, checked the same way by the form in the browser and by the function. */
export const waiverSchema = z.object(
  {
    firstName: requiredText(
      100,
      'Please enter your first name.',
      'Please shorten your first name.',
    ),
    lastName: requiredText(100, 'Please enter your last name.', 'Please shorten your last name.'),
    email: z
      .string('Please enter your e-mail address.')
      .trim()
      .min(1, 'Please enter your e-mail address.')
      .max(254, 'Please shorten your e-mail address.')
      .pipe(z.email('Please enter a valid e-mail address, like name@example.com.')),
    phone: phone('Please enter your phone number.'),
    emergencyName: requiredText(
      100,
      "Please enter your emergency contact's name.",
      "Please shorten your emergency contact's name.",
    ),
    emergencyPhone: phone("Please enter your emergency contact's phone number."),
    medicalConditions: optionalText(2000, 'Please keep medical conditions under 2,000 characters.'),
    medications: optionalText(2000, 'Please keep medications under 2,000 characters.'),
    agreedToTerms: z.literal(true, 'Please read and agree to the liability waiver terms.'),
    agreedToPhotos: z.boolean('Photo consent must be yes or no.').optional().default(false),
    signature: z
      .string('Please provide your electronic signature.')
      .min(1, 'Please provide your electronic signature.')
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
    /**
     * Made in the browser for each submission and kept across its retries: the server stores a
     * submission id once, so a retry or a double click never files a second waiver or e-mail.
     */
    submissionId: z
      .uuid({ error: 'The form lost track of this waiver: please reload the page.' })
      .optional(),
    /** The version of the waiver text shown to the participant, when the page sends it. */
    waiverVersion: z.string().max(40).optional(),
  },
  'Please send the waiver as {"waiver": {...}}.',
);

export type Waiver = z.output<typeof waiverSchema>;
export type WaiverInput = z.input<typeof waiverSchema>;

/** What the form holds while it is being filled in. */
export interface WaiverFields {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  emergencyName: string;
  emergencyPhone: string;
  medicalConditions: string;
  medications: string;
  agreedToTerms: boolean;
  agreedToPhotos: boolean;
  signature: string;
}

export const EMPTY_WAIVER: WaiverFields = {
  firstName: '',
  lastName: '',
  email: '',
  phone: '',
  emergencyName: '',
  emergencyPhone: '',
  medicalConditions: '',
  medications: '',
  agreedToTerms: false,
  agreedToPhotos: false,
  signature: '',
};

/** The `POST /api/submit-waiver` body. */
export const waiverRequestSchema = z.object(
  { waiver: waiverSchema },
  'Please send the waiver as {"waiver": {...}}.',
);

/** One message per field, for the form to show next to each field. */
export function fieldErrors(error: z.ZodError): Partial<Record<keyof WaiverFields, string>> {
  const errors: Partial<Record<keyof WaiverFields, string>> = {};
  for (const issue of error.issues) {
    const field = issue.path.at(-1);
    if (typeof field === 'string' && !(field in errors)) {
      errors[field as keyof WaiverFields] = issue.message;
    }
  }
  return errors;
}

/** Every problem in one sentence-per-problem text, naming what to fix. */
export function describeProblems(error: z.ZodError): string {
  return [...new Set(error.issues.map((issue) => issue.message))].join(' ');
}
