import { useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { toast } from 'sonner';
import { antiSpamFields } from '../../shared/anti-spam';
import { readAnswer, refusal, type FormName } from '../../shared/form-answer';
import type { FieldErrors } from '../../shared/fields';
import { CONTROL, type ControlProps } from './Field';
import { useSubmissionId } from './useSubmissionId';

/** The notices of one form, in the product's words. */
export interface Notices {
  /** The success notice; none for a form that shows its success in place (the booking). */
  sent?: { title: string; text: string };
  failed: {
    title: string;
    /** What to say when the server gave no words of its own. */
    fallback: string;
    /** How to put the server's words (defaults to them as they are). */
    explain?: (error: string) => string;
    /** What is logged when the answer carries no words (defaults to its HTTP status). */
    thrown?: string;
  };
}

export interface FormOptions {
  form: FormName;
  /** The function the form posts to, also its `action` for a post without script. */
  action: string;
  notices: Notices;
  /** The fields in the form's order: the first one with a problem gets the focus. */
  order: readonly string[];
  /** Puts the fields into the body the function reads (the waiver nests them in `waiver`). */
  body?: (fields: Record<string, unknown>) => Record<string, unknown>;
  /** Reads what an answer carries beside the common shape (a booking, a taken slot's nearest). */
  onAnswer?: (answer: Record<string, unknown>, status: number) => void;
}

// Statuses a proxy or the platform may send bare (no JSON), which still deserve an explanation.
const BARE_REFUSALS = new Set([403, 408, 413, 429]);

/** A form that gets no answer says so after this long; sending again is safe (same id). */
export const ANSWER_TIMEOUT_MS = 30_000;

class Refused extends Error {}

/**
 * One form's life in the browser, the same for every form: the submission id (kept across
 * retries of the same fields), the invisible anti-spam fields, idle or sending, the field errors
 * (from the schema in the browser or from the server's answer) wired to their controls, and the
 * server's answer turned into the product's notices.
 */
export function useForm({
  form,
  action,
  notices,
  order,
  body = (fields) => fields,
  onAnswer,
}: FormOptions) {
  const formRef = useRef<HTMLFormElement>(null);
  const submission = useSubmissionId();
  const [sending, setSending] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});

  /** Shows the problems next to their fields and moves the focus to the first of them. */
  const showErrors = (next: FieldErrors) => {
    flushSync(() => setErrors(next));
    const first = order.find((field) => next[field]);
    const control = first && formRef.current?.elements.namedItem(first);
    if (control instanceof HTMLElement) control.focus();
  };

  const clearError = (field: string) =>
    setErrors((current) => {
      if (!(field in current)) return current;
      const { [field]: _fixed, ...rest } = current;
      return rest;
    });

  /** What a control needs: its name and id, and its error wired to it. */
  const control = (name: string): ControlProps => {
    const id = `${form}-${name}`;
    return {
      id,
      name,
      'aria-invalid': errors[name] ? true : undefined,
      'aria-describedby': errors[name] ? `${id}-error` : undefined,
      onInput: () => clearError(name),
      className: CONTROL,
    };
  };

  /** Sends valid fields; resolves true once the server has stored them. */
  async function send(fields: Record<string, unknown>): Promise<boolean> {
    const element = formRef.current;
    if (sending || !element) return false;
    setErrors({});
    setSending(true);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), ANSWER_TIMEOUT_MS);
    try {
      const response = await fetch(action, {
        method: 'POST',
        signal: timeout.signal,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...body({ ...fields, submissionId: submission.for(fields) }),
          ...antiSpamFields(element),
        }),
      });
      const json: unknown = await response.json().catch(() => null);
      if (typeof json === 'object' && json !== null) {
        onAnswer?.(json as Record<string, unknown>, response.status);
      }
      const answer = readAnswer(json);
      if (response.ok && answer?.success) {
        submission.done();
        if (notices.sent) toast.success(notices.sent.title, { description: notices.sent.text });
        return true;
      }
      if (answer && !answer.success) {
        if (answer.fieldErrors) showErrors(answer.fieldErrors);
        throw new Refused(answer.error);
      }
      const retryAfter = Number(response.headers.get('retry-after')) || undefined;
      const words = BARE_REFUSALS.has(response.status)
        ? refusal(form, response.status, retryAfter)
        : undefined;
      if (words) throw new Refused(words);
      throw new Error(
        notices.failed.thrown ?? `The form was not accepted (HTTP ${response.status})`,
      );
    } catch (error) {
      // The reason only: never the form's fields, which may hold health information.
      console.error(`${notices.failed.title}:`, error instanceof Error ? error.message : error);
      const explain = notices.failed.explain ?? ((words: string) => words);
      toast.error(notices.failed.title, {
        description: error instanceof Refused ? explain(error.message) : notices.failed.fallback,
      });
      return false;
    } finally {
      clearTimeout(timer);
      setSending(false);
    }
  }

  return { formRef, sending, errors, showErrors, clearError, control, send, action };
}
