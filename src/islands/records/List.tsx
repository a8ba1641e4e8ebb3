import { useState, type SubmitEvent } from 'react';
import type { ListEvent } from '../../shared/desk-api';
import { address, ask, desk, DeskError } from './api';
import { count, when } from './format';
import {
  BUTTON,
  BUTTON_QUIET,
  CARD,
  Facts,
  Failed,
  Field,
  Loading,
  Notice,
  ScreenTitle,
  Status,
  formValues,
} from './ui';
import { useLoad, useRowAction } from './useLoad';

/**
 * The Get Notified list: how many addresses are on it (and waiting or gone), announcing an event
 * to it (once per event), its CSV, and taking one address off it.
 */
export default function List() {
  const { data, error, loading, reload } = useLoad('list', (options) =>
    desk.list.$get({}, options),
  );
  const { busy, outcome, run } = useRowAction();
  const [removeError, setRemoveError] = useState<string>();
  const [removed, setRemoved] = useState<string>();

  const announce = (event: ListEvent) =>
    run(event.id, async () => {
      const answer = await ask(desk.list.announce.$post({ json: { eventId: event.id } }));
      reload();
      return {
        tone: 'good',
        words: `${event.title}: announced to ${count(answer.recipients, 'address', 'addresses')}. The e-mails go out in turns the mail server accepts, the last by ${when(answer.lastDue)}.`,
      };
    });

  const remove = async (submitted: SubmitEvent<HTMLFormElement>) => {
    submitted.preventDefault();
    const form = submitted.currentTarget;
    const { email } = formValues(form);
    setRemoveError(undefined);
    setRemoved(undefined);
    try {
      await ask(desk.list.remove.$post({ json: { email: email ?? '' } }));
      setRemoved(email);
      form.reset();
      reload();
    } catch (caught) {
      setRemoveError(caught instanceof DeskError ? caught.message : String(caught));
    }
  };

  return (
    <div className="space-y-6">
      <ScreenTitle>Get Notified list</ScreenTitle>
      <p className="text-muted">
        People who asked on the Events page to hear when dates are announced. Only confirmed
        addresses get announcements; every e-mail has a link to unsubscribe.
      </p>
      {loading && <Loading what="the list" />}
      {error && <Failed error={error} retry={reload} />}
      {data && (
        <>
          <section className={CARD} aria-labelledby="list-counts">
            <h3 id="list-counts" className="font-serif text-xl font-semibold">
              On the list
            </h3>
            <Facts
              items={[
                ['Confirmed', String(data.counts.confirmed)],
                ['Waiting for confirmation', String(data.counts.pending)],
                ['Unsubscribed', String(data.counts.unsubscribed)],
              ]}
            />
            <a href={address(desk.list.export.$path())} className={`${BUTTON_QUIET} mt-4`}>
              Download the list (CSV)
            </a>
          </section>

          <section className="space-y-3" aria-labelledby="list-events">
            <h3 id="list-events" className="font-serif text-xl font-semibold">
              Announce an event
            </h3>
            <Status>{outcome && <Notice tone={outcome.tone}>{outcome.words}</Notice>}</Status>
            {data.events.length === 0 ? (
              <p className="text-muted">
                No event is still to come on the site. Add one to the site’s events (your guide says
                how, under “Events”), and once the site is rebuilt it is offered here.
              </p>
            ) : (
              <ul className="space-y-3">
                {data.events.map((event) => (
                  <li key={event.id}>
                    <article className={`${CARD} space-y-3`} aria-labelledby={`event-${event.id}`}>
                      <h4 id={`event-${event.id}`} className="font-sans text-base font-semibold">
                        {event.title}
                      </h4>
                      <Facts
                        items={[
                          ['When', event.when],
                          ['Where', event.place],
                          ...(event.announced
                            ? [
                                [
                                  'Announced',
                                  `${when(event.announced.at)} to ${count(event.announced.recipients, 'address', 'addresses')} (${event.announced.sent} sent so far)`,
                                ] as [string, string],
                              ]
                            : []),
                        ]}
                      />
                      {!event.announced && (
                        <button
                          type="button"
                          className={BUTTON}
                          disabled={busy !== undefined || data.counts.confirmed === 0}
                          aria-describedby={`event-${event.id}`}
                          onClick={() => void announce(event)}
                        >
                          {busy === event.id
                            ? 'Announcing…'
                            : `Announce to ${count(data.counts.confirmed, 'address', 'addresses')}`}
                        </button>
                      )}
                    </article>
                  </li>
                ))}
              </ul>
            )}
          </section>

          <form
            onSubmit={(submitted) => void remove(submitted)}
            noValidate
            className={`${CARD} space-y-4`}
            aria-labelledby="list-remove"
          >
            <h3 id="list-remove" className="font-serif text-xl font-semibold">
              Take an address off the list
            </h3>
            <Status>
              {removed && (
                <Notice tone="good">
                  {removed} is off the list: nothing more is sent to it unless it signs up and
                  confirms again.
                </Notice>
              )}
            </Status>
            <Field
              label="E-mail address"
              name="email"
              type="email"
              autoComplete="off"
              error={removeError}
            />
            <button type="submit" className={BUTTON_QUIET}>
              Take off the list
            </button>
          </form>
        </>
      )}
    </div>
  );
}
