import { useState } from 'react';
import type { ParticipantHealth, ParticipantRow, WaiverStatus } from '../../shared/desk-api';
import { ask, desk, DeskError } from './api';
import { day, when } from './format';
import { href } from './route';
import { useLoad } from './useLoad';
import {
  BUTTON,
  BUTTON_QUIET,
  CARD,
  Facts,
  Failed,
  Field,
  LINK,
  Loading,
  ScreenTitle,
  StatusBadge,
} from './ui';

/**
 * The quick check on the desk's first screen: part of a name, e-mail or phone, and each
 * participant it matches with their status at once.
 */
export function QuickCheck() {
  const [found, setFound] = useState<{ q: string; items: ParticipantRow[] }>();
  const [error, setError] = useState<DeskError>();
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="quick-check-title" className={`${CARD} space-y-3`}>
      <h3 id="quick-check-title" className="font-serif text-xl font-semibold">
        Is this person covered?
      </h3>
      <form
        role="search"
        aria-label="Quick check"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          const q = String(new FormData(event.currentTarget).get('q') ?? '').trim();
          setBusy(true);
          setError(undefined);
          ask(desk.participants.$get({ query: { q } }))
            .then(
              (answer) => setFound({ q, items: answer.items }),
              (failure: unknown) => setError(failure as DeskError),
            )
            .finally(() => setBusy(false));
        }}
      >
        <div className="min-w-0 flex-1 basis-56">
          <Field
            label="Quick check"
            name="q"
            type="search"
            hint="Part of a name, an e-mail address or a phone number."
            error={error?.fieldErrors?.q}
          />
        </div>
        <button type="submit" className={BUTTON} disabled={busy}>
          Check
        </button>
      </form>
      {error && !error.fieldErrors?.q && <Failed error={error} />}
      <div aria-live="polite">
        {found &&
          (found.items.length === 0 ? (
            <p>
              <StatusBadge status="none" /> Nobody who signed a waiver matches “{found.q}”.
            </p>
          ) : (
            <ul className="divide-y divide-sand-100">
              {found.items.map((person) => (
                <li
                  key={person.waiverId}
                  className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2"
                >
                  <a href={href(`participants/${person.waiverId}`)} className={LINK}>
                    {person.name}
                  </a>
                  <StatusBadge status={person.status} />
                  <span className="min-w-0 text-sm break-words text-muted">
                    {person.email} · last signed {day(person.signedAt!)} (version {person.version})
                  </span>
                </li>
              ))}
            </ul>
          ))}
      </div>
    </section>
  );
}

const STATUS_EXPLAINED: Record<WaiverStatus, string> = {
  covered: 'Their latest waiver is under the version in force.',
  older: 'Their latest waiver is under an older version: ask them to sign the new one.',
  expired:
    'Their latest waiver is older than the months a waiver stays valid: ask them to sign again.',
  none: 'There is no waiver on file.',
};

/** One participant: everyone who signed with one address, in any case. */
export default function ParticipantDetail({ id }: { id: string }) {
  const { data, error, loading, reload } = useLoad(id, (options) =>
    desk.participants[':id'].$get({ param: { id: encodeURIComponent(id) } }, options),
  );
  const back = (
    <a href={href('waivers')} className={LINK}>
      Back to the waivers
    </a>
  );
  if (loading) return <Loading what="the participant" />;
  if (error || !data) {
    return (
      <div className="space-y-4">
        {back}
        <Failed error={error ?? new Error('The participant could not be loaded.')} retry={reload} />
      </div>
    );
  }
  const { participant } = data;
  return (
    <div className="space-y-6">
      {back}
      <div className="space-y-2">
        <ScreenTitle>{participant.name}</ScreenTitle>
        <p className="flex flex-wrap items-center gap-2">
          <StatusBadge status={participant.status} />
          <span className="text-muted">{STATUS_EXPLAINED[participant.status]}</span>
        </p>
      </div>
      <section className={CARD} aria-label="Participant">
        <Facts
          items={[
            ['E-mail', participant.email],
            ['Last signed', `${when(participant.signedAt!)}, version ${participant.version}`],
            ['Waivers signed', String(participant.waivers)],
            ...(participant.reSignRequestedAt
              ? [['Asked to sign again', when(participant.reSignRequestedAt)] as [string, string]]
              : []),
          ]}
        />
      </section>
      <Health id={participant.waiverId} />
      <section className={CARD} aria-labelledby="signed-title">
        <h3 id="signed-title" className="mb-2 font-serif text-xl font-semibold">
          Every waiver they signed
        </h3>
        <ul className="divide-y divide-sand-100">
          {participant.signed.map((waiver) => (
            <li key={waiver.id} className="flex flex-wrap gap-x-3 py-2">
              <a href={href(`waivers/${waiver.id}`)} className={LINK}>
                {when(waiver.createdAt)}
              </a>
              <span className="text-muted">
                version {waiver.version} · as {waiver.name}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

/** Their health information and what last changed in it: shown on request, and logged. */
function Health({ id }: { id: string }) {
  const [health, setHealth] = useState<ParticipantHealth>();
  const [error, setError] = useState<DeskError>();
  if (!health) {
    return (
      <section className={`${CARD} space-y-2`} aria-label="Health information">
        <p className="text-sm text-muted">
          Their health information, and when and how it last changed, is shown on request: opening
          it is recorded in the access log.
        </p>
        <button
          type="button"
          className={BUTTON_QUIET}
          onClick={() =>
            ask(
              desk.participants[':id'].health.$get({ param: { id: encodeURIComponent(id) } }),
            ).then(
              (answer) => setHealth(answer.health),
              (failure: unknown) => setError(failure as DeskError),
            )
          }
        >
          Show health information
        </button>
        {error && <Failed error={error} />}
      </section>
    );
  }
  return (
    <section className={`${CARD} space-y-3`} aria-labelledby="health-title">
      <h3 id="health-title" className="font-serif text-xl font-semibold">
        Health information
      </h3>
      {health.lastChange ? (
        <p className="rounded-lg border-2 border-clay-600 px-3 py-2">
          <strong>Changed on {day(health.lastChange.at)}:</strong>{' '}
          {health.lastChange.fields.join(', ')}.{' '}
          <a href={href(`waivers/${health.lastChange.waiverId}`)} className={LINK}>
            The waiver with the change
          </a>
        </p>
      ) : (
        <p>Unchanged since their first waiver, on {day(health.since)}.</p>
      )}
      <Facts items={health.latest.map((field) => [field.label, field.value || 'None stated'])} />
    </section>
  );
}
