import {
  useEffect,
  useRef,
  useState,
  type FocusEvent,
  type SubmitEvent,
  type ReactNode,
} from 'react';
import { flushSync } from 'react-dom';
import { Toaster, toast } from 'sonner';
import ErrorBoundary from './ErrorBoundary';
import { HoneypotField, refusalText } from './FormProtection';
import { antiSpamFields } from '../lib/anti-spam';
import {
  CONTACT_LIMITS,
  SERVICE_OPTIONS,
  SERVICE_PLACEHOLDER,
  contactFieldErrors,
  contactSchema,
  isServiceValue,
  type ContactField,
  type ContactFieldErrors,
} from '../lib/contact';
import { useSubmissionId } from './useSubmissionId';

interface Props {
  /** The studio's address from content/site.yaml, offered when sending fails. */
  studioEmail: string;
}

const FORM_ID = 'contact-form';
const FIELDS: readonly ContactField[] = ['name', 'email', 'service', 'message'];

const controlId = (field: ContactField) => `contact-${field}`;
const errorId = (field: ContactField) => `contact-${field}-error`;

const CONTROL =
  'block w-full rounded-lg border border-sand-200 bg-white px-3.5 py-2.5 text-base text-ink ' +
  'placeholder:text-muted/70 focus:border-sage-600 focus:outline-2 focus:outline-offset-0 ' +
  'focus:outline-sage-600 aria-invalid:border-clay-600 aria-invalid:focus:outline-clay-600';

/** Field errors from a server answer, keeping only fields this form has and text values. */
function serverFieldErrors(answer: unknown): ContactFieldErrors {
  const raw = (answer as { fieldErrors?: unknown } | null)?.fieldErrors;
  if (typeof raw !== 'object' || raw === null) return {};
  const errors: ContactFieldErrors = {};
  for (const field of FIELDS) {
    const message = (raw as Record<string, unknown>)[field];
    if (typeof message === 'string') errors[field] = message;
    else if (Array.isArray(message) && typeof message[0] === 'string') errors[field] = message[0];
  }
  return errors;
}

function Field(props: {
  field: ContactField;
  label: string;
  required?: boolean;
  error?: string;
  children: ReactNode;
}) {
  const { field, label, required, error, children } = props;
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={controlId(field)} className="text-sm font-medium text-ink">
        {label}
        {required && (
          <span aria-hidden="true" className="ml-0.5 text-clay-600">
            *
          </span>
        )}
      </label>
      {children}
      {error && (
        <p id={errorId(field)} className="text-sm font-medium text-clay-700">
          {error}
        </p>
      )}
    </div>
  );
}

function focusFirstField(form: HTMLFormElement) {
  form.querySelector<HTMLElement>('input, select, textarea')?.focus();
}

/** The fields as typed; the inputs are uncontrolled so that text typed before hydration stays. */
function readValues(form: HTMLFormElement): Record<ContactField, string> {
  const data = new FormData(form);
  return Object.fromEntries(
    FIELDS.map((field) => [field, String(data.get(field) ?? '')]),
  ) as Record<ContactField, string>;
}

function Form({ studioEmail }: Props) {
  const formRef = useRef<HTMLFormElement>(null);
  const submission = useSubmissionId();
  const [errors, setErrors] = useState<ContactFieldErrors>({});
  const [sending, setSending] = useState(false);
  // Until hydration the button stays disabled: a native submit would go nowhere useful.
  const [hydrated, setHydrated] = useState(false);

  useEffect(() => {
    setHydrated(true);
    const form = formRef.current;
    if (!form) return;
    const service = new URLSearchParams(window.location.search).get('service');
    const select = form.elements.namedItem('service');
    if (isServiceValue(service) && select instanceof HTMLSelectElement && !select.value) {
      select.value = service;
    }
    if (window.location.hash === `#${FORM_ID}`) focusFirstField(form);
  }, []);

  // The form is the target of `#contact-form` links. Chromium applies a fragment's focus step
  // once the page has rendered, which may be after hydration: it focuses the target when it is
  // focusable (hence tabIndex -1) and clears the focus otherwise. Pass that focus on to the
  // first field, so the visitor lands where they type whichever comes first.
  const onFocus = (event: FocusEvent<HTMLFormElement>) => {
    if (event.target === event.currentTarget) focusFirstField(event.currentTarget);
  };

  const showErrors = (next: ContactFieldErrors) => {
    flushSync(() => setErrors(next));
    const first = FIELDS.find((field) => next[field]);
    if (first) document.getElementById(controlId(first))?.focus();
  };

  const control = (field: ContactField) => ({
    id: controlId(field),
    name: field,
    onChange: () => {
      if (errors[field]) setErrors(({ [field]: _fixed, ...rest }) => rest);
    },
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': errors[field] ? errorId(field) : undefined,
    className: CONTROL,
  });

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (sending) return;
    const parsed = contactSchema.safeParse(readValues(form));
    if (!parsed.success) {
      showErrors(contactFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setSending(true);
    // Why the server refused (rate limit, size, origin), in words for the visitor.
    let refusal: string | undefined;
    try {
      const response = await fetch('/api/send-email', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...parsed.data,
          ...antiSpamFields(form),
          submissionId: submission.for(parsed.data),
        }),
      });
      const answer: unknown = await response.json().catch(() => null);
      if (!response.ok || (answer as { ok?: unknown } | null)?.ok !== true) {
        showErrors(serverFieldErrors(answer));
        refusal = refusalText(response, 'messages');
        throw new Error(`The contact form was not accepted (HTTP ${response.status})`);
      }
      submission.done();
      form.reset();
      toast.success('Message sent successfully!', {
        description: "Thank you for reaching out. I'll get back to you within 24 hours.",
      });
    } catch (error) {
      console.error('Error sending message:', error);
      toast.error('Error sending message', {
        description: refusal
          ? `${refusal} You can also contact me directly at ${studioEmail}`
          : `Please try again or contact me directly at ${studioEmail}`,
      });
    } finally {
      setSending(false);
    }
  }

  return (
    <>
      <form
        ref={formRef}
        id={FORM_ID}
        method="post"
        onSubmit={onSubmit}
        onFocus={onFocus}
        tabIndex={-1}
        aria-label="Send a message"
        className="flex scroll-mt-20 flex-col gap-5 outline-none"
      >
        <div className="grid gap-5 sm:grid-cols-2">
          <Field field="name" label="Name" required error={errors.name}>
            <input
              {...control('name')}
              type="text"
              required
              autoComplete="name"
              maxLength={CONTACT_LIMITS.name}
              placeholder="Your full name"
            />
          </Field>
          <Field field="email" label="Email" required error={errors.email}>
            <input
              {...control('email')}
              type="email"
              required
              autoComplete="email"
              maxLength={CONTACT_LIMITS.email}
              placeholder="you@example.com"
            />
          </Field>
        </div>
        <Field field="service" label="Service Interest" error={errors.service}>
          <select {...control('service')}>
            <option value="">{SERVICE_PLACEHOLDER}</option>
            {SERVICE_OPTIONS.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field field="message" label="Message" required error={errors.message}>
          <textarea
            {...control('message')}
            required
            rows={5}
            maxLength={CONTACT_LIMITS.message}
            placeholder="Tell me about your goals, your experience level, any concerns, and any questions you have..."
            className={`${CONTROL} min-h-[120px] resize-y`}
          />
        </Field>
        <HoneypotField idPrefix="contact" />
        <button
          type="submit"
          disabled={!hydrated || sending}
          className="inline-flex w-full items-center justify-center rounded-full bg-sage-700 px-6 py-3 text-base font-semibold text-white transition-colors hover:bg-sage-800 disabled:cursor-not-allowed disabled:opacity-70"
        >
          {sending ? 'Sending...' : 'Send Message'}
        </button>
      </form>
      <Toaster richColors closeButton position="bottom-right" />
    </>
  );
}

export default function ContactForm(props: Props) {
  return (
    <ErrorBoundary>
      <Form {...props} />
    </ErrorBoundary>
  );
}
