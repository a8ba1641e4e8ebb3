import { useState, type SubmitEvent } from 'react';
import {
  NOTE_MAX,
  SPAM_WORDS,
  type BookingRow,
  type BookingsPage,
  type BookingsWhen,
  type ConsultationsCalendar,
} from '../../shared/desk-api';
import { ask, desk, DeskError } from './api';
import { Contact } from './Contact';
import { count, studioFormats, type StudioFormats } from './format';
import { href, type Route } from './route';
import { usePages, useLoad, useRowAction, type Loaded, type Outcome } from './useLoad';
import {
  Badge,
  BUTTON,
  BUTTON_DANGER,
  BUTTON_QUIET,
  CARD,
  Failed,
  Field,
  FormCard,
  INPUT,
  Loading,
  Notice,
  PagedList,
  ScreenTitle,
  Status,
  StatusBadge,
  useFormPost,
} from './ui';

const WHEN: [BookingsWhen, string][] = [
  ['upcoming', 'Upcoming'],
  ['past', 'Past'],
];

function Booking({
  booking,
  format,
  upcoming,
  busy,
  onCancel,
}: {
  booking: BookingRow;
  format: StudioFormats;
  upcoming: boolean;
  busy: boolean;
  onCancel: (booking: BookingRow, note: string) => Promise<boolean>;
}) {
  const [asking, setAsking] = useState(false);
  const title = `booking-${booking.id}`;
  const live = !booking.cancelledAt && !booking.spamReason;
  const cancel = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const note = String(new FormData(event.currentTarget).get('note') ?? '');
    if (await onCancel(booking, note)) setAsking(false);
  };
  return (
    <article className={`${CARD} space-y-2`} aria-labelledby={title}>
      <header className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h3 id={title} className="font-sans text-base font-semibold">
          {format.span(booking.start, booking.end)}
        </h3>
        <span className="flex flex-wrap gap-2">
          {booking.cancelledAt && <Badge tone="warn">Cancelled</Badge>}
          {booking.outsideHours && <Badge tone="warn">Outside your hours</Badge>}
          {booking.spamReason && <Badge tone="spam">Spam: {SPAM_WORDS[booking.spamReason]}</Badge>}
          <StatusBadge status={booking.waiverStatus} />
        </span>
      </header>
      <Contact person={booking} />
      {booking.outsideHours && (
        <p className="text-sm text-ink">
          Your weekly hours no longer include this time: it was booked before they changed. It stays
          booked; cancel it if you cannot take it.
        </p>
      )}
      {booking.topic && <p className="break-words whitespace-pre-wrap text-ink">{booking.topic}</p>}
      <p className="text-sm text-muted">Booked {format.at(booking.createdAt)}</p>
      {booking.cancelledAt && (
        <p className="text-sm text-muted">
          Cancelled {format.at(booking.cancelledAt)}{' '}
          {booking.cancelledBy === 'visitor' ? 'by the visitor' : `by ${booking.cancelledBy}`}
          {booking.cancelNote && (
            <span className="block whitespace-pre-wrap">Note: {booking.cancelNote}</span>
          )}
        </p>
      )}
      {upcoming && live && !asking && (
        <div className="pt-1">
          <button
            type="button"
            className={BUTTON_QUIET}
            onClick={() => setAsking(true)}
            aria-describedby={title}
          >
            Cancel…
          </button>
        </div>
      )}
      {upcoming && live && asking && (
        <form onSubmit={(event) => void cancel(event)} className="space-y-3 pt-1" noValidate>
          <div>
            <label htmlFor={`${title}-note`} className="mb-1 block text-sm font-semibold">
              A note to {booking.name} (optional)
            </label>
            <textarea
              id={`${title}-note`}
              name="note"
              rows={3}
              maxLength={NOTE_MAX}
              className={INPUT}
            />
            <p className="mt-1 text-sm text-muted">
              They get it with the cancellation, which also takes the consultation out of their
              calendar.
            </p>
          </div>
          <div className="flex flex-wrap gap-2">
            <button type="submit" className={BUTTON_DANGER} disabled={busy}>
              Cancel this consultation
            </button>
            <button type="button" className={BUTTON_QUIET} onClick={() => setAsking(false)}>
              Keep it
            </button>
          </div>
        </form>
      )}
    </article>
  );
}

function Bookings({ when, format }: { when: BookingsWhen; format: StudioFormats }) {
  const list = usePages(when, (after, options) =>
    desk.consultations.$get({ query: { when, after } }, options),
  );
  const [changed, setChanged] = useState<Record<string, BookingRow>>({});
  const action = useRowAction();
  const upcoming = when === 'upcoming';

  const cancel = async (booking: BookingRow, note: string) => {
    let done = false;
    await action.run(booking.id, async (): Promise<Outcome> => {
      await ask(
        desk.consultations[':id'].cancel.$post({ param: { id: booking.id }, json: { note } }),
      );
      done = true;
      setChanged((current) => ({
        ...current,
        [booking.id]: {
          ...booking,
          cancelledAt: new Date().toISOString(),
          cancelledBy: 'you',
          cancelNote: note || null,
        },
      }));
      return {
        tone: 'good',
        words: `Cancelled the consultation with ${booking.name}. They and your inbox get the cancellation.`,
      };
    });
    return done;
  };

  return (
    <section aria-labelledby="bookings-title" className="space-y-4">
      <h3 id="bookings-title" className="sr-only">
        {upcoming ? 'Upcoming consultations' : 'Past consultations'}
      </h3>
      <Status>
        {action.outcome && <Notice tone={action.outcome.tone}>{action.outcome.words}</Notice>}
        {list.data && (
          <p className="text-sm text-muted">
            {list.items.length === 0
              ? upcoming
                ? 'No consultation is booked yet.'
                : 'No consultation has taken place yet.'
              : `${count(list.items.length, 'consultation')} shown, ${upcoming ? 'soonest' : 'latest'} first.`}
          </p>
        )}
      </Status>
      {upcoming &&
        ((list.data as BookingsPage | undefined)?.crowded ?? []).map((network) => (
          <Notice key={network.bookings[0]?.id} tone="info">
            <p className="font-semibold">
              {network.bookings.length} consultations to come were booked from one network
            </p>
            <p className="mt-1">
              One home, office or phone connection booked all of these, perhaps under different
              names or addresses: it may be one person holding several times. If they look wrong,
              cancel them below; the visitor is told.
            </p>
            <ul className="mt-2 list-disc pl-5">
              {network.bookings.map((booking) => (
                <li key={booking.id}>
                  {booking.name}, {format.at(booking.start)}
                </li>
              ))}
            </ul>
          </Notice>
        ))}
      {list.loading && <Loading what="consultations" />}
      {list.error && <Failed error={list.error} retry={list.reload} />}
      <PagedList list={list} className="space-y-3" what="consultations">
        {(booking) => (
          <li key={booking.id}>
            <Booking
              booking={changed[booking.id] ?? booking}
              format={format}
              upcoming={upcoming}
              busy={action.busy === booking.id}
              onCancel={cancel}
            />
          </li>
        )}
      </PagedList>
    </section>
  );
}

function BlockTime({ onBlocked }: { onBlocked: () => void }) {
  const { busy, error, done, round, submit } = useFormPost(async (values) => {
    const answer = await ask(
      desk.consultations.blocks.$post({
        json: {
          from: values.from ?? '',
          to: values.to ?? values.from ?? '',
          fromTime: values.fromTime,
          toTime: values.toTime,
          note: values.note ?? '',
        },
      }),
    );
    return answer.bookingsInside > 0
      ? `Blocked. ${count(answer.bookingsInside, 'consultation')} already booked inside it ${answer.bookingsInside === 1 ? 'stays' : 'stay'}: cancel ${answer.bookingsInside === 1 ? 'it' : 'them'} above if you cannot take ${answer.bookingsInside === 1 ? 'it' : 'them'}.`
      : 'Blocked: no consultation can be booked in that time.';
  }, onBlocked);
  const errors = error?.fieldErrors ?? {};
  return (
    <FormCard key={round} id="block-title" title="Block time" onSubmit={submit}>
      <p className="text-sm text-muted">
        A holiday, a day off, an afternoon: no consultation is offered inside it. Leave the times
        empty to block whole days.
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="First day" name="from" type="date" required error={errors.from} />
        <Field
          label="Last day"
          name="to"
          type="date"
          error={errors.to}
          hint="Empty: the first day only."
        />
        <Field label="From (optional)" name="fromTime" type="time" error={errors.fromTime} />
        <Field label="Until (optional)" name="toTime" type="time" error={errors.toTime} />
        <Field
          label="Note for yourself (optional)"
          name="note"
          maxLength={NOTE_MAX}
          className="sm:col-span-2"
          error={errors.note}
        />
      </div>
      <Status>
        {done && <Notice tone="good">{done}</Notice>}
        {error && Object.keys(errors).length === 0 && <Notice tone="bad">{error.message}</Notice>}
      </Status>
      <button type="submit" className={BUTTON} disabled={busy}>
        Block this time
      </button>
    </FormCard>
  );
}

function Calendar({
  format,
  calendar,
}: {
  format: StudioFormats;
  calendar: Loaded<ConsultationsCalendar>;
}) {
  const unblock = useRowAction();
  const [feedUrl, setFeedUrl] = useState<string>();
  const [feedError, setFeedError] = useState<DeskError>();
  const [copied, setCopied] = useState(false);

  const newFeed = async () => {
    setFeedError(undefined);
    setCopied(false);
    try {
      const answer = await ask(desk.consultations.feed.$post({ json: {} }));
      setFeedUrl(answer.url);
      calendar.reload();
    } catch (caught) {
      setFeedError(caught instanceof DeskError ? caught : new DeskError(0, String(caught)));
    }
  };

  if (!calendar.data) return null;
  const { busy, feed, blocks } = calendar.data;

  return (
    <>
      <BlockTime onBlocked={calendar.reload} />

      <section className={`${CARD} space-y-3`} aria-labelledby="blocks-title">
        <h3 id="blocks-title" className="font-serif text-xl font-semibold">
          Blocked time
        </h3>
        <Status>
          {unblock.outcome && <Notice tone={unblock.outcome.tone}>{unblock.outcome.words}</Notice>}
        </Status>
        {blocks.length === 0 ? (
          <p className="text-muted">Nothing is blocked.</p>
        ) : (
          <ul className="divide-y divide-sand-100">
            {blocks.map((block) => (
              <li key={block.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
                <span className="min-w-0 break-words">
                  {format.span(block.start, block.end)}
                  {block.note && <span className="block text-sm text-muted">{block.note}</span>}
                </span>
                <button
                  type="button"
                  className={BUTTON_QUIET}
                  disabled={unblock.busy === block.id}
                  onClick={() =>
                    void unblock.run(block.id, async () => {
                      await ask(
                        desk.consultations.blocks[':id'].remove.$post({
                          param: { id: block.id },
                          json: {},
                        }),
                      );
                      calendar.reload();
                      return { tone: 'good', words: 'Removed: those times can be booked again.' };
                    })
                  }
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className={`${CARD} space-y-3`} aria-labelledby="busy-title">
        <h3 id="busy-title" className="font-serif text-xl font-semibold">
          Your own calendar
        </h3>
        {!busy.configured ? (
          <p className="text-muted">
            Not connected: only your weekly hours and the blocked time decide what is free. To have
            your own calendar's events block consultations, give whoever runs the site its secret
            iCal address (the guide says where to find it).
          </p>
        ) : (
          <>
            <p>
              Connected to <strong className="break-all">{busy.hint}</strong>: every event in it
              blocks the consultations it overlaps.
            </p>
            {busy.fetchedAt ? (
              <p className="text-muted">
                Last read {format.at(busy.fetchedAt)}: {count(busy.events ?? 0, 'event')}
                {busy.unreadable ? `, ${busy.unreadable} of them could not be read` : ''}.
              </p>
            ) : (
              <p className="text-muted">Not read yet.</p>
            )}
            {busy.error && (
              <Notice tone="bad">
                The last attempt{busy.checkedAt ? ` (${format.at(busy.checkedAt)})` : ''} failed:{' '}
                {busy.error}{' '}
                {busy.fetchedAt
                  ? `The site is using the copy read ${format.at(busy.fetchedAt)}.`
                  : 'Until it can be read, only your weekly hours and the blocked time count.'}
              </Notice>
            )}
          </>
        )}
      </section>

      <section className={`${CARD} space-y-3`} aria-labelledby="feed-title">
        <h3 id="feed-title" className="font-serif text-xl font-semibold">
          Your bookings in your calendar
        </h3>
        <p className="text-muted">
          Subscribe to this address in your phone's calendar to see every consultation, session and
          class with a place booked there. It is secret: anyone who has it sees the bookings. It is
          shown once; making a new one stops the old one.
        </p>
        {feed.exists && feed.createdAt && !feedUrl && (
          <p className="text-sm text-muted">
            The current address was made {format.day(feed.createdAt)}.
          </p>
        )}
        {feedUrl && (
          <div className="space-y-2">
            <label htmlFor="feed-url" className="block text-sm font-semibold">
              Your calendar's address (copy it now)
            </label>
            <input
              id="feed-url"
              readOnly
              value={feedUrl}
              className={INPUT}
              onFocus={(e) => e.currentTarget.select()}
            />
            <button
              type="button"
              className={BUTTON_QUIET}
              onClick={() =>
                void navigator.clipboard?.writeText(feedUrl).then(() => setCopied(true))
              }
            >
              {copied ? 'Copied' : 'Copy the address'}
            </button>
            <p className="text-sm text-muted">
              Google Calendar: Other calendars, +, From URL. iPhone: Settings, Calendar, Accounts,
              Add Account, Other, Add Subscribed Calendar. Outlook: Add calendar, Subscribe from
              web.
            </p>
          </div>
        )}
        {feedError && <Notice tone="bad">{feedError.message}</Notice>}
        <button
          type="button"
          className={feed.exists ? BUTTON_QUIET : BUTTON}
          onClick={() => void newFeed()}
        >
          {feed.exists ? 'Make a new address' : 'Make the address'}
        </button>
      </section>
    </>
  );
}

/** The Consultations screen: who is coming, cancelling, blocking time, the calendars. */
export default function Consultations({ route }: { route: Route }) {
  const when: BookingsWhen = route.query.get('when') === 'past' ? 'past' : 'upcoming';
  // The calendar's answer names the studio's zone, which every time here is shown in.
  const calendar = useLoad('calendar', (options) => desk.consultations.calendar.$get({}, options));
  const format = studioFormats(calendar.data?.timeZone ?? 'UTC');
  return (
    <div className="space-y-6">
      <ScreenTitle>Consultations</ScreenTitle>
      <p className="text-muted">
        Times are the studio's: {format.zone}. A consultation booked on the site is here at once;
        the visitor and your inbox got its invite.
      </p>
      {(calendar.data?.outsideHours ?? 0) > 0 && (
        <Notice tone="bad">
          {count(calendar.data!.outsideHours, 'consultation')} still to come{' '}
          {calendar.data!.outsideHours === 1 ? 'is' : 'are'} outside your weekly hours now: booked
          before your hours changed, {calendar.data!.outsideHours === 1 ? 'it stays' : 'they stay'}{' '}
          booked. Each is marked “Outside your hours” under Upcoming: cancel any you cannot take.
        </Notice>
      )}
      <nav aria-label="Which consultations">
        <ul className="flex flex-wrap gap-2">
          {WHEN.map(([value, label]) => (
            <li key={value}>
              <a
                href={href('consultations', { when: value === 'upcoming' ? undefined : value })}
                aria-current={when === value ? 'page' : undefined}
                className={`inline-flex min-h-11 items-center rounded-full border px-4 text-sm font-semibold ${
                  when === value
                    ? 'border-sage-700 bg-sage-700 text-white'
                    : 'border-sand-200 bg-white text-sage-800 hover:border-sage-600'
                }`}
              >
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {calendar.loading && <Loading what="consultations" />}
      {calendar.error && <Failed error={calendar.error} retry={calendar.reload} />}
      {calendar.data && <Bookings key={when} when={when} format={format} />}
      <Calendar format={format} calendar={calendar} />
    </div>
  );
}
