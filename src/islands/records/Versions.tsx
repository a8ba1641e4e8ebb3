import { useState } from 'react';
import type { WaiverTexts } from '../../shared/desk-api';
import { ask, desk, DeskError } from './api';
import { count, day, when } from './format';
import { href } from './route';
import { useLoad } from './useLoad';
import { BUTTON, CARD, Failed, LINK, Loading, Notice, ScreenTitle } from './ui';

/**
 * The waiver's versions: the version in force, who must sign it again and the requests to them,
 * and every text ever signed, exactly as signed, with its number of signatures.
 */
export default function Versions() {
  const texts = useLoad('waiver-texts', (options) => desk['waiver-texts'].$get({}, options));
  return (
    <div className="space-y-6">
      <ScreenTitle>Waiver texts</ScreenTitle>
      {texts.loading && <Loading what="the waiver's versions" />}
      {texts.error && <Failed error={texts.error} retry={texts.reload} />}
      {texts.data && (
        <>
          <InForce texts={texts.data} />
          <ReSign />
          <Texts texts={texts.data} />
        </>
      )}
    </div>
  );
}

function InForce({ texts }: { texts: WaiverTexts }) {
  const { current, validForMonths } = texts;
  return (
    <section className={`${CARD} space-y-2`} aria-label="The version in force">
      <p>
        The version in force is <strong>{current.version}</strong>
        {current.material
          ? ', a change that asks everyone who signed an earlier version to sign again.'
          : `, a change that needs no new signature: a waiver under version ${current.reSignFrom} or later covers a participant.`}
      </p>
      <p className="text-sm text-muted">
        {validForMonths
          ? `A waiver stays valid for ${count(validForMonths, 'month')}: one older than that shows as expired.`
          : 'A waiver does not expire with time: it stays valid until a new version asks everyone to sign again.'}{' '}
        You publish a new version, and choose how long a waiver stays valid, in the waiver’s
        settings on the site: your guide says how, under “A new version of the waiver”.
      </p>
    </section>
  );
}

function ReSign() {
  const list = useLoad('re-sign', (options) => desk['re-sign'].$get({}, options));
  const [sent, setSent] = useState<number>();
  const [error, setError] = useState<DeskError>();
  const [busy, setBusy] = useState(false);
  const waiting = list.data?.items.filter((row) => !row.requestedAt) ?? [];
  const send = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await ask(desk['re-sign'].$post({ json: {} }));
      setSent(answer.requested);
      list.reload();
    } catch (failure) {
      setError(failure as DeskError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className={`${CARD} space-y-3`} aria-labelledby="re-sign-title">
      <h3 id="re-sign-title" className="font-serif text-xl font-semibold">
        Signed an older version
      </h3>
      {list.loading && <p className="text-muted">Loading…</p>}
      {list.error && <Failed error={list.error} retry={list.reload} />}
      {list.data &&
        (list.data.items.length === 0 ? (
          <p>Everyone on file has signed the version in force.</p>
        ) : (
          <>
            <p>
              {count(list.data.items.length, 'participant')} signed their latest waiver under an
              older version. A request is one e-mail with a link to the waiver, their name and
              e-mail address filled in; each person is asked once per version.
            </p>
            <ul className="divide-y divide-sand-100">
              {list.data.items.map((row) => (
                <li key={row.waiverId} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                  <a href={href(`participants/${row.waiverId}`)} className={LINK}>
                    {row.name}
                  </a>
                  <span className="min-w-0 text-sm break-words text-muted">
                    {row.email} · version {row.version}, {day(row.signedAt)} ·{' '}
                    {row.requestedAt ? `asked ${when(row.requestedAt)}` : 'not asked yet'}
                  </span>
                </li>
              ))}
            </ul>
            {waiting.length > 0 && (
              <button type="button" className={BUTTON} disabled={busy} onClick={() => void send()}>
                Send re-sign requests ({waiting.length})
              </button>
            )}
          </>
        ))}
      <div role="status">
        {sent !== undefined && (
          <Notice tone="good">
            {sent === 0
              ? 'Everyone listed was asked already: nothing more was sent.'
              : `${count(sent, 're-sign request')} sent.`}
          </Notice>
        )}
      </div>
      {error && <Failed error={error} />}
    </section>
  );
}

function Texts({ texts }: { texts: WaiverTexts }) {
  return (
    <section className="space-y-3" aria-labelledby="texts-title">
      <h3 id="texts-title" className="font-serif text-xl font-semibold">
        Every text that was signed
      </h3>
      <p className="text-sm text-muted">Exactly as signed; the newest first.</p>
      <ul className="space-y-3">
        {texts.texts.map((text) => (
          <li key={text.sha256} className={CARD}>
            <details>
              <summary className="cursor-pointer">
                <strong>Version {text.version}</strong>
                {text.inForce && ' (in force)'} · {count(text.signatures, 'signature')} · first
                signed {day(text.firstSignedAt)}
                {text.material === null
                  ? ' · not in the list of versions'
                  : text.material
                    ? ' · asked everyone to sign again'
                    : ' · no new signature needed'}
              </summary>
              <p className="mt-2 text-xs break-all text-muted">
                Fingerprint of this text: {text.sha256}
              </p>
              <div className="mt-3 max-h-96 overflow-y-auto rounded-md border border-sand-200 bg-sand-50 p-3 text-sm whitespace-pre-wrap">
                {text.text}
              </div>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
