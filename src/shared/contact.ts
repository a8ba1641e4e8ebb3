import { FIX_BELOW } from './form-answer';
import { EMAIL_FIELD, NAME_FIELD, fieldsSchema, submissionIdField, type FieldSpec } from './fields';
import { z } from './zod';

/** The services a visitor can ask about, in the form's order: each value is stored, its label shown. */
const SERVICES = {
  'private-session': 'Private Session',
  'small-group': 'Small Group Class',
  'in-home': 'In-Home Session',
  prenatal: 'Prenatal Pilates',
  'injury-recovery': 'Injury Recovery',
  consultation: 'Consultation',
  other: 'Other',
} as const;

export type ServiceValue = keyof typeof SERVICES;

const SERVICE_VALUES = Object.keys(SERVICES) as [ServiceValue, ...ServiceValue[]];

/** The choices of the form's service menu. */
export const SERVICE_OPTIONS = SERVICE_VALUES.map((value) => ({ value, label: SERVICES[value] }));

export const SERVICE_PLACEHOLDER = 'Select a service...';

/** The label of a service value, or `undefined` when none was chosen. */
export function serviceLabel(value: string): string | undefined {
  return Object.hasOwn(SERVICES, value) ? SERVICES[value as ServiceValue] : undefined;
}

/** The contact form's text fields. Generous caps for people; nobody mails the studio a novel. */
export const CONTACT_FIELDS = {
  name: NAME_FIELD,
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

/** The contact form's notices, in the product's words: the toasts, and the pages a post without script gets. */
export const CONTACT_NOTICES = {
  sent: {
    title: 'Message sent successfully!',
    text: "Thank you for reaching out. I'll get back to you within 24 hours.",
  },
  failed: {
    title: 'Error sending message',
    fallback: (email: string) => `Please try again or contact me directly at ${email}`,
  },
} as const;

/** Every field's label as the form shows it, for naming the fields that need fixing. */
export const CONTACT_LABELS: Record<ContactField, string> = {
  name: CONTACT_FIELDS.name.label,
  email: CONTACT_FIELDS.email.label,
  service: 'Service Interest',
  message: CONTACT_FIELDS.message.label,
  submissionId: 'Form',
};

/** What the page for a refused message says (a post without script), in the product's words. */
export function contactProblemNotice(
  problem: { error: string; fieldErrors?: Record<string, string> },
  studioEmail: string,
) {
  return {
    title: CONTACT_NOTICES.failed.title,
    text: problem.fieldErrors ? FIX_BELOW : problem.error,
    fallback: CONTACT_NOTICES.failed.fallback(studioEmail),
  };
}
