import { useEffect, useRef, useState, type ReactNode, type SubmitEvent } from 'react';
import { island } from './ErrorBoundary';
import { FieldError, RequiredMark, TextField } from './forms/Field';
import SpamChecks from './forms/SpamChecks';
import Notices from './forms/Notices';
import { useForm } from './forms/useForm';
import { useHydrated } from './forms/useHydrated';
import {
  BOOKING_ACTION,
  BOOKING_FIELDS,
  BOOKING_FIELD_ORDER,
  BOOKING_NOTICES,
  SLOT_CHIP,
  SLOT_FIELD,
  bookingSchema,
  type BookedSummary,
  type OfferedSlot,
} from '../shared/booking/form';
import { fieldErrors } from '../shared/fields';

interface Props {
  /** The studio's address from content/site.yaml, offered when booking fails. */
  studioEmail: string;
  /** "Times are Pacific Time (the studio's time zone)." */
  zoneNote: string;
  /** The free slots: static HTML the page's function fills in, never touched by React. */
  children?: ReactNode;
}

const FORM_ID = 'booking-form';

/** The fields as chosen and typed; every input is uncontrolled, so what came before the script stays. */
function readValues(form: HTMLFormElement) {
  const data = new FormData(form);
  return Object.fromEntries(
    BOOKING_FIELD_ORDER.map((field) => [field, String(data.get(field) ?? '')]),
  );
}

function slotRadios(form: HTMLFormElement): HTMLInputElement[] {
  return [...form.querySelectorAll<HTMLInputElement>(`input[name="${SLOT_FIELD}"]`)];
}

function Booked({ booked, email }: { booked: BookedSummary; email: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div role="status" className="space-y-4 text-center">
      <span className="mx-auto inline-flex size-14 items-center justify-center rounded-full bg-sage-100 text-sage-700">
        <svg
          aria-hidden="true"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
          className="size-7"
        >
          <path d="M20 6 9 17l-5-5" />
        </svg>
      </span>
      <h3 ref={heading} tabIndex={-1} className="text-2xl font-semibold focus:outline-none">
        {BOOKING_NOTICES.sent.title}
      </h3>
      <p className="text-lg text-ink">
        {booked.day}
        <br />
        {booked.time}
      </p>
      <p className="text-muted">{booked.place}</p>
      <p className="text-muted">
        A confirmation with a calendar invite is on its way to{' '}
        <strong className="break-all text-ink">{email}</strong>.
      </p>
      <p className="flex flex-wrap justify-center gap-3 pt-2">
        <a
          href={booked.manage}
          className="inline-flex min-h-11 items-center justify-center rounded-full border border-sage-700 bg-white px-6 py-2.5 font-semibold text-sage-800 hover:bg-sage-50"
        >
          Change or cancel
        </a>
        <a
          href="/waiver"
          className="inline-flex min-h-11 items-center justify-center rounded-full bg-sage-700 px-6 py-2.5 font-semibold text-white hover:bg-sage-800"
        >
          Complete the waiver
        </a>
      </p>
    </div>
  );
}

function Form({ studioEmail, zoneNote, children }: Props) {
  const [booked, setBooked] = useState<{ booked: BookedSummary; email: string }>();
  const [nearest, setNearest] = useState<OfferedSlot[]>();
  const sent = useRef<{ slot: string; email: string }>(undefined);
  const { formRef, sending, errors, showErrors, control, send, action } = useForm({
    form: 'booking',
    action: BOOKING_ACTION,
    order: BOOKING_FIELD_ORDER,
    // The confirmation replaces the form (`Booked`): no notice on top of it.
    notices: {
      failed: {
        title: BOOKING_NOTICES.failed.title,
        fallback: BOOKING_NOTICES.failed.fallback(studioEmail),
      },
    },
    onAnswer(answer, status) {
      const form = formRef.current;
      if (answer.success === true && typeof answer.booking === 'object' && sent.current) {
        setBooked({ booked: answer.booking as BookedSummary, email: sent.current.email });
      } else if (status === 409 && Array.isArray(answer.nearest) && form && sent.current) {
        // The slot is gone: it can no longer be chosen, and the nearest free ones are offered.
        for (const radio of slotRadios(form)) {
          if (radio.value === sent.current.slot) {
            radio.checked = false;
            radio.disabled = true;
          }
        }
        setNearest(answer.nearest as OfferedSlot[]);
      }
    },
  });
  // Before hydration the browser checks the fields and posts the form itself (no script
  // needed); once hydrated, the shared schema checks them and the script sends them.
  const hydrated = useHydrated();

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const parsed = bookingSchema.safeParse(readValues(form));
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      showErrors(errors);
      if (errors[SLOT_FIELD])
        slotRadios(form)
          .find((radio) => !radio.disabled)
          ?.focus();
      return;
    }
    sent.current = { slot: parsed.data.slot, email: parsed.data.email };
    await send(parsed.data);
  }

  const slotError = errors[SLOT_FIELD];

  return (
    <>
      {booked ? (
        <Booked {...booked} />
      ) : (
        <form
          ref={formRef}
          id={FORM_ID}
          method="post"
          action={action}
          noValidate={hydrated}
          onSubmit={onSubmit}
          aria-label="Book a free consultation"
          className="flex flex-col gap-8"
        >
          <fieldset
            className="min-w-0 space-y-4"
            aria-describedby={`booking-zone${slotError ? ` booking-${SLOT_FIELD}-error` : ''}`}
          >
            <legend className="font-serif text-xl font-semibold text-ink">
              Choose a time
              <RequiredMark />
            </legend>
            <p id="booking-zone" className="text-sm text-muted">
              {zoneNote}
            </p>
            {nearest && (
              <div role="alert" className="rounded-xl border border-clay-600 bg-sand-100 p-4">
                <p className="font-semibold text-clay-700">{BOOKING_NOTICES.taken.title}</p>
                <p className="mt-1 text-ink">
                  {nearest.length > 0 ? BOOKING_NOTICES.taken.text : BOOKING_NOTICES.taken.none}
                </p>
                {nearest.length > 0 && (
                  <div className="mt-3 flex flex-wrap gap-2">
                    {nearest.map((slot) => (
                      <label key={slot.start} className={SLOT_CHIP}>
                        <input type="radio" name={SLOT_FIELD} value={slot.start} required />
                        {slot.day}, {slot.time}
                      </label>
                    ))}
                  </div>
                )}
              </div>
            )}
            {children}
            <FieldError id={`booking-${SLOT_FIELD}-error`} error={slotError} />
          </fieldset>

          <fieldset className="min-w-0 space-y-5">
            <legend className="font-serif text-xl font-semibold text-ink">Your details</legend>
            <div className="grid gap-5 sm:grid-cols-2">
              <TextField spec={BOOKING_FIELDS.name} control={control('name')} error={errors.name} />
              <TextField
                spec={BOOKING_FIELDS.email}
                control={control('email')}
                error={errors.email}
              />
            </div>
            <TextField
              spec={BOOKING_FIELDS.phone}
              control={control('phone')}
              error={errors.phone}
            />
            <TextField
              spec={BOOKING_FIELDS.topic}
              control={control('topic')}
              error={errors.topic}
            />
          </fieldset>
          <SpamChecks idPrefix="booking" />
          <button
            type="submit"
            disabled={sending}
            className="inline-flex w-full items-center justify-center rounded-full bg-sage-700 px-6 py-3 text-base font-semibold text-white transition-colors hover:bg-sage-800 disabled:cursor-not-allowed disabled:opacity-70"
          >
            {sending ? 'Booking...' : 'Book Consultation'}
          </button>
        </form>
      )}
      <Notices />
    </>
  );
}

export default island(Form, 'BookingForm');
