import type { MailRow } from '../../shared/desk-api';
import { ask, desk } from './api';
import { count, when } from './format';
import { href } from './route';
import { useLoad, useRowAction } from './useLoad';
import {
  Badge,
  BUTTON,
  CARD,
  Facts,
  Failed,
  LINK,
  Loading,
  Notice,
  ScreenTitle,
  Status,
} from './ui';

function aboutLink(mail: MailRow) {
  if (!mail.about) return 'A record that is no longer there';
  const { kind, id, name } = mail.about;
  const [target, words] =
    kind === 'waiver'
      ? [href(`waivers/${id}`), 'Waiver of']
      : kind === 'booking'
        ? [href('consultations'), 'Consultation with']
        : kind === 'subscriber'
          ? [href('list'), 'Get Notified list:']
          : [href('messages', { q: name }), 'Message from'];
  return (
    <a href={target} className={LINK}>
      {words} {name}
    </a>
  );
}

export default function Delivery() {
  const { data, error, loading, reload } = useLoad('delivery', (options) =>
    desk.delivery.$get({}, options),
  );
  const { busy, outcome, run } = useRowAction();

  const sendAgain = (mail: MailRow) =>
    run(mail.id, async () => {
      const answer = await ask(
        desk.delivery[':id']['send-again'].$post({ param: { id: mail.id }, json: {} }),
      );
      reload();
      return answer.sent
        ? {
            tone: 'good',
            words: `Sent: ${mail.label.toLowerCase()} (${mail.about?.name ?? 'no longer on file'}).`,
          }
        : {
            tone: 'bad',
            words:
              'It could not be sent this time either; it will be tried again. If this keeps happening, tell whoever runs the site: a mail setting is probably wrong.',
          };
    });

  return (
    <div className="space-y-6">
      <ScreenTitle>Unsent mail</ScreenTitle>
      <p className="text-muted">
        Every submission is saved before its e-mail is sent. An e-mail that could not be sent is
        tried again, waiting longer each time; after about six hours it is given up on and waits
        here for you to send it again. That usually means the mail settings need fixing.
      </p>
      <Status>{outcome && <Notice tone={outcome.tone}>{outcome.words}</Notice>}</Status>
      {loading && <Loading what="the undelivered e-mail" />}
      {error && <Failed error={error} retry={reload} />}
      {data &&
        (data.items.length === 0 ? (
          <p className="rounded-lg border border-sage-200 bg-sage-50 px-4 py-3">
            Every e-mail has been delivered.
          </p>
        ) : (
          <>
            <p className="font-semibold">
              {[
                data.undelivered.failed > 0 &&
                  `${count(data.undelivered.failed, 'e-mail')} given up on`,
                data.undelivered.owed > 0 &&
                  `${count(data.undelivered.owed, 'e-mail')} still being tried`,
              ]
                .filter(Boolean)
                .join(', ')}
              .
            </p>
            <ul className="space-y-3">
              {data.items.map((mail) => (
                <li key={mail.id}>
                  <article className={`${CARD} space-y-3`} aria-labelledby={`mail-${mail.id}`}>
                    <header className="flex flex-wrap items-center justify-between gap-2">
                      <h3 id={`mail-${mail.id}`} className="font-sans text-base font-semibold">
                        {mail.label}
                      </h3>
                      {mail.state === 'failed' ? (
                        <Badge tone="bad">Failed</Badge>
                      ) : (
                        <Badge tone="warn">Still being tried</Badge>
                      )}
                    </header>
                    <Facts
                      items={[
                        ['About', aboutLink(mail)],
                        ['Queued', when(mail.createdAt)],
                        ['Attempts', String(mail.attempts)],
                        ['Last error', mail.lastError ?? 'None recorded'],
                        ...(mail.lastAttemptAt
                          ? [['Last attempt', when(mail.lastAttemptAt)] as [string, string]]
                          : []),
                        ...(mail.nextAttemptAt
                          ? [['Next attempt', when(mail.nextAttemptAt)] as [string, string]]
                          : []),
                      ]}
                    />
                    {mail.state === 'failed' && (
                      <button
                        type="button"
                        className={BUTTON}
                        disabled={busy === mail.id}
                        aria-describedby={`mail-${mail.id}`}
                        onClick={() => void sendAgain(mail)}
                      >
                        {busy === mail.id ? 'Sending…' : 'Send again'}
                      </button>
                    )}
                  </article>
                </li>
              ))}
            </ul>
            {data.items.length >= data.limit && (
              <p className="text-sm text-muted">Only the first {data.limit} are shown.</p>
            )}
          </>
        ))}
    </div>
  );
}
