import { useEffect, type FocusEvent, type SubmitEvent } from 'react';
import { island } from './ErrorBoundary';
import { Field, TextField } from './forms/Field';
import SpamChecks from './forms/SpamChecks';
import Notices from './forms/Notices';
import { useForm } from './forms/useForm';
import { useHydrated } from './forms/useHydrated';
import {
  CONTACT_FIELDS,
  CONTACT_FIELD_ORDER,
  CONTACT_LABELS,
  CONTACT_NOTICES,
  SERVICE_OPTIONS,
  SERVICE_PLACEHOLDER,
  contactSchema,
} from '../shared/contact';
import { fieldErrors } from '../shared/fields';

interface Props {
  /** The studio's address from content/site.yaml, offered when sending fails. */
  studioEmail: string;
}

const FORM_ID = 'contact-form';

function focusFirstField(form: HTMLFormElement) {
  form.querySelector<HTMLElement>('input, select, textarea')?.focus();
}

/** The fields as typed; the inputs are uncontrolled so that text typed before hydration stays. */
function readValues(form: HTMLFormElement) {
  const data = new FormData(form);
  return Object.fromEntries(
    CONTACT_FIELD_ORDER.map((field) => [field, String(data.get(field) ?? '')]),
  );
}

function Form({ studioEmail }: Props) {
  const { formRef, sending, errors, showErrors, control, send, action } = useForm({
    form: 'contact',
    action: '/api/send-email',
    order: CONTACT_FIELD_ORDER,
    notices: {
      sent: CONTACT_NOTICES.sent,
      failed: {
        title: CONTACT_NOTICES.failed.title,
        fallback: CONTACT_NOTICES.failed.fallback(studioEmail),
        // Why, when the server said, then the product's own words, letter for letter.
        explain: (error) => `${error} ${CONTACT_NOTICES.failed.fallback(studioEmail)}`,
      },
    },
  });
  // Before hydration the browser checks the fields and posts the form itself (no script
  // needed); once hydrated, the shared schema checks them and the script sends them.
  const hydrated = useHydrated();

  useEffect(() => {
    const form = formRef.current;
    if (form && window.location.hash === `#${FORM_ID}`) focusFirstField(form);
  }, [formRef]);

  // The form is the target of `#contact-form` links. Chromium applies a fragment's focus step
  // once the page has rendered, which may be after hydration: it focuses the target when it is
  // focusable (hence tabIndex -1) and clears the focus otherwise. Pass that focus on to the
  // first field, so the visitor lands where they type whichever comes first.
  const onFocus = (event: FocusEvent<HTMLFormElement>) => {
    if (event.target === event.currentTarget) focusFirstField(event.currentTarget);
  };

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const parsed = contactSchema.safeParse(readValues(form));
    if (!parsed.success) return showErrors(fieldErrors(parsed.error));
    if (await send(parsed.data)) form.reset();
  }

  const service = control('service');

  return (
    <>
      <form
        ref={formRef}
        id={FORM_ID}
        method="post"
        action={action}
        noValidate={hydrated}
        onSubmit={onSubmit}
        onFocus={onFocus}
        tabIndex={-1}
        aria-label="Send a message"
        className="flex scroll-mt-20 flex-col gap-5 outline-none"
      >
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField spec={CONTACT_FIELDS.name} control={control('name')} error={errors.name} />
          <TextField spec={CONTACT_FIELDS.email} control={control('email')} error={errors.email} />
        </div>
        <Field
          control={service}
          label={CONTACT_LABELS.service}
          error={errors.service}
          className="group/service"
        >
          {/* Drawn by the page, not the browser: WebKit's own select is grey and taller. */}
          <div className="relative">
            <select {...service} className={`${service.className} appearance-none pr-10`}>
              <option value="">{SERVICE_PLACEHOLDER}</option>
              {SERVICE_OPTIONS.map(({ value, label }) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            <svg
              aria-hidden="true"
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
              strokeLinejoin="round"
              className="pointer-events-none absolute top-1/2 right-3.5 size-4 -translate-y-1/2 text-muted"
            >
              <path d="M6 9l6 6 6-6" />
            </svg>
          </div>
          {/* Shown by the style sheet whenever Consultation is chosen, with or without script. */}
          <p className="hidden text-sm text-muted group-has-[option[value=consultation]:checked]/service:block">
            You can also{' '}
            <a
              href="/consultation"
              className="font-semibold text-sage-800 underline underline-offset-4"
            >
              book a time for your free consultation directly
            </a>
            .
          </p>
        </Field>
        <TextField
          spec={CONTACT_FIELDS.message}
          control={control('message')}
          error={errors.message}
        />
        <SpamChecks idPrefix="contact" />
        <button
          type="submit"
          disabled={sending}
          className="inline-flex w-full items-center justify-center rounded-full bg-sage-700 px-6 py-3 text-base font-semibold text-white transition-colors hover:bg-sage-800 disabled:cursor-not-allowed disabled:opacity-70"
        >
          {sending ? 'Sending...' : 'Send Message'}
        </button>
      </form>
      <Notices />
    </>
  );
}

export default island(Form, 'ContactForm');
