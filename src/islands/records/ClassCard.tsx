import { useState } from 'react';
import type { DeskClass, DeskPlace } from '../../shared/desk-api';
import { ask, desk } from './api';
import { Actions, outcomeOf, type Act } from './BookingActions';
import { Contact } from './Contact';
import { count, type StudioFormats } from './format';
import { NoteForm } from './NoteForm';
import { PaymentBadge } from './Payment';
import type { Outcome } from './useLoad';
import { Badge, BUTTON_QUIET, CARD, LINK, Status, StatusBadge } from './ui';

/** One person's place in a class: their waiver, payment and state, and her actions on it. */
function PlaceRow({
  place,
  lesson,
  format,
  begun,
  busy,
  act,
  acted,
}: {
  place: DeskPlace;
  lesson: DeskClass;
  format: StudioFormats;
  begun: boolean;
  busy: boolean;
  act: Act;
  acted: { id: string; outcome: Outcome } | undefined;
}) {
  const title = `place-${place.id}`;
  const cancelled = place.status === 'cancelled';
  return (
    <li className="space-y-2 py-3">
      <div id={title}>
        <Contact person={place.person} />
      </div>
      <p className="flex flex-wrap gap-2">
        <StatusBadge status={place.person.waiverStatus} />
        <PaymentBadge payment={place.payment} cancelled={cancelled} />
        {cancelled && <Badge tone="warn">Cancelled</Badge>}
        {place.status === 'offered' && <Badge tone="warn">Offered from the waitlist</Badge>}
        {place.noShow && <Badge tone="bad">No-show</Badge>}
      </p>
      <Status>{outcomeOf(acted, place.id)}</Status>
      {/* A class she cancelled leaves only the refund of what was paid; otherwise a place (not a
          waitlist offer) has every action. */}
      {(lesson.cancelledAt ? place.payment.refundableCents > 0 : place.status !== 'offered') && (
        <Actions
          kind="place"
          id={place.id}
          who={place.person.name}
          what={`${lesson.title}, ${format.at(lesson.start)}`}
          payment={place.payment}
          cancelled={Boolean(lesson.cancelledAt) || cancelled}
          begun={Boolean(lesson.cancelledAt) || begun}
          noShow={place.noShow}
          busy={busy}
          act={act}
          titleId={title}
        />
      )}
    </li>
  );
}

/**
 * A list of a class's places, one row each (the cancelled ones `muted`); only the row being
 * worked on shows busy.
 */
function PlaceList({
  places,
  muted = false,
  label,
  busy,
  busyWith,
  ...row
}: {
  places: DeskPlace[];
  muted?: boolean;
  label?: string;
  lesson: DeskClass;
  format: StudioFormats;
  begun: boolean;
  busy: boolean;
  busyWith: string | undefined;
  act: Act;
  acted: { id: string; outcome: Outcome } | undefined;
}) {
  return (
    <ul
      className={muted ? 'divide-y divide-sand-100 text-muted' : 'divide-y divide-sand-100'}
      aria-label={label}
    >
      {places.map((place) => (
        <PlaceRow key={place.id} place={place} busy={busy && busyWith === place.id} {...row} />
      ))}
    </ul>
  );
}

/**
 * One class date: its places (who is booked, who cancelled), what it needs to go ahead, and
 * cancelling it; a date nobody booked is one line.
 */
export function ClassCard({
  lesson,
  format,
  at,
  busy,
  act,
  acted,
  busyWith,
}: {
  lesson: DeskClass;
  format: StudioFormats;
  at: number;
  busy: boolean;
  act: Act;
  acted: { id: string; outcome: Outcome } | undefined;
  busyWith: string | undefined;
}) {
  const [asking, setAsking] = useState(false);
  const id = `${lesson.key}@${lesson.start}`;
  const title = `class-${lesson.key}-${Date.parse(lesson.start)}`;
  const begun = Date.parse(lesson.start) <= at;
  const live = lesson.places.filter((p) => p.status !== 'cancelled');
  const gone = lesson.places.filter((p) => p.status === 'cancelled');
  const cancel = async (note: string) =>
    act(id, async () => {
      const answer = await ask(
        desk.bookings['cancel-class'].$post({
          json: { key: lesson.key, start: lesson.start, note },
        }),
      );
      return `Cancelled ${lesson.title}, ${format.at(lesson.start)}. ${
        answer.told === 0
          ? 'Nobody had booked it; it is no longer offered.'
          : `${count(answer.told, 'person', 'people')} booked ${answer.told === 1 ? 'is' : 'are'} told, and everyone waiting.`
      }${answer.refunds > 0 ? ` ${count(answer.refunds, 'payment')} made online ${answer.refunds === 1 ? 'is' : 'are'} refunded.` : ''}`;
    });
  const canCancel = !lesson.cancelledAt && !begun;
  const rows = { lesson, format, begun, busy, busyWith, act, acted };
  const form = canCancel && asking && (
    <NoteForm
      id={`cancel-${title}`}
      who={live.length > 0 ? 'everyone booked' : 'anyone waiting'}
      words={
        live.length > 0
          ? 'Everyone booked and everyone on the waitlist gets the cancellation, your calendar too, and whoever paid online is refunded in full. The class is no longer offered.'
          : 'Nobody has booked it: it is simply no longer offered.'
      }
      submit="Cancel this class"
      busy={busy && busyWith === id}
      onSubmit={cancel}
      onClose={() => setAsking(false)}
    />
  );
  if (lesson.places.length === 0) {
    // Nobody booked: one line, so the days with people in them stand out.
    return (
      <article
        className="space-y-1 rounded-xl border border-sand-200 bg-white px-4 py-1"
        aria-labelledby={title}
      >
        <div className="flex flex-wrap items-center justify-between gap-x-3">
          <h4 id={title} className="py-2 font-sans text-sm">
            {format.span(lesson.start, lesson.end)} · {lesson.title}{' '}
            <span className="text-muted">
              {lesson.cancelledAt
                ? '(cancelled)'
                : `(nobody booked yet, ${lesson.capacity} places)`}
            </span>
          </h4>
          {canCancel && !asking && (
            <button
              type="button"
              className={`min-h-11 text-sm ${LINK}`}
              onClick={() => setAsking(true)}
              aria-describedby={title}
            >
              Cancel this class…
            </button>
          )}
        </div>
        <Status>{outcomeOf(acted, id)}</Status>
        {form}
      </article>
    );
  }
  return (
    <article className={`${CARD} space-y-2`} aria-labelledby={title}>
      <header className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h4 id={title} className="font-sans text-base font-semibold">
          {format.span(lesson.start, lesson.end)} · {lesson.title}
        </h4>
        <span className="flex flex-wrap gap-2">
          {lesson.cancelledAt ? (
            <Badge tone="warn">Cancelled</Badge>
          ) : (
            <Badge tone={lesson.booked >= lesson.capacity ? 'good' : 'warn'}>
              {lesson.booked} of {lesson.capacity} places booked
            </Badge>
          )}
          {lesson.single && <Badge tone="good">Single date</Badge>}
          {lesson.outsideTimetable && <Badge tone="warn">Not in your timetable now</Badge>}
        </span>
      </header>
      {!lesson.cancelledAt && lesson.booked > 0 && lesson.booked < lesson.minimum && !begun && (
        <p className="text-sm text-muted">
          It needs {lesson.minimum} booked to go ahead; below that it is cancelled when its booking
          closes.
        </p>
      )}
      {lesson.outsideTimetable && (
        <p className="text-sm text-ink">
          Your timetable no longer has this class at this time: it was booked before it changed. It
          stays booked; cancel it if you cannot teach it.
        </p>
      )}
      {lesson.cancelledAt && (
        <p className="text-sm text-ink">
          Cancelled {format.at(lesson.cancelledAt)}
          {lesson.cancelReason === 'minimum'
            ? `: fewer than ${lesson.minimum} had booked when its booking closed`
            : ''}
          . Nobody is booked for it now; everyone who was booked or waiting was told.
        </p>
      )}
      {live.length > 0 && (
        <PlaceList places={live} label={`Who is booked for ${lesson.title}`} {...rows} />
      )}
      {gone.length > 0 && (
        <section
          className="space-y-1 border-t border-sand-100 pt-2"
          aria-labelledby={`${title}-gone`}
        >
          <h5 id={`${title}-gone`} className="font-sans text-sm font-semibold text-muted">
            {lesson.cancelledAt ? 'Who had booked' : 'Places cancelled'}
          </h5>
          <PlaceList places={gone} muted {...rows} />
        </section>
      )}
      <Status>{outcomeOf(acted, id)}</Status>
      {canCancel && !asking && (
        <button
          type="button"
          className={BUTTON_QUIET}
          onClick={() => setAsking(true)}
          aria-describedby={title}
        >
          Cancel this class…
        </button>
      )}
      {form}
    </article>
  );
}
