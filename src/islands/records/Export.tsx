import { useState, type ReactNode, type SubmitEvent } from 'react';
import { FRESH_SIGN_IN_MINUTES } from '../../shared/desk-api';
import { address, ask, desk, DeskError, noteActivity } from './api';
import FreshSignIn from './FreshSignIn';
import { timeZone } from './format';
import { BUTTON, CARD, DateRange, Notice, ScreenTitle, Status } from './ui';

/**
 * One export's form: a date range (in the browser's time zone), `children`, the download. An
 * export with health information first asks the desk whether her sign-in is fresh enough; if
 * not, it offers a fresh sign-in link instead of a download the server would refuse.
 */
function ExportForm({
  what,
  title,
  staffEmail,
  children,
}: {
  what: 'waivers' | 'messages' | 'bookings';
  title: string;
  staffEmail: string;
  children?: ReactNode;
}) {
  const label = `Download ${what} (CSV)`;
  const [stale, setStale] = useState(false);
  const [error, setError] = useState<DeskError>();

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    setError(undefined);
    if (new FormData(form).get('health') !== 'yes') {
      setStale(false);
      noteActivity();
      return;
    }
    event.preventDefault();
    void ask(desk.session.$get()).then(
      (session) => {
        setStale(!session.fresh);
        // The browser's own download, as without the check (submit() fires no submit event).
        if (session.fresh) form.submit();
      },
      (caught: unknown) => {
        setError(caught instanceof DeskError ? caught : new DeskError(0, String(caught)));
      },
    );
  };

  return (
    <form
      method="get"
      action={address(
        what === 'waivers'
          ? desk.export.waivers.$path()
          : what === 'messages'
            ? desk.export.messages.$path()
            : desk.export.bookings.$path(),
      )}
      onSubmit={submit}
      className={`${CARD} space-y-4`}
      aria-labelledby={`export-${what}`}
    >
      <h3 id={`export-${what}`} className="font-serif text-xl font-semibold">
        {title}
      </h3>
      <div className="grid gap-4 sm:grid-cols-2">
        <DateRange />
      </div>
      <input type="hidden" name="tz" value={timeZone()} />
      {children}
      <Status>
        {stale && <FreshSignIn email={staffEmail} action={label} />}
        {error && <Notice tone="bad">{error.message}</Notice>}
      </Status>
      <button type="submit" className={BUTTON}>
        {label}
      </button>
    </form>
  );
}

/**
 * Plain GET forms: the browser downloads the CSV the function answers with (an attachment, so
 * the page stays), which works with any download manager and needs no script to save a file.
 */
export default function Export({ staffEmail }: { staffEmail: string }) {
  return (
    <div className="space-y-6">
      <ScreenTitle>Export</ScreenTitle>
      <p className="text-muted">
        Download a spreadsheet (CSV) of the waivers, the messages or the bookings and payments of a
        date range, or of everything when you leave the dates empty. Every export is recorded in the
        access log.
      </p>

      <ExportForm what="waivers" title="Waivers" staffEmail={staffEmail}>
        <label className="flex items-start gap-3">
          <input
            type="checkbox"
            name="health"
            value="yes"
            className="mt-1 h-5 w-5 shrink-0 accent-sage-700"
          />
          <span>
            Include health information (medical conditions and medications)
            <span className="block text-sm text-muted">
              Only when you need it: the file then holds health information, so keep it safe. It
              asks for a sign-in under {FRESH_SIGN_IN_MINUTES} minutes old.
            </span>
          </span>
        </label>
      </ExportForm>

      <ExportForm what="messages" title="Messages" staffEmail={staffEmail} />

      <ExportForm what="bookings" title="Bookings and payments" staffEmail={staffEmail}>
        <p className="text-sm text-muted">
          The sessions and class places whose time falls in the dates: each with its price, whether
          it was paid at the studio or online, what Stripe took as its fee and its reference, and
          every refund.
        </p>
      </ExportForm>
    </div>
  );
}
