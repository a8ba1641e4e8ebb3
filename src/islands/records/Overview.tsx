import type { SessionInfo, Undelivered } from '../../shared/desk-api';
import { count } from './format';
import { QuickCheck } from './Participants';
import Retention from './Retention';
import { href } from './route';
import { BUTTON, CARD, Field, LINK, ScreenTitle } from './ui';

/** Plain words on the first screen when any mail has not reached its inbox. */
export function DeliveryNotice({ undelivered }: { undelivered: Undelivered }) {
  const { owed, failed } = undelivered;
  if (owed + failed === 0) {
    return (
      <p className="rounded-lg border border-sage-200 bg-sage-50 px-4 py-3 text-ink">
        Every e-mail has been delivered.
      </p>
    );
  }
  const parts = [
    failed > 0 &&
      `${count(failed, 'e-mail')} could not be sent and ${failed === 1 ? 'waits' : 'wait'} for you to send ${failed === 1 ? 'it' : 'them'} again`,
    owed > 0 && `${count(owed, 'e-mail')} ${owed === 1 ? 'is' : 'are'} still being tried`,
  ].filter(Boolean);
  return (
    <div className="rounded-lg border-2 border-clay-600 bg-white px-4 py-3 text-ink">
      <p className="font-semibold">Not everything was delivered: {parts.join('; ')}.</p>
      <p className="mt-2">
        <a href={href('delivery')} className={`${LINK} inline-flex min-h-11 items-center`}>
          See the undelivered e-mail
        </a>
      </p>
    </div>
  );
}

/** The first screen (its numbers are refreshed by the desk whenever a screen opens). */
export default function Overview({ session }: { session: SessionInfo }) {
  const { counts } = session;
  const numbers: [string, number, string][] = [
    ['Waivers on file', counts.waivers, href('waivers')],
    ['Waivers signed this week', counts.waiversThisWeek, href('waivers')],
    ['Messages', counts.messages, href('messages', { show: 'inbox' })],
    ['Messages taken for spam', counts.spam, href('messages', { show: 'spam' })],
  ];
  return (
    <div className="space-y-6">
      <ScreenTitle>Overview</ScreenTitle>
      <DeliveryNotice undelivered={session.undelivered} />
      <QuickCheck />

      <form
        role="search"
        aria-label="Find a waiver"
        action={href('waivers')}
        className={`${CARD} space-y-3`}
        onSubmit={(event) => {
          event.preventDefault();
          const q = String(new FormData(event.currentTarget).get('q') ?? '').trim();
          window.location.hash = href('waivers', { q });
        }}
      >
        <Field
          label="Find a participant's waiver"
          name="q"
          type="search"
          hint="Part of a name, an e-mail address or a phone number."
        />
        <button type="submit" className={BUTTON}>
          Find
        </button>
      </form>

      <ul className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        {numbers.map(([label, value, target]) => (
          <li key={label}>
            <a href={target} className={`${CARD} block h-full hover:border-sage-600`}>
              <span className="block font-serif text-3xl font-semibold text-ink">{value}</span>
              <span className="mt-1 block text-sm text-muted">{label}</span>
            </a>
          </li>
        ))}
      </ul>

      <Retention />
    </div>
  );
}
