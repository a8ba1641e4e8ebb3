import { useState, type SubmitEvent } from 'react';
import {
  NOTE_MAX,
  type DeskBooking,
  type DeskClass,
  type DeskPlace,
  type PaymentView,
} from '../../shared/desk-api';
import { dollars } from '../../shared/money';
import { AddClassDate } from './AddClassDate';
import { ask, desk, DeskError } from './api';
import { Contact } from './Contact';
import { count, studioFormats, type StudioFormats } from './format';
import { useLoad, type Outcome } from './useLoad';
import {
  Badge,
  BUTTON_DANGER,
  BUTTON_QUIET,
  CARD,
  Failed,
  INPUT,
  LINK,
  Loading,
  Notice,
  ScreenTitle,
  Status,
  StatusBadge,
} from './ui';

/** What a button on the screen does, then its outcome in words; false when it was refused. */
type Act = (id: string, work: () => Promise<string>) => Promise<boolean>;

function paymentWords(payment: PaymentView, cancelled: boolean): [string, 'good' | 'warn' | 'bad'] {
  const amount = dollars(payment.amountCents);
  switch (payment.state) {
    case 'due':
      return cancelled ? ['Nothing due', 'warn'] : [`Due at the studio: ${amount}`, 'bad'];
    case 'paying':
      return [`Paying online now: ${amount}`, 'warn'];
    case 'paid-studio':
      return [`Paid at the studio: ${amount}`, cancelled ? 'warn' : 'good'];
    case 'paid-online':
      return [
        `Paid online: ${amount}${payment.refundedCents > 0 ? `, ${dollars(payment.refundedCents)} refunded` : ''}`,
        'good',
      ];
    case 'refunded':
      return [
        `Refunded: ${amount}${payment.refundPendingCents > 0 ? ' (Stripe is confirming it)' : ''}`,
        'warn',
      ];
  }
}

function PaymentBadge({ payment, cancelled }: { payment: PaymentView; cancelled: boolean }) {
  const [words, tone] = paymentWords(payment, cancelled);
  return <Badge tone={tone}>{words}</Badge>;
}

function NoteForm({
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

function RefundForm({
  id,
  payment,
  busy,
  onSubmit,
  onClose,
}: {
  id: string;
  payment: PaymentView;
  busy: boolean;
  onSubmit: (amount: string, request: string) => Promise<DeskError | undefined>;
  onClose: () => void;
}) {
  // One press: the same request sent again (a double tap, a retry) refunds once.
  const [request] = useState(() => crypto.randomUUID());
  const [error, setError] = useState<string>();
  const send = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const amount = String(new FormData(event.currentTarget).get('amount') ?? '');
    const refused = await onSubmit(amount, request);
    if (!refused) onClose();
    else setError(refused.fieldErrors.amount);
  };
  return (
    <form onSubmit={(event) => void send(event)} className="w-full space-y-3 pt-1" noValidate>
      <div>
        <label htmlFor={`${id}-amount`} className="mb-1 block text-sm font-semibold">
          Amount to refund, in dollars
        </label>
        <input
          id={`${id}-amount`}
          name="amount"
          inputMode="decimal"
          placeholder={(payment.refundableCents / 100).toFixed(2).replace(/\.00$/, '')}
          className={`${INPUT} max-w-40`}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-amount-hint`}
        />
        <p id={`${id}-amount-hint`} className="mt-1 text-sm text-muted">
          {error ?? `Empty: all that is left, ${dollars(payment.refundableCents)}.`} The money goes
          back to the card it was paid with; Stripe keeps its fee. They get an e-mail saying how
          much.
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={BUTTON_DANGER} disabled={busy}>
          Refund
        </button>
        <button type="button" className={BUTTON_QUIET} onClick={onClose}>
          Not now
        </button>
      </div>
    </form>
  );
}

/** The buttons of one session or class place: paid, no-show, cancel, refund. */
function Actions({
  kind,
  id,
  who,
  what,
  payment,
  cancelled,
  begun,
  noShow,
  busy,
  act,
  titleId,
}: {
  kind: 'consultation' | 'session' | 'place';
  id: string;
  who: string;
  what: string;
  payment: PaymentView | null;
  cancelled: boolean;
  begun: boolean;
  noShow: boolean;
  busy: boolean;
  act: Act;
  titleId: string;
}) {
  const [open, setOpen] = useState<'cancel' | 'refund'>();
  const payable = kind !== 'consultation';
  const close = () => setOpen(undefined);
  const paid = async () =>
    act(id, async () => {
      if (kind === 'consultation') return '';
      await ask(desk.bookings.paid.$post({ json: { kind, id } }));
      return `Marked paid at the studio: ${who}, ${what}.`;
    });
  const absent = async () =>
    act(id, async () => {
      if (kind === 'consultation') return '';
      await ask(desk.bookings['no-show'].$post({ json: { kind, id, noShow: !noShow } }));
      return noShow ? `${who} is no longer marked a no-show.` : `${who} is marked a no-show.`;
    });
  const cancel = async (note: string) =>
    act(id, async () => {
      const answer = await ask(desk.bookings.cancel.$post({ json: { kind, id, note } }));
      return `Cancelled: ${who}, ${what}. ${
        kind === 'place'
          ? 'They get the cancellation, and the place is offered to the first person waiting, if anyone is.'
          : 'They get the cancellation, and your calendar too.'
      }${answer.refundedCents > 0 ? ` ${dollars(answer.refundedCents)} is refunded to them.` : ''}`;
    });
  const refund = async (amount: string, request: string) => {
    let refused: DeskError | undefined;
    const done = await act(id, async () => {
      if (kind === 'consultation') return '';
      try {
        const answer = await ask(
          desk.bookings.refund.$post({ json: { kind, id, amount, request } }),
        );
        return answer.confirmed
          ? `Refunded ${dollars(answer.refundedCents)} to ${who}. They get an e-mail saying so.`
          : `Refund of ${dollars(answer.refundedCents)} to ${who} asked of Stripe: it shows as refunded now, and Stripe confirms it within minutes. They get an e-mail saying so.`;
      } catch (error) {
        if (error instanceof DeskError) refused = error;
        throw error;
      }
    });
    return done ? undefined : (refused ?? new DeskError(0, ''));
  };
  const canPay = payable && !cancelled && payment?.state === 'due';
  const canRefund = payable && (payment?.refundableCents ?? 0) > 0;
  const canNoShow = payable && !cancelled && begun;
  const canCancel = !cancelled && !begun;
  if (!canPay && !canRefund && !canNoShow && !canCancel) return null;
  return (
    <div className="flex flex-wrap gap-2 pt-1">
      {open === undefined && (
        <>
          {canPay && (
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={busy}
              onClick={() => void paid()}
              aria-describedby={titleId}
            >
              Paid at the studio
            </button>
          )}
          {canNoShow && (
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={busy}
              onClick={() => void absent()}
              aria-describedby={titleId}
            >
              {noShow ? 'They came after all' : 'No-show'}
            </button>
          )}
          {canRefund && (
            <button
              type="button"
              className={BUTTON_QUIET}
              onClick={() => setOpen('refund')}
              aria-describedby={titleId}
            >
              Refund…
            </button>
          )}
          {canCancel && (
            <button
              type="button"
              className={BUTTON_QUIET}
              onClick={() => setOpen('cancel')}
              aria-describedby={titleId}
            >
              Cancel…
            </button>
          )}
        </>
      )}
      {open === 'cancel' && (
        <NoteForm
          id={`cancel-${id}`}
          who={who}
          words={`They get it with the cancellation, which also takes it out of their calendar${kind === 'place' ? '' : ' and yours'}.${
            payment && payment.refundableCents > 0
              ? ` What they paid online, ${dollars(payment.refundableCents)}, is refunded to them.`
              : ''
          }`}
          submit={kind === 'place' ? 'Cancel their place' : `Cancel this ${kind}`}
          busy={busy}
          onSubmit={cancel}
          onClose={close}
        />
      )}
      {open === 'refund' && payment && (
        <RefundForm
          id={`refund-${id}`}
          payment={payment}
          busy={busy}
          onSubmit={refund}
          onClose={close}
        />
      )}
    </div>
  );
}

function outcomeOf(acted: { id: string; outcome: Outcome } | undefined, id: string) {
  return acted?.id === id ? <Notice tone={acted.outcome.tone}>{acted.outcome.words}</Notice> : null;
}

function BookingCard({
  booking,
  format,
  at,
  busy,
  act,
  acted,
}: {
  booking: DeskBooking;
  format: StudioFormats;
  at: number;
  busy: boolean;
  act: Act;
  acted: { id: string; outcome: Outcome } | undefined;
}) {
  const title = `booking-${booking.id}`;
  const cancelled = booking.cancelledAt !== null;
  return (
    <article className={`${CARD} space-y-2`} aria-labelledby={title}>
      <header className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h4 id={title} className="font-sans text-base font-semibold">
          {format.span(booking.start, booking.end)} · {booking.title}
        </h4>
        <span className="flex flex-wrap gap-2">
          {cancelled && <Badge tone="warn">Cancelled</Badge>}
          {booking.noShow && <Badge tone="bad">No-show</Badge>}
          {booking.outsideHours && <Badge tone="warn">Outside your hours</Badge>}
        </span>
      </header>
      <Contact person={booking.person} />
      {booking.address && (
        <p className="text-sm break-words">At their address: {booking.address}</p>
      )}
      <p className="flex flex-wrap gap-2">
        <StatusBadge status={booking.person.waiverStatus} />
        {booking.payment ? (
          <PaymentBadge payment={booking.payment} cancelled={cancelled} />
        ) : (
          <Badge tone="good">Free</Badge>
        )}
      </p>
      {booking.outsideHours && (
        <p className="text-sm text-ink">
          Your weekly hours no longer include this time: it was booked before they changed. It stays
          booked; cancel it if you cannot take it.
        </p>
      )}
      {cancelled && (
        <p className="text-sm text-muted">
          Cancelled {format.at(booking.cancelledAt!)}{' '}
          {booking.cancelledBy === 'visitor'
            ? 'by them'
            : `by ${booking.cancelledBy ?? 'the studio'}`}
        </p>
      )}
      <Status>{outcomeOf(acted, booking.id)}</Status>
      <Actions
        kind={booking.kind}
        id={booking.id}
        who={booking.person.name}
        what={`${booking.title}, ${format.at(booking.start)}`}
        payment={booking.payment}
        cancelled={cancelled}
        begun={Date.parse(booking.start) <= at}
        noShow={booking.noShow}
        busy={busy}
        act={act}
        titleId={title}
      />
    </article>
  );
}

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
      {place.status !== 'offered' && !lesson.cancelledAt && (
        <Actions
          kind="place"
          id={place.id}
          who={place.person.name}
          what={`${lesson.title}, ${format.at(lesson.start)}`}
          payment={place.payment}
          cancelled={cancelled}
          begun={begun}
          noShow={place.noShow}
          busy={busy}
          act={act}
          titleId={title}
        />
      )}
      {lesson.cancelledAt && place.payment.refundableCents > 0 && (
        <Actions
          kind="place"
          id={place.id}
          who={place.person.name}
          what={`${lesson.title}, ${format.at(lesson.start)}`}
          payment={place.payment}
          cancelled
          begun
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

function ClassCard({
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
          It needs {lesson.minimum} booked to go ahead; below that it is cancelled at its cutoff.
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
            ? `: fewer than ${lesson.minimum} had booked at its cutoff`
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

type Item =
  | { type: 'booking'; start: string; booking: DeskBooking }
  | { type: 'class'; start: string; lesson: DeskClass };

/** The Bookings screen: today and to come, each person's waiver and payment, and her actions. */
export default function Bookings() {
  const overview = useLoad('bookings', (options) => desk.bookings.$get({}, options));
  const [busy, setBusy] = useState<string>();
  const [acted, setActed] = useState<{ id: string; outcome: Outcome }>();
  const format = studioFormats(overview.data?.timeZone ?? 'UTC');
  const [at] = useState(() => Date.now());

  const act: Act = async (id, work) => {
    setBusy(id);
    setActed(undefined);
    try {
      const words = await work();
      setActed({ id, outcome: { tone: 'good', words } });
      overview.reload();
      return true;
    } catch (error) {
      setActed({
        id,
        outcome: { tone: 'bad', words: error instanceof DeskError ? error.message : String(error) },
      });
      return false;
    } finally {
      setBusy(undefined);
    }
  };

  const data = overview.data;
  const items: Item[] = data
    ? [
        ...data.bookings.map((booking): Item => ({
          type: 'booking',
          start: booking.start,
          booking,
        })),
        ...data.classes.map((lesson): Item => ({ type: 'class', start: lesson.start, lesson })),
      ].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))
    : [];
  const days = new Map<string, Item[]>();
  for (const item of items) {
    const day = format.day(item.start);
    days.set(day, [...(days.get(day) ?? []), item]);
  }
  const today = format.day(new Date(at).toISOString());
  const outside =
    (data?.bookings.filter((b) => b.outsideHours).length ?? 0) +
    (data?.classes.filter((c) => c.outsideTimetable).length ?? 0);

  return (
    <div className="space-y-6">
      <ScreenTitle>Bookings</ScreenTitle>
      {overview.loading && !data && <Loading what="the bookings" />}
      {overview.error && <Failed error={overview.error} retry={overview.reload} />}
      {outside > 0 && (
        <Notice tone="bad">
          {count(outside, 'booking')} to come {outside === 1 ? 'is' : 'are'} outside your hours or
          timetable now: booked before they changed, {outside === 1 ? 'it stays' : 'they stay'}{' '}
          booked. Each is marked below: cancel any you cannot take.
        </Notice>
      )}
      {data && <AddClassDate overview={data} format={format} onAdded={overview.reload} />}
      {data && items.length === 0 && <p className="text-muted">Nothing is booked from today on.</p>}
      {[...days.entries()].map(([day, list]) => (
        <section key={day} className="space-y-3" aria-labelledby={`day-${day}`}>
          <h3 id={`day-${day}`} className="font-serif text-xl font-semibold">
            {day === today ? `Today, ${day}` : day}
          </h3>
          <ul className="space-y-3">
            {list.map((item) =>
              item.type === 'booking' ? (
                <li key={`b-${item.booking.id}`}>
                  <BookingCard
                    booking={item.booking}
                    format={format}
                    at={at}
                    busy={busy === item.booking.id}
                    act={act}
                    acted={acted}
                  />
                </li>
              ) : (
                <li key={`c-${item.lesson.key}-${item.lesson.start}`}>
                  <ClassCard
                    lesson={item.lesson}
                    format={format}
                    at={at}
                    busy={busy !== undefined}
                    busyWith={busy}
                    act={act}
                    acted={acted}
                  />
                </li>
              ),
            )}
          </ul>
        </section>
      ))}
      {data && (
        <p className="text-sm text-muted">
          Times are the studio's: {format.zone}. Classes nobody has booked yet are shown four weeks
          ahead.
        </p>
      )}
    </div>
  );
}
