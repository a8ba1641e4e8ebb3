import type { SubmitEvent } from 'react';
import { NOTE_MAX } from '../../shared/desk-api';
import { BUTTON_DANGER, BUTTON_QUIET, INPUT } from './ui';

/**
 * The form behind Cancel…: her note to whoever is told of the cancellation, what happens said
 * beside it, and the button that cancels.
 */
export function NoteForm({
  id,
  who,
  words,
  submit,
  busy,
  onSubmit,
  onClose,
}: {
  id: string;
  who: string;
  words: string;
  submit: string;
  busy: boolean;
  onSubmit: (note: string) => Promise<boolean>;
  onClose: () => void;
}) {
  const send = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const note = String(new FormData(event.currentTarget).get('note') ?? '');
    if (await onSubmit(note)) onClose();
  };
  return (
    <form onSubmit={(event) => void send(event)} className="w-full space-y-3 pt-1" noValidate>
      <div>
        <label htmlFor={`${id}-note`} className="mb-1 block text-sm font-semibold">
          A note to {who} (optional)
        </label>
        <textarea id={`${id}-note`} name="note" rows={3} maxLength={NOTE_MAX} className={INPUT} />
        <p className="mt-1 text-sm text-muted">{words}</p>
      </div>
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={BUTTON_DANGER} disabled={busy}>
          {submit}
        </button>
        <button type="button" className={BUTTON_QUIET} onClick={onClose}>
          Keep it
        </button>
      </div>
    </form>
  );
}
