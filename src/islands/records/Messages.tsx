import { useState } from 'react';
import { SPAM_WORDS, type MessageRow } from '../../shared/desk-api';
import { ask, desk } from './api';
import { when } from './format';
import type { Route } from './route';
import { usePages, useRowAction } from './useLoad';
import { listQuery } from './Waivers';
import {
  Badge,
  BUTTON_QUIET,
  CARD,
  Failed,
  INPUT,
  LINK,
  ListSummary,
  Loading,
  MailBadge,
  Notice,
  PagedList,
  ScreenTitle,
  SearchForm,
  Status,
  StatusBadge,
} from './ui';

const SHOW = [
  ['all', 'All messages'],
  ['inbox', 'Inbox'],
  ['spam', 'Taken for spam'],
] as const;

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
        {message.service && <span className="text-muted"> · {message.service}</span>}{' '}
        <StatusBadge status={message.waiverStatus} />
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
  const show = route.query.get('show') ?? 'all';
  const query = listQuery(route, ['q', 'from', 'to', 'show']);
  const list = usePages(JSON.stringify(query), (after, options) =>
    desk.messages.$get({ query: { ...query, after } }, options),
  );
  const [changed, setChanged] = useState<Record<string, MessageRow>>({});
  const action = useRowAction();
  const searched = ['q', 'from', 'to'].some((name) => route.query.get(name)) || show !== 'all';

  const notSpam = (message: MessageRow) =>
    action.run(message.id, async () => {
      const answer = await ask(
        desk.messages[':id']['not-spam'].$post({ param: { id: message.id }, json: {} }),
      );
      setChanged((current) => ({
        ...current,
        [message.id]: { ...message, spamReason: null, mail: answer.sent ? 'sent' : 'owed' },
      }));
      return {
        tone: 'good',
        words: answer.sent
          ? `The message from ${message.name} is in the inbox and was e-mailed to the studio.`
          : `The message from ${message.name} is in the inbox; its e-mail will be tried again shortly.`,
      };
    });

  return (
    <div className="space-y-6">
      <ScreenTitle>Messages</ScreenTitle>
      <SearchForm
        screen="messages"
        route={route}
        text="Name, e-mail or words"
        columns="lg:grid-cols-[2fr_minmax(11rem,1fr)_1fr_1fr]"
        buttons="lg:col-span-4"
        searched={searched}
        errors={list.error?.fieldErrors}
        address={(values) => ({ ...values, show: values.show === 'all' ? undefined : values.show })}
      >
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
      </SearchForm>

      <Status>
        {action.outcome && <Notice tone={action.outcome.tone}>{action.outcome.words}</Notice>}
        <ListSummary list={list} noun="message" searched={searched} empty="No messages yet." />
      </Status>
      {list.loading && <Loading what="messages" />}
      {list.error && !list.error.fieldErrors.from && !list.error.fieldErrors.to && (
        <Failed error={list.error} retry={list.reload} />
      )}
      <PagedList list={list} className="space-y-3" what="messages">
        {(message) => (
          <li key={message.id}>
            <Message
              message={changed[message.id] ?? message}
              busy={action.busy === message.id}
              onNotSpam={(m) => void notSpam(m)}
            />
          </li>
        )}
      </PagedList>
    </div>
  );
}
