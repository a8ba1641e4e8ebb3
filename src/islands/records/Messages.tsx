import { useState } from 'react';
import { SPAM_WORDS, type MessageRow } from '../../lib/records-api';
import { call, DeskError } from './api';
import { count, when } from './format';
import { href, type Route } from './route';
import { usePages } from './useLoad';
import { listQuery } from './Waivers';
import {
  Badge,
  BUTTON,
  BUTTON_QUIET,
  CARD,
  DateRange,
  Failed,
  Field,
  formValues,
  INPUT,
  LINK,
  Loading,
  MailBadge,
  Notice,
  ScreenTitle,
  Status,
} from './ui';

const SHOW = [
  ['all', 'All messages'],
  ['inbox', 'Inbox'],
  ['spam', 'Taken for spam'],
] as const;

type Outcome = { id: string; tone: 'good' | 'bad'; words: string };

function Message({
  message,
  onNotSpam,
  busy,
}: {
  message: MessageRow;
  onNotSpam: (message: MessageRow) => void;
  busy: boolean;
}) {
  const title = `message-${message.id}`;
  return (
    <article className={`${CARD} space-y-2`} aria-labelledby={title}>
      <header className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h3 id={title} className="font-sans text-base font-semibold">
          {message.name}
        </h3>
        <span className="text-sm text-muted">{when(message.createdAt)}</span>
      </header>
      <p className="text-sm break-words">
        <a href={`mailto:${message.email}`} className={LINK}>
          {message.email}
        </a>
        {message.service && <span className="text-muted"> · {message.service}</span>}
      </p>
      <p className="break-words whitespace-pre-wrap text-ink">{message.message}</p>
      <div className="flex flex-wrap items-center gap-3 pt-1">
        {message.spamReason ? (
          <>
            <Badge tone="spam">Spam: {SPAM_WORDS[message.spamReason]}</Badge>
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={busy}
              onClick={() => onNotSpam(message)}
              aria-describedby={title}
            >
              Not spam
            </button>
          </>
        ) : (
          message.mail && <MailBadge state={message.mail} />
        )}
      </div>
    </article>
  );
}

export default function Messages({ route }: { route: Route }) {
  const q = route.query.get('q') ?? '';
  const from = route.query.get('from') ?? '';
  const to = route.query.get('to') ?? '';
  const show = route.query.get('show') ?? 'all';
  const list = usePages<MessageRow>(`/messages?${listQuery(route, ['q', 'from', 'to', 'show'])}`);
  const [changed, setChanged] = useState<Record<string, MessageRow>>({});
  const [busy, setBusy] = useState<string>();
  const [outcome, setOutcome] = useState<Outcome>();
  const searched = Boolean(q || from || to || show !== 'all');
  const [cleared, setCleared] = useState(0);

  const notSpam = async (message: MessageRow) => {
    setBusy(message.id);
    setOutcome(undefined);
    try {
      const answer = await call<{ sent: boolean; queued: boolean }>(
        `/messages/${message.id}/not-spam`,
        { body: {} },
      );
      setChanged((current) => ({
        ...current,
        [message.id]: { ...message, spamReason: null, mail: answer.sent ? 'sent' : 'owed' },
      }));
      setOutcome({
        id: message.id,
        tone: 'good',
        words: answer.sent
          ? `The message from ${message.name} is in the inbox and was e-mailed to the studio.`
          : `The message from ${message.name} is in the inbox; its e-mail will be tried again shortly.`,
      });
    } catch (error) {
      setOutcome({
        id: message.id,
        tone: 'bad',
        words: error instanceof DeskError ? error.message : String(error),
      });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div className="space-y-6">
      <ScreenTitle>Messages</ScreenTitle>
      <form
        role="search"
        aria-label="Find messages"
        key={cleared}
        className={`${CARD} grid gap-4 sm:grid-cols-2 lg:grid-cols-[2fr_minmax(11rem,1fr)_1fr_1fr] lg:items-end`}
        onSubmit={(event) => {
          event.preventDefault();
          const values = formValues(event.currentTarget);
          window.location.hash = href('messages', {
            ...values,
            show: values.show === 'all' ? undefined : values.show,
          });
        }}
      >
        <Field
          label="Name, e-mail or words"
          name="q"
          type="search"
          defaultValue={q}
          className="sm:col-span-2 lg:col-span-1"
        />
        <div>
          <label htmlFor="messages-show" className="mb-1 block text-sm font-semibold">
            Show
          </label>
          <select id="messages-show" name="show" defaultValue={show} className={INPUT}>
            {SHOW.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <DateRange from={from} to={to} errors={list.error?.fieldErrors} />
        <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-4">
          <button type="submit" className={BUTTON}>
            Search
          </button>
          {searched && (
            <a
              href={href('messages')}
              className={BUTTON_QUIET}
              onClick={() => setCleared((n) => n + 1)}
            >
              Clear
            </a>
          )}
        </div>
      </form>

      <Status>
        {outcome && <Notice tone={outcome.tone}>{outcome.words}</Notice>}
        {list.data && (
          <p className="text-sm text-muted">
            {list.items.length === 0
              ? searched
                ? 'No message matches this search.'
                : 'No messages yet.'
              : `${count(list.items.length, 'message')} shown, newest first${list.next ? '; older ones below' : ''}.`}
          </p>
        )}
      </Status>
      {list.loading && <Loading what="messages" />}
      {list.error && !list.error.fieldErrors.from && !list.error.fieldErrors.to && (
        <Failed error={list.error} retry={list.reload} />
      )}
      {list.data && (
        <>
          <ul className="space-y-3">
            {list.items.map((message) => (
              <li key={message.id}>
                <Message
                  message={changed[message.id] ?? message}
                  busy={busy === message.id}
                  onNotSpam={(m) => void notSpam(m)}
                />
              </li>
            ))}
          </ul>
          {list.next && (
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={list.loadingMore}
              onClick={() => void list.more()}
            >
              {list.loadingMore ? 'Loading…' : 'Show older messages'}
            </button>
          )}
          {list.moreError && <Failed error={list.moreError} />}
        </>
      )}
    </div>
  );
}
