import { useState, type SubmitEvent } from 'react';
import { SIGN_IN_SENT } from '../../shared/desk-api';
import { ask, desk, DeskError } from './api';
import { BUTTON, CARD, Field, Notice, ScreenTitle, Status } from './ui';

/**
 * The desk's door: an e-mail address in, a sign-in link out (if it may sign in). `ended` says why
 * she is here again (her session ended, or the desk closed after a while without use).
 */
export default function SignIn({ ended }: { ended?: string }) {
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<DeskError>();

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '');
    setSending(true);
    setError(undefined);
    try {
      await ask(desk['sign-in'].$post({ json: { email } }));
      setSent(true);
    } catch (caught) {
      setError(caught instanceof DeskError ? caught : new DeskError(0, String(caught)));
    } finally {
      setSending(false);
    }
  };

  return (
    <section className={`${CARD} mx-auto max-w-md space-y-4`} aria-labelledby="sign-in-title">
      <ScreenTitle id="sign-in-title" focus={false}>
        Sign in
      </ScreenTitle>
      {ended && <Notice>{ended}</Notice>}
      <p className="text-muted">
        Enter your e-mail address and we will send you a link that signs you in to the records desk.
      </p>
      <Status>
        {sent && <Notice tone="good">{SIGN_IN_SENT}</Notice>}
        {error && !error.fieldErrors.email && <Notice tone="bad">{error.message}</Notice>}
      </Status>
      <form onSubmit={(event) => void submit(event)} noValidate className="space-y-4">
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={error?.fieldErrors.email}
        />
        <button type="submit" className={`${BUTTON} w-full`} disabled={sending}>
          {sending ? 'Sending…' : 'Email me a sign-in link'}
        </button>
      </form>
    </section>
  );
}
