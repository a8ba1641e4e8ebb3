import {
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  type SubmitEvent,
} from 'react';
import { toast } from 'sonner';
import { island } from './ErrorBoundary';
import { FieldError, RequiredMark, TextField } from './forms/Field';
import SpamChecks from './forms/SpamChecks';
import SignaturePad, { type Signature } from './forms/SignaturePad';
import Notices from './forms/Notices';
import { useForm } from './forms/useForm';
import { useHydrated } from './forms/useHydrated';
import { fieldErrors } from '../shared/fields';
import {
  RE_SIGN_ACTION,
  RE_SIGN_HASH,
  RE_SIGN_NOTICE,
  SIGNATURE_MISSING,
  WAIVER_FIELDS,
  WAIVER_FIELD_NAMES,
  WAIVER_FIELD_ORDER,
  WAIVER_NOTICES,
  WAIVER_SECTIONS,
  waiverSchema,
} from '../shared/waiver';

interface Props {
  /** The waiver text, drawn by the page (WaiverFormSlot.astro) and given as the island's slot:
      Astro hands a slot to the island from the page's own markup, so the text is not written a
      second time into the island's serialized props (about 400 bytes of the waiver page). */
  children: ReactNode;
  /** The version of that text; the server refuses a waiver signed under an outdated one. */
  version: string;
}

const CHECKBOX = 'mt-0.5 h-5 w-5 shrink-0 accent-sage-700';

/** What a re-sign link opened: the version's changes in the studio's words, or why it did not. */
type ReSignNotice = { changes?: string; error?: undefined } | { error: string };

/** The notice above the form opened from a re-sign link. */
function ReSignBox({ notice }: { notice: ReSignNotice }) {
  if (notice.error !== undefined) {
    return (
      <div role="status" className="rounded-2xl border border-sand-200 bg-sand-50 p-5 text-ink">
        <p>{notice.error}</p>
      </div>
    );
  }
  return (
    <section
      role="status"
      aria-labelledby="re-sign-title"
      className="rounded-2xl border border-sage-200 bg-sage-50 p-5 text-ink"
    >
      <h3 id="re-sign-title" className="text-lg font-semibold">
        {RE_SIGN_NOTICE.title}
      </h3>
      <p className="mt-2">{RE_SIGN_NOTICE.text}</p>
      {notice.changes && (
        <>
          <h4 className="mt-4 font-sans text-base font-semibold">{RE_SIGN_NOTICE.changesLabel}</h4>
          <p className="mt-1 whitespace-pre-line">{notice.changes}</p>
        </>
      )}
    </section>
  );
}

/** The fields as typed: the inputs are uncontrolled, so what was typed before hydration stays. */
function readValues(form: HTMLFormElement, signature: Signature) {
  const data = new FormData(form);
  return {
    ...Object.fromEntries(WAIVER_FIELD_NAMES.map((name) => [name, String(data.get(name) ?? '')])),
    agreedToTerms: data.has('agreedToTerms'),
    agreedToPhotos: data.has('agreedToPhotos'),
    signature: signature.dataUrl,
    signatureKind: signature.dataUrl ? signature.kind : undefined,
    signatureName: String(data.get('signatureName') ?? ''),
  };
}

const NO_SIGNATURE: Signature = { dataUrl: '', kind: 'drawn' };

/** On the studio's kiosk, how long a success shows before the form is blank for the next signer. */
export const KIOSK_RESET_MS = 4_000;

/**
 * Whether this device is the studio's waiver kiosk: only a device carrying the marker cookie
 * asks, and the server decides (a kiosk turned off on the desk is an ordinary device again).
 * While it is, no field offers autofill; otherwise each gets back its own `autocomplete`.
 */
function useKiosk(form: RefObject<HTMLFormElement | null>): boolean {
  const [kiosk, setKiosk] = useState(false);
  useEffect(() => {
    if (!/(?:^|;\s*)waiver-kiosk=on(?:;|$)/.test(document.cookie)) return;
    const controller = new AbortController();
    fetch('/api/waiver/kiosk', { signal: controller.signal, credentials: 'same-origin' })
      .then((response) => (response.ok ? (response.json() as Promise<{ kiosk?: boolean }>) : null))
      .then((answer) => {
        const yes = answer?.kiosk === true;
        setKiosk(yes);
        const element = form.current;
        if (!element) return;
        if (yes) element.setAttribute('autocomplete', 'off');
        else element.removeAttribute('autocomplete');
        for (const field of element.querySelectorAll<HTMLElement>('input, textarea, select')) {
          const was = field.dataset.autocompleteWas;
          if (yes) field.setAttribute('autocomplete', 'off');
          else if (was) field.setAttribute('autocomplete', was);
          else if (was === '') field.removeAttribute('autocomplete');
        }
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, [form]);
  return kiosk;
}

function Form({ children, version }: Props) {
  const id = useId();
  const { formRef, sending, errors, showErrors, clearError, control, send, action } = useForm({
    form: 'waiver',
    action: '/api/submit-waiver',
    order: WAIVER_FIELD_ORDER,
    body: (waiver) => ({ waiver }),
    notices: { sent: WAIVER_NOTICES.sent, failed: WAIVER_NOTICES.failed },
  });
  const hydrated = useHydrated();
  const [agreed, setAgreed] = useState(false);
  const [signature, setSignature] = useState<Signature>(NO_SIGNATURE);
  const [padKey, setPadKey] = useState(0);
  // Just sent: the form is blank for the next waiver, and the terms' hint waits until someone
  // starts on it, so that the moment after a success reads as one.
  const [sent, setSent] = useState(false);
  // Signed on this device (not a kiosk): the page says so until they choose to sign another, so
  // nobody takes the blank form for a waiver that was not saved and signs twice.
  const [signed, setSigned] = useState<{ firstName: string; email: string } | null>(null);
  const signedRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (signed) signedRef.current?.focus();
  }, [signed]);
  const kiosk = useKiosk(formRef);
  // The pad's typed-name field is made anew with each signature: no autofill there either.
  useEffect(() => {
    const form = formRef.current;
    if (!kiosk || !form) return;
    form.setAttribute('autocomplete', 'off');
    for (const field of form.querySelectorAll('input, textarea, select')) {
      field.setAttribute('autocomplete', 'off');
    }
  }, [kiosk, padKey, formRef]);

  // A box ticked before the form hydrated is still ticked: take it from the page.
  useEffect(() => {
    const terms = formRef.current?.elements.namedItem('agreedToTerms');
    if (terms instanceof HTMLInputElement) setAgreed(terms.checked);
  }, [formRef]);

  // A re-sign link from the studio's e-mail names who it is for by a token in the fragment,
  // sent to the server in a POST's body (never in a path that logs keep): fill in their name and
  // address (only fields still empty), and say above the form that the waiver changed, and what
  // changed. The fragment is then taken out of the address bar and the history.
  const [reSign, setReSign] = useState<ReSignNotice | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const open = () => {
      const hash = window.location.hash;
      const token = hash.startsWith(RE_SIGN_HASH) ? hash.slice(RE_SIGN_HASH.length) : '';
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return;
      fetch(RE_SIGN_ACTION, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
        signal: controller.signal,
      })
        .then((response) => response.json() as Promise<Record<string, unknown>>)
        .then((signer) => {
          const { pathname, search } = window.location;
          window.history.replaceState(window.history.state, '', `${pathname}${search}`);
          if (signer.success !== true) {
            if (typeof signer.error === 'string') setReSign({ error: signer.error });
            return;
          }
          const changes = typeof signer.changes === 'string' ? signer.changes : undefined;
          setReSign({ changes });
          const form = formRef.current;
          if (!form) return;
          for (const name of ['firstName', 'lastName', 'email']) {
            const input = form.elements.namedItem(name);
            const value = signer[name];
            if (input instanceof HTMLInputElement && !input.value && typeof value === 'string') {
              input.value = value;
            }
          }
        })
        .catch(() => undefined);
    };
    open();
    // A link followed while the page is already open changes only the fragment.
    window.addEventListener('hashchange', open, { signal: controller.signal });
    return () => controller.abort();
  }, [formRef]);

  const submit = async () => {
    const form = formRef.current;
    if (sending || !form) return;
    const result = waiverSchema.safeParse({
      ...readValues(form, signature),
      waiverVersion: version,
    });
    const problems = result.success ? {} : fieldErrors(result.error);
    showErrors(problems);
    const { agreement, signature: unsigned } = WAIVER_NOTICES;
    if (problems.agreedToTerms) {
      toast.error(agreement.title, { description: agreement.text });
      return;
    }
    if (problems.signature === SIGNATURE_MISSING) {
      toast.error(unsigned.title, { description: unsigned.text });
      return;
    }
    if (!result.success) {
      const first = WAIVER_FIELD_ORDER.find((name) => problems[name]);
      toast.error('Please check the form', { description: first && problems[first] });
      return;
    }
    if (await send(result.data)) {
      form.reset();
      // reset() unticks the boxes behind React's back: untick them through the property React
      // tracks too, or ticking the terms for the next waiver would not reach its onChange.
      for (const box of form.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) {
        box.checked = false;
      }
      setAgreed(false);
      setSignature(NO_SIGNATURE);
      setPadKey((key) => key + 1);
      setSent(true);
      if (!kiosk) setSigned({ firstName: result.data.firstName, email: result.data.email });
      // The kiosk: a few seconds to read the success (the form is blank already), then the
      // notice goes and the next signer starts at the top, unless they have begun already.
      if (kiosk) {
        setTimeout(() => {
          const begun = WAIVER_FIELD_NAMES.some((name) => {
            const field = form.elements.namedItem(name);
            return field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement
              ? field.value !== ''
              : false;
          });
          toast.dismiss();
          if (begun) return;
          window.scrollTo({ top: 0 });
          const first = form.elements.namedItem(WAIVER_FIELD_ORDER[0]!);
          if (first instanceof HTMLElement) first.focus({ preventScroll: true });
        }, KIOSK_RESET_MS);
      }
    }
  };

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit();
  };

  // Enter in a field would not submit the form while the button is disabled (unchecked terms),
  // and then nobody would learn why; handle it here so the visitor is told what is missing.
  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    const target = event.target;
    if (event.key !== 'Enter' || !(target instanceof HTMLInputElement)) return;
    if (target.type === 'checkbox') return;
    event.preventDefault();
    void submit();
  };

  const termsHelpId = `${id}-terms-help`;

  const signAnother = () => {
    setSigned(null);
    // The form shows again, blank, at its first field.
    requestAnimationFrame(() => {
      const first = formRef.current?.elements.namedItem(WAIVER_FIELD_ORDER[0]!);
      if (first instanceof HTMLElement) first.focus();
    });
  };

  return (
    <>
      <Notices />
      {signed && (
        <section
          aria-labelledby={`${id}-signed-title`}
          data-waiver-signed
          className="space-y-4 rounded-2xl border border-sage-200 bg-sage-50 p-6"
        >
          <h3
            id={`${id}-signed-title`}
            ref={signedRef}
            tabIndex={-1}
            className="font-serif text-2xl font-semibold text-ink"
          >
            Your waiver is signed
          </h3>
          <p className="break-words text-ink">
            Thank you, {signed.firstName}. Your waiver is saved with the studio, and a copy is
            e-mailed to {signed.email}. You need not sign again unless your health changes
            significantly.
          </p>
          <button
            type="button"
            onClick={signAnother}
            className="rounded-full border border-sage-700 bg-white px-6 py-2.5 text-base font-semibold text-sage-800 hover:bg-sage-100"
          >
            Sign another waiver
          </button>
        </section>
      )}
      {/* eslint-disable-next-line jsx-a11y-x/no-noninteractive-element-interactions -- one Enter handler for the fields inside */}
      <form
        ref={formRef}
        method="post"
        action={action}
        noValidate={hydrated}
        onSubmit={onSubmit}
        onKeyDown={onKeyDown}
        onInput={() => setSent(false)}
        aria-busy={sending}
        hidden={signed !== null}
        data-kiosk={kiosk ? 'on' : undefined}
        className="space-y-8"
      >
        {reSign && <ReSignBox notice={reSign} />}
        <p className="text-sm text-muted">
          Fields marked <span className="text-clay-600">*</span> are required.
        </p>
        {Object.entries(WAIVER_SECTIONS).map(([section, title]) => (
          <fieldset
            key={section}
            className="border-t border-sand-200 pt-6 first-of-type:border-t-0 first-of-type:pt-0"
          >
            <legend className="float-left mb-4 w-full font-serif text-xl font-semibold text-ink">
              {title}
            </legend>
            <div className="clear-both grid gap-4 sm:grid-cols-2">
              {WAIVER_FIELD_NAMES.filter((name) => WAIVER_FIELDS[name].section === section).map(
                (name) => (
                  <TextField
                    key={name}
                    spec={WAIVER_FIELDS[name]}
                    control={control(name)}
                    error={errors[name]}
                    className={'multiline' in WAIVER_FIELDS[name] ? 'sm:col-span-2' : undefined}
                  />
                ),
              )}
            </div>
          </fieldset>
        ))}

        <section aria-labelledby={`${id}-waiver-title`} className="border-t border-sand-200 pt-6">
          <h3 id={`${id}-waiver-title`} className="mb-4 text-xl font-semibold">
            Liability Waiver and Release
          </h3>
          <div
            role="region"
            aria-label="Liability waiver text"
            // eslint-disable-next-line jsx-a11y-x/no-noninteractive-tabindex -- a scrolling region takes the focus so the keyboard can scroll it (WCAG 2.1.1)
            tabIndex={0}
            className="max-h-60 overflow-y-auto rounded-md border border-sand-200 bg-sand-50 p-4 text-sm leading-relaxed text-ink"
          >
            {children}
          </div>
          <p className="mt-2 text-xs text-muted">Waiver version {version}</p>
        </section>

        <div className="space-y-3">
          <label className="flex items-start gap-3 text-sm text-ink">
            <input
              type="checkbox"
              name="agreedToTerms"
              required
              aria-invalid={errors.agreedToTerms ? true : undefined}
              onChange={(event) => {
                setAgreed(event.target.checked);
                clearError('agreedToTerms');
              }}
              className={CHECKBOX}
            />
            <span>
              I have read and agree to the liability waiver terms above, and I agree to sign this
              waiver electronically.
              <RequiredMark />
            </span>
          </label>
          <label className="flex items-start gap-3 text-sm text-ink">
            <input type="checkbox" name="agreedToPhotos" className={CHECKBOX} />
            <span>
              I consent to photos of me taken during classes being used for promotional purposes
              (optional).
            </span>
          </label>
        </div>

        <div>
          <h3 className="mb-3 text-xl font-semibold">
            Electronic Signature
            <RequiredMark />
          </h3>
          <SignaturePad
            key={padKey}
            onChange={(next) => {
              setSignature(next);
              clearError('signature');
              if (next.dataUrl) setSent(false);
            }}
            invalid={Boolean(errors.signature)}
            describedBy={errors.signature ? `${id}-signature-error` : undefined}
          />
          {errors.signature !== SIGNATURE_MISSING && (
            <FieldError id={`${id}-signature-error`} error={errors.signature} />
          )}
        </div>

        <SpamChecks idPrefix="waiver" />
        <input type="hidden" name="waiverVersion" value={version} />
        <div className="border-t border-sand-200 pt-6">
          <button
            type="submit"
            // Before hydration the page's own small script keeps it disabled while the terms are
            // unticked (components/forms/TermsGate.astro); without scripts the browser itself
            // requires the terms and posts the form.
            data-terms-gate
            disabled={hydrated && (sending || !agreed)}
            aria-describedby={hydrated && !agreed && !sent ? termsHelpId : undefined}
            className="w-full rounded-full bg-sage-700 px-6 py-3 text-base font-semibold text-white shadow-sm transition-colors hover:bg-sage-800 disabled:cursor-not-allowed disabled:opacity-60 sm:w-auto"
          >
            {sending ? 'Processing Waiver...' : 'Submit Waiver'}
          </button>
          {hydrated && !agreed && !sent && (
            <p id={termsHelpId} className="mt-2 text-sm text-muted">
              Please agree to the waiver terms above to submit.
            </p>
          )}
        </div>
      </form>
    </>
  );
}

export default island(Form, 'WaiverForm');
