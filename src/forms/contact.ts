import { EMAIL_FIELD, fieldsSchema, submissionIdField, type FieldSpec } from './fields';
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

/** The contact form's text fields. Generous caps for people; nobody mails the studio a novel. */
export const CONTACT_FIELDS = {
  name: {
    label: 'Name',
    kind: 'text',
    required: true,
    max: 100,
    about: 'your name',
    autoComplete: 'name',
    placeholder: 'Your full name',
  },
  email: { ...EMAIL_FIELD, placeholder: 'you@example.com' },
  message: {
    label: 'Message',
    kind: 'text',
    required: true,
    max: 5000,
    about: 'your message',
    multiline: true,
    placeholder:
      'Tell me about your goals, your experience level, any concerns, and any questions you have...',
  },
} as const satisfies Record<string, FieldSpec>;

export const contactSchema = z.object({
  ...fieldsSchema(CONTACT_FIELDS),
  service: z
    .union([z.literal(''), z.enum(SERVICE_VALUES)], {
      error: 'Please choose one of the listed services.',
    })
    .default(''),
  submissionId: submissionIdField('message'),
});

export type ContactInput = z.input<typeof contactSchema>;
export type ContactMessage = z.output<typeof contactSchema>;
export type ContactField = keyof ContactMessage;

/** The form's own order, for focusing the first field that needs fixing. */
export const CONTACT_FIELD_ORDER: readonly ContactField[] = ['name', 'email', 'service', 'message'];
