import { useState, type SubmitEvent } from 'react';
import type { Erased, ErasurePreview } from '../../shared/desk-api';
import { ask, desk, DeskError } from './api';
import { count, day } from './format';
import FreshSignIn from './FreshSignIn';
import { href, type Route } from './route';
import { BUTTON, BUTTON_DANGER, CARD, Field, Notice, ScreenTitle, Status } from './ui';

const list = (rows: { createdAt: string }[]) => rows.map((row) => day(row.createdAt)).join('; ');

/**
 * A participant's request to be forgotten: look up what is held about an address, then erase
 * it all once the address is typed a second time (with a sign-in under FRESH_SIGN_IN_MINUTES
 * old: else the desk offers a fresh sign-in link, and she presses "Erase everything" again).
 */
export default function Erasure({ route, staffEmail }: { route: Route; staffEmail: string }) {
  const email = route.query.get('email') ?? '';
  const [preview, setPreview] = useState<{ email: string; held: ErasurePreview }>();
  const [erased, setErased] = useState<{ email: string; counts: Erased }>();
  const [error, setError] = useState<DeskError>();
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (caught) {
      setError(caught instanceof DeskError ? caught : new DeskError(0, String(caught)));
    } finally {
      setBusy(false);
    }
  };

  const find = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const address = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    setErased(undefined);
    setPreview(undefined);
    void run(async () => {
      const answer = await ask(desk.erasure.preview.$post({ json: { email: address } }));
      setPreview({ email: address, held: answer.preview });
      if (route.query.get('email') !== address)
        window.location.hash = href('erase', { email: address });
    });
  };

  const erase = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!preview) return;
    const confirm = String(new FormData(event.currentTarget).get('confirm') ?? '');
    void run(async () => {
      const answer = await ask(desk.erasure.$post({ json: { email: preview.email, confirm } }));
      setErased({ email: preview.email, counts: answer.erased });
      setPreview(undefined);
    });
  };

  const held = preview?.held;
  const nothing =
    held &&
    held.waivers.length + held.messages.length + held.bookings.length + held.mails === 0 &&
    !held.listed;
  const upcoming = held?.bookings.filter((booking) => booking.upcoming) ?? [];

  return (
    <div className="space-y-6">
      <ScreenTitle>Erase a participant</ScreenTitle>
      <p className="text-muted">
        When someone asks the studio to delete their information, this deletes everything the site
        holds about their e-mail address: their waivers with the signed PDFs, their messages, their
        bookings (consultations, sessions, class places and waitlist entries; one still to come is
        cancelled without an e-mail, and its time or place is free again), and the e-mails queued or
        sent about them. It cannot be undone. Copies already delivered to an inbox, or exported,
        have to be deleted there.
      </p>

      <form
        onSubmit={find}
        noValidate
        className={`${CARD} space-y-4`}
        aria-label="Find what is held"
      >
        <Field
          label="The participant's e-mail address"
          name="email"
          type="email"
          defaultValue={email}
          key={email}
          required
          error={preview ? undefined : error?.fieldErrors.email}
        />
        <button type="submit" className={BUTTON} disabled={busy}>
          Find what is held
        </button>
      </form>

      <Status>
        {erased && (
          <Notice tone="good">
            Erased everything held about {erased.email}: {count(erased.counts.waivers, 'waiver')},{' '}
            {count(erased.counts.messages, 'message')}, {count(erased.counts.bookings, 'booking')},{' '}
            {erased.counts.subscriptions > 0 && 'their place on the Get Notified list, '}
            {count(erased.counts.mails, 'e-mail')} and {count(erased.counts.pdfs, 'signed PDF')}.
            The access log notes when and by whom, with counts and record numbers only.
          </Notice>
        )}
        {nothing && <Notice>Nothing is held about {preview.email}.</Notice>}
        {error?.reason === 'fresh-sign-in' && (
          <FreshSignIn email={staffEmail} action="Erase everything" />
        )}
        {error && !error.reason && !error.fieldErrors.email && !error.fieldErrors.confirm && (
          <Notice tone="bad">{error.message}</Notice>
        )}
      </Status>

      {held && !nothing && preview && (
        <form
          onSubmit={erase}
          noValidate
          className={`${CARD} space-y-4 border-clay-600`}
          aria-labelledby="erase-title"
        >
          <h3 id="erase-title" className="font-serif text-xl font-semibold">
            Held about {preview.email}
          </h3>
          <ul className="list-disc space-y-1 pl-5">
            <li>
              {count(held.waivers.length, 'waiver')}
              {held.waivers.length > 0 && ` (signed ${list(held.waivers)})`}
            </li>
            <li>
              {count(held.messages.length, 'message')}
              {held.messages.length > 0 && ` (sent ${list(held.messages)})`}
            </li>
            <li>
              {count(held.bookings.length, 'booking')}
              {held.bookings.length > 0 &&
                ` (${list(held.bookings.map((b) => ({ createdAt: b.start })))})`}
              {upcoming.length > 0 &&
                `: ${count(upcoming.length, 'is', 'are')} still to come and will be cancelled without an e-mail. Take ${upcoming.length === 1 ? 'it' : 'them'} out of your own calendar if you added the invite.`}
            </li>
            {held.listed && <li>Their address on the Get Notified list</li>}
            <li>{count(held.mails, 'e-mail')} in the outbox</li>
          </ul>
          <Field
            label="Type the e-mail address again to confirm"
            name="confirm"
            type="email"
            autoComplete="off"
            required
            error={error?.fieldErrors.confirm}
          />
          <button type="submit" className={BUTTON_DANGER} disabled={busy}>
            Erase everything
          </button>
        </form>
      )}
    </div>
  );
}
