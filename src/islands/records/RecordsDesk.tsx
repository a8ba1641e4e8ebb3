import { useEffect, useState } from 'react';
import {
  IDLE_MINUTES,
  KIOSK_DEVICE,
  SIGNED_OUT_IDLE,
  type SessionInfo,
} from '../../shared/desk-api';
import ErrorBoundary from '../ErrorBoundary';
import { useHydrated } from '../forms/useHydrated';
import { ask, desk, DeskError, onActivity, onSignedOut } from './api';
import DeskNav from './DeskNav';
import { time } from './format';
import { activeEntry, screenOf, useRoute } from './screens';
import SignIn from './SignIn';
import { BUTTON_QUIET, Failed, Loading, Notice } from './ui';

const SESSION_ENDED = 'Your session has ended. Please sign in again.';

type State =
  | { kind: 'loading' }
  | { kind: 'signed-out'; note?: string; ended?: string }
  | { kind: 'kiosk' }
  | { kind: 'failed'; error: DeskError }
  | { kind: 'in'; session: SessionInfo };

function Desk() {
  const route = useRoute();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const hydrated = useHydrated();

  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    ask(desk.session.$get({}, { init: { signal: controller.signal } })).then(
      (session) => setState({ kind: 'in', session }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        // (A session that ended while she was in is already said by onSignedOut below.)
        if (error instanceof DeskError && error.reason === 'kiosk') setState({ kind: 'kiosk' });
        else if (error instanceof DeskError && error.status === 401)
          setState((current) => (current.kind === 'signed-out' ? current : { kind: 'signed-out' }));
        // A refresh that fails keeps the desk as it was; only a first load shows the failure.
        else
          setState((current) =>
            current.kind === 'in' ? current : { kind: 'failed', error: error as DeskError },
          );
      },
    );
    return () => controller.abort();
  }, [round]);

  // Each move to another screen refreshes the numbers (the overview's, the undelivered badge).
  useEffect(() => {
    const refresh = () => setRound((n) => n + 1);
    window.addEventListener('hashchange', refresh);
    return () => window.removeEventListener('hashchange', refresh);
  }, []);
  const load = () => {
    setState({ kind: 'loading' });
    setRound((n) => n + 1);
  };

  // A desk page brought back from the back-forward cache shows what it held when it was left;
  // it loads anew instead, asking the server who (if anyone) is signed in on this device now.
  useEffect(() => {
    const fresh = (event: PageTransitionEvent) => {
      if (event.persisted) window.location.reload();
    };
    window.addEventListener('pageshow', fresh);
    return () => window.removeEventListener('pageshow', fresh);
  }, []);

  // Any answer that says the session is gone brings back the sign-in form.
  useEffect(
    () =>
      onSignedOut(() =>
        setState((current) =>
          current.kind === 'in' ? { kind: 'signed-out', ended: SESSION_ENDED } : current,
        ),
      ),
    [],
  );

  // The server ends a session after IDLE_MINUTES without a request: so does the screen, which
  // then holds no record for whoever picks up the phone next.
  const signedIn = state.kind === 'in';
  useEffect(() => {
    if (!signedIn) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const restart = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => setState({ kind: 'signed-out', ended: SIGNED_OUT_IDLE }),
        IDLE_MINUTES * 60_000,
      );
    };
    restart();
    const stop = onActivity(restart);
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [signedIn]);

  const active = activeEntry(route);
  useEffect(() => {
    const base = document.title.replace(/^.* · /, '');
    document.title = state.kind === 'in' && active ? `${active.label} · ${base}` : base;
  }, [state.kind, active]);

  const signOut = async (everywhere: boolean) => {
    try {
      await ask(desk['sign-out'].$post({ json: { everywhere } }));
      setState({
        kind: 'signed-out',
        note: everywhere ? 'You are signed out on every device.' : 'You are signed out.',
      });
    } catch (error) {
      if (!(error instanceof DeskError && error.status === 401)) {
        setState({ kind: 'failed', error: error as DeskError });
      }
    }
  };

  // Not in the page's HTML: without script it would say "Loading" beside the <noscript> note.
  if (state.kind === 'loading') return hydrated ? <Loading what="the records desk" /> : null;
  if (state.kind === 'failed') return <Failed error={state.error} retry={load} />;
  // No sign-in form on a kiosk: whoever holds it is not of the studio.
  if (state.kind === 'kiosk') {
    return (
      <div className="mx-auto max-w-md" role="status">
        <Notice>{KIOSK_DEVICE}</Notice>
      </div>
    );
  }
  if (state.kind === 'signed-out') {
    return (
      <div className="space-y-4">
        {state.note && (
          <div className="mx-auto max-w-md" role="status">
            <Notice tone="good">{state.note}</Notice>
          </div>
        )}
        <SignIn ended={state.ended} />
      </div>
    );
  }

  const { session } = state;
  const waiting = session.undelivered.owed + session.undelivered.failed;
  return (
    <div className="space-y-6">
      <DeskNav route={route} waiting={waiting} />
      <div>{screenOf(route).show({ route, session })}</div>
      {/* Out of the way, after the screen: who is signed in, and signing out. */}
      <section
        aria-label="Your session"
        className="flex flex-wrap items-center justify-between gap-3 border-t border-sand-200 pt-4 text-sm"
      >
        <p className="min-w-0 break-words text-muted">
          Signed in as <strong className="text-ink">{session.email}</strong> until{' '}
          {time(session.expiresAt)}, or until {IDLE_MINUTES} minutes without use
        </p>
        <div className="flex flex-wrap gap-2">
          <button type="button" className={BUTTON_QUIET} onClick={() => void signOut(false)}>
            Sign out
          </button>
          <button type="button" className={BUTTON_QUIET} onClick={() => void signOut(true)}>
            Sign out everywhere
          </button>
        </div>
      </section>
    </div>
  );
}

/** The records desk: one island, talking JSON to the functions under /api/records. */
export default function RecordsDesk() {
  return (
    <ErrorBoundary>
      <Desk />
    </ErrorBoundary>
  );
}
