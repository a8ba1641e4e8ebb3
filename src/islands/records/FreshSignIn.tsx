import { useState } from 'react';
import { FRESH_SIGN_IN_NEEDED, LINK_MINUTES } from '../../shared/desk-api';
import { ask, desk, DeskError } from './api';
import { BUTTON, Notice } from './ui';

/**
 * What an erasure or a health export says when her sign-in is older than FRESH_SIGN_IN_MINUTES:
 * why, and a button that mails her a fresh sign-in link. She follows it (in a new tab, from her
 * mail), and back here presses `action` again: the fresh session's cookie is the browser's now.
 */
export default function FreshSignIn({ email, action }: { email: string; action: string }) {
  const [state, setState] = useState<'ask' | 'sending' | 'sent'>('ask');
  const [error, setError] = useState<DeskError>();

  const send = async () => {
    setState('sending');
    setError(undefined);
    try {
      await ask(desk['sign-in'].$post({ json: { email } }));
      setState('sent');
    } catch (caught) {
      setError(caught instanceof DeskError ? caught : new DeskError(0, String(caught)));
      setState('ask');
    }
  };

  if (state === 'sent') {
    return (
      <Notice tone="good">
        <p>{`A fresh sign-in link is on its way to ${email}. Open it within ${LINK_MINUTES} minutes and press “Sign in”, then come back to this page and press “${action}” again.`}</p>
      </Notice>
    );
  }
  return (
    <Notice>
      <div className="space-y-3">
        <p>{FRESH_SIGN_IN_NEEDED}</p>
        {error && <p className="font-semibold text-clay-700">{error.message}</p>}
        <button
          type="button"
          className={BUTTON}
          disabled={state === 'sending'}
          onClick={() => void send()}
        >
          {state === 'sending' ? 'Sending…' : 'Email me a fresh sign-in link'}
        </button>
      </div>
    </Notice>
  );
}
