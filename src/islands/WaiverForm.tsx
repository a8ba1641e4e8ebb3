import {
  useId,
  useRef,
  useState,
  type SubmitEvent,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { Toaster, toast } from 'sonner';
import ErrorBoundary from './ErrorBoundary';
import { HoneypotField, refusalText } from './FormProtection';
import SignaturePad from './SignaturePad';
import { useSubmissionId } from './useSubmissionId';
import { antiSpamFields } from '../lib/anti-spam';
import { EMPTY_WAIVER, fieldErrors, waiverSchema, type WaiverFields } from '../lib/waiver';
import type { WaiverBlock } from '../lib/waiver-text';

interface Props {
  /** The waiver text, already split into headings and paragraphs (rendered as plain text). */
  blocks: WaiverBlock[];
  /** The version of that text; the server refuses a waiver signed under an outdated one. */
  version: string;
}

type TextField = Exclude<keyof WaiverFields, 'agreedToTerms' | 'agreedToPhotos' | 'signature'>;
type Errors = Partial<Record<keyof WaiverFields, string>>;

const FIELD_ORDER: TextField[] = [
  'firstName',
  'lastName',
  'email',
  'phone',
  'emergencyName',
  'emergencyPhone',
  'medicalConditions',
  'medications',
];

const INPUT =
  'mt-1 block w-full rounded-md border bg-white px-3 py-2 text-base text-ink shadow-sm focus:border-sage-600';

class SubmitError extends Error {}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="border-t border-sand-200 pt-6 first:border-t-0 first:pt-0">
      <legend className="float-left mb-4 w-full font-serif text-xl font-semibold text-ink">
        {title}
      </legend>
      <div className="clear-both grid gap-4 sm:grid-cols-2">{children}</div>
    </fieldset>
  );
}

function Form({ blocks, version }: Props) {
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [fields, setFields] = useState<WaiverFields>(EMPTY_WAIVER);
  const [errors, setErrors] = useState<Errors>({});
  const [processing, setProcessing] = useState(false);
  const [padKey, setPadKey] = useState(0);
  const submission = useSubmissionId();

  const set = <K extends keyof WaiverFields>(name: K, value: WaiverFields[K]) => {
    setFields((current) => ({ ...current, [name]: value }));
    setErrors((current) => (current[name] ? { ...current, [name]: undefined } : current));
  };

  const focusField = (name: keyof WaiverFields) =>
    formRef.current?.querySelector<HTMLElement>(`[name="${name}"]`)?.focus();

  const submit = async () => {
    if (processing) return;
    const result = waiverSchema.safeParse({ ...fields, waiverVersion: version });
    const problems = result.success ? {} : fieldErrors(result.error);
    setErrors(problems);
    if (!fields.agreedToTerms) {
      toast.error('Agreement Required', {
        description: 'Please read and agree to the liability waiver terms.',
      });
      focusField('agreedToTerms');
      return;
    }
    if (!fields.signature) {
      toast.error('Signature Required', {
        description: 'Please provide your electronic signature.',
      });
      return;
    }
    const firstInvalid = FIELD_ORDER.find((name) => problems[name]);
    if (firstInvalid) {
      toast.error('Please check the form', { description: problems[firstInvalid] });
      focusField(firstInvalid);
      return;
    }
    if (!result.success) {
      toast.error('Error submitting waiver', { description: result.error.issues[0]?.message });
      return;
    }

    setProcessing(true);
    try {
      const spamChecks = formRef.current ? antiSpamFields(formRef.current) : {};
      const response = await fetch('/api/submit-waiver', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          waiver: { ...result.data, submissionId: submission.for(result.data) },
          ...spamChecks,
        }),
      });
      const body = (await response.json().catch(() => null)) as {
        success?: boolean;
        error?: string;
      } | null;
      if (!response.ok || !body?.success) {
        // The server's own words first; a refusal that came without them (a proxy's 413, say)
        // is still explained: too many waivers, too large, or not sent from this page.
        const why = body?.error || refusalText(response, 'waivers');
        throw new SubmitError(why || 'Failed to submit waiver');
      }
      submission.done();
      setFields(EMPTY_WAIVER);
      setErrors({});
      setPadKey((key) => key + 1);
      toast.success('Waiver submitted successfully!', {
        description:
          'Your liability waiver has been processed and saved. A copy has been sent to our records.',
      });
    } catch (error) {
      // The message only: never the form's data, which holds health information.
      console.error('Error submitting waiver:', error instanceof Error ? error.message : error);
      toast.error('Error submitting waiver', {
        description:
          error instanceof SubmitError && error.message !== 'Failed to submit waiver'
            ? error.message
            : 'Please try again or contact us directly.',
      });
    } finally {
      setProcessing(false);
    }
  };

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  // Enter in a field would not submit the form while the button is disabled (unchecked terms),
  // and then nobody would learn why; handle it here so the visitor is told what is missing.
  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    const target = event.target as HTMLElement;
    if (event.key !== 'Enter' || !(target instanceof HTMLInputElement)) return;
    if (target.type === 'checkbox') return;
    event.preventDefault();
    void submit();
  };

  const text = (
    name: TextField,
    label: string,
    options: {
      type?: string;
      autoComplete?: string;
      required?: boolean;
      multiline?: boolean;
      placeholder?: string;
      maxLength: number;
    },
  ) => {
    const inputId = `${id}-${name}`;
    const error = errors[name];
    const common = {
      id: inputId,
      name,
      value: fields[name],
      required: options.required,
      maxLength: options.maxLength,
      placeholder: options.placeholder,
      'aria-invalid': error ? true : undefined,
      'aria-describedby': error ? `${inputId}-error` : undefined,
      className: `${INPUT} ${error ? 'border-red-700' : 'border-sand-200'}`,
    };
    return (
      <div className={options.multiline ? 'sm:col-span-2' : undefined}>
        <label htmlFor={inputId} className="block text-sm font-medium text-ink">
          {label}
          {options.required && (
            <span aria-hidden="true" className="text-red-700">
              {' '}
              *
            </span>
          )}
        </label>
        {options.multiline ? (
          <textarea {...common} rows={3} onChange={(event) => set(name, event.target.value)} />
        ) : (
          <input
            {...common}
            type={options.type ?? 'text'}
            autoComplete={options.autoComplete}
            onChange={(event) => set(name, event.target.value)}
          />
        )}
        {error && (
          <p id={`${inputId}-error`} className="mt-1 text-sm text-red-700">
            {error}
          </p>
        )}
      </div>
    );
  };

  const termsHelpId = `${id}-terms-help`;

  return (
    <>
      <Toaster richColors closeButton position="top-center" />
      <form
        ref={formRef}
        method="post"
        noValidate
        onSubmit={onSubmit}
        onKeyDown={onKeyDown}
        aria-busy={processing}
        className="space-y-8"
      >
        <p className="text-sm text-muted">
          Fields marked <span className="text-red-700">*</span> are required.
        </p>
        <Section title="Personal Information">
          {text('firstName', 'First Name', {
            required: true,
            autoComplete: 'given-name',
            maxLength: 100,
          })}
          {text('lastName', 'Last Name', {
            required: true,
            autoComplete: 'family-name',
            maxLength: 100,
          })}
          {text('email', 'Email', {
            type: 'email',
            required: true,
            autoComplete: 'email',
            maxLength: 254,
          })}
          {text('phone', 'Phone', {
            type: 'tel',
            required: true,
            autoComplete: 'tel',
            maxLength: 40,
          })}
        </Section>

        <Section title="Emergency Contact">
          {text('emergencyName', 'Emergency Contact Name', { required: true, maxLength: 100 })}
          {text('emergencyPhone', 'Emergency Contact Phone', {
            type: 'tel',
            required: true,
            maxLength: 40,
          })}
        </Section>

        <Section title="Health Information">
          {text('medicalConditions', 'Medical Conditions or Injuries', {
            multiline: true,
            maxLength: 2000,
            placeholder: 'Please list any medical conditions, injuries, surgeries or pregnancy',
          })}
          {text('medications', 'Current Medications', {
            multiline: true,
            maxLength: 2000,
            placeholder: 'Please list any medications you are currently taking',
          })}
        </Section>

        <section aria-labelledby={`${id}-waiver-title`} className="border-t border-sand-200 pt-6">
          <h3 id={`${id}-waiver-title`} className="mb-4 text-xl font-semibold">
            Liability Waiver and Release
          </h3>
          <div
            role="region"
            aria-label="Liability waiver text"
            tabIndex={0}
            className="max-h-60 overflow-y-auto rounded-md border border-sand-200 bg-sand-50 p-4 text-sm leading-relaxed text-ink"
          >
            {blocks.map((block, index) =>
              block.kind === 'heading' ? (
                <h4 key={index} className="mt-4 mb-1 font-sans font-semibold first:mt-0">
                  {block.text}
                </h4>
              ) : (
                <p key={index} className="mb-3 last:mb-0">
                  {block.text}
                </p>
              ),
            )}
          </div>
          <p className="mt-2 text-xs text-muted">Waiver version {version}</p>
        </section>

        <div className="space-y-3">
          <label className="flex items-start gap-3 text-sm text-ink">
            <input
              type="checkbox"
              name="agreedToTerms"
              checked={fields.agreedToTerms}
              onChange={(event) => set('agreedToTerms', event.target.checked)}
              aria-required="true"
              className="mt-0.5 h-5 w-5 shrink-0 accent-sage-700"
            />
            <span>
              I have read and agree to the liability waiver terms above, and I agree to sign this
              waiver electronically. <span className="text-red-700">*</span>
            </span>
          </label>
          <label className="flex items-start gap-3 text-sm text-ink">
            <input
              type="checkbox"
              name="agreedToPhotos"
              checked={fields.agreedToPhotos}
              onChange={(event) => set('agreedToPhotos', event.target.checked)}
              className="mt-0.5 h-5 w-5 shrink-0 accent-sage-700"
            />
            <span>
              I consent to photos of me taken during classes being used for promotional purposes
              (optional).
            </span>
          </label>
        </div>

        <div>
          <h3 className="mb-3 text-xl font-semibold">
            Electronic Signature <span className="text-red-700">*</span>
          </h3>
          <SignaturePad
            key={padKey}
            onChange={(dataUrl) => set('signature', dataUrl ?? '')}
            invalid={Boolean(errors.signature)}
          />
        </div>

        <HoneypotField idPrefix="waiver" />
        <div className="border-t border-sand-200 pt-6">
          <button
            type="submit"
            disabled={processing || !fields.agreedToTerms}
            aria-describedby={fields.agreedToTerms ? undefined : termsHelpId}
            className="w-full rounded-full bg-sage-700 px-6 py-3 text-base font-semibold text-white shadow-sm transition-colors hover:bg-sage-800 disabled:cursor-not-allowed disabled:opacity-60 sm:w-auto"
          >
            {processing ? 'Processing Waiver...' : 'Submit Waiver'}
          </button>
          {!fields.agreedToTerms && (
            <p id={termsHelpId} className="mt-2 text-sm text-muted">
              Please agree to the waiver terms above to submit.
            </p>
          )}
        </div>
      </form>
    </>
  );
}

export default function WaiverForm(props: Props) {
  return (
    <ErrorBoundary>
      <Form {...props} />
    </ErrorBoundary>
  );
}
