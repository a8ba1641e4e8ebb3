import { z } from './zod';

/** The services a visitor can ask about (spec section 3): values are stored, labels shown. */
export const SERVICE_OPTIONS = [
  { value: 'private-session', label: 'Private Session' },
  { value: 'small-group', label: 'Small Group Class' },
  { value: 'in-home', label: 'In-Home Session' },
  { value: 'prenatal', label: 'Prenatal Pilates' },
  { value: 'injury-recovery', label: 'Injury Recovery' },
  { value: 'consultation', label: 'Consultation' },
  { value: 'other', label: 'Other' },
] as const;

export const SERVICE_PLACEHOLDER = 'Select a service...';

export type ServiceValue = (typeof SERVICE_OPTIONS)[number]['value'];

const SERVICE_VALUES = SERVICE_OPTIONS.map((option) => option.value) as [
  ServiceValue,
  ...ServiceValue[],
];

export function isServiceValue(value: unknown): value is ServiceValue {
  return SERVICE_VALUES.includes(value as ServiceValue);
}

/** The label of a service value, or `undefined` when none was chosen. */
export function serviceLabel(value: string): string | undefined {
  return SERVICE_OPTIONS.find((option) => option.value === value)?.label;
}

/** Generous for people, small enough that nobody mails the studio a novel or a payload. */
export const CONTACT_LIMITS = { name: 100, email: 254, message: 5000 } as const;

const text = (empty: string, max: number, tooLong: string) =>
  z.string({ error: empty }).trim().min(1, empty).max(max, tooLong);

export const contactSchema = z.object({
  name: text(
    'Please enter your name',
    CONTACT_LIMITS.name,
    `Please keep your name under ${CONTACT_LIMITS.name} characters`,
  ),
  email: text(
    'Please enter your e-mail address',
    CONTACT_LIMITS.email,
    'Please enter a valid e-mail address',
  ).pipe(z.email('Please enter a valid e-mail address, like name@example.com')),
  service: z
    .union([z.literal(''), z.enum(SERVICE_VALUES)], {
      error: 'Please choose one of the listed services',
    })
    .default(''),
  message: text(
    'Please enter your message',
    CONTACT_LIMITS.message,
    `Please keep your message under ${CONTACT_LIMITS.message} characters`,
  ),
  /**
   * Made in the browser for each submission and kept across its retries: the server stores a
   * submission id once, so a retry or a double click never makes a second message or e-mail.
   */
  submissionId: z
    .uuid({ error: 'The form lost track of this message: please reload the page' })
    .optional(),
});

export type ContactInput = z.input<typeof contactSchema>;
export type ContactMessage = z.output<typeof contactSchema>;
export type ContactField = keyof ContactMessage;
export type ContactFieldErrors = Partial<Record<ContactField, string>>;

/** The first problem of each field, ready to show next to it. */
export function contactFieldErrors(error: z.ZodError): ContactFieldErrors {
  const errors: ContactFieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field in contactSchema.shape && !(field in errors)) {
      errors[field as ContactField] = issue.message;
    }
  }
  return errors;
}
