import { useState } from 'react';
import { ask, desk, DeskError } from './api';
import { when } from './format';
import { useLoad } from './useLoad';
import { BUTTON, BUTTON_QUIET, CARD, Failed, Field, Loading, Notice, ScreenTitle } from './ui';

/**
 * The waiver kiosk: this device (the studio's tablet) turned into one, and every kiosk listed
 * with a way to turn it off. On a kiosk the waiver form offers no autofill, clears itself a few
 * seconds after each signature, and is not held back by the per-address limit.
 */
export default function Kiosk() {
  const list = useLoad('kiosks', (options) => desk.kiosks.$get({}, options));
  const [error, setError] = useState<DeskError>();
  const [note, setNote] = useState<string>();
  const [busy, setBusy] = useState(false);
  const turnOff = async (id: string, done: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await ask(desk.kiosks[':id'].off.$post({ param: { id }, json: {} }));
      setNote(done);
      list.reload();
    } catch (failure) {
      setError(failure as DeskError);
    } finally {
      setBusy(false);
    }
  };
  // Signed out by the same answer: the desk's page is replaced by the waiver form, so Back does
  // not lead to it, and nothing the desk held stays in this tab.
  const turnOn = async (label: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await ask(desk.kiosks.$post({ json: { label } }));
      window.location.replace('/waiver');
    } catch (failure) {
      setError(failure as DeskError);
      setBusy(false);
    }
  };
  const thisOne = list.data?.items.find((row) => row.thisDevice);
  return (
    <div className="space-y-6">
      <ScreenTitle>Waiver kiosk</ScreenTitle>
      <p>
        A kiosk is a device in the studio on which a class signs waivers one after another. On it
        the waiver form offers no autofill of the previous signer’s entries, clears itself a few
        seconds after each signature, and is never held back by the limit on waivers from one
        address. Any other device keeps the ordinary form.
      </p>
      <div role="status">{note && <Notice tone="good">{note}</Notice>}</div>
      {error && !error.fieldErrors && <Failed error={error} />}
      {list.loading && <Loading what="the kiosks" />}
      {list.error && <Failed error={list.error} retry={list.reload} />}
      {list.data && !thisOne && (
        <form
          className={`${CARD} space-y-3`}
          aria-label="Turn this device into a kiosk"
          onSubmit={(event) => {
            event.preventDefault();
            const label = String(new FormData(event.currentTarget).get('label') ?? '');
            void turnOn(label);
          }}
        >
          <Field
            label="Name of this device"
            name="label"
            placeholder="Front desk tablet"
            error={error?.fieldErrors?.label}
          />
          <p id="kiosk-sign-out" className="text-sm text-muted">
            This signs you out of the records desk on this device, and the waiver form opens in its
            place, ready to hand over. To use the desk on it again, sign in on it: that turns the
            kiosk off.
          </p>
          <button
            type="submit"
            className={BUTTON}
            disabled={busy}
            aria-describedby="kiosk-sign-out"
          >
            Turn this device into a waiver kiosk
          </button>
        </form>
      )}
      {thisOne && (
        <p className={CARD}>
          This device is the kiosk “{thisOne.label}”.{' '}
          <a href="/waiver" className="font-semibold text-sage-800 underline underline-offset-4">
            Open the waiver form
          </a>
        </p>
      )}
      {list.data && list.data.items.length > 0 && (
        <section aria-labelledby="kiosks-title" className={`${CARD} space-y-2`}>
          <h3 id="kiosks-title" className="font-serif text-xl font-semibold">
            Kiosks
          </h3>
          <ul className="divide-y divide-sand-100">
            {list.data.items.map((row) => (
              <li key={row.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
                <span className="min-w-0 break-words">
                  <strong>{row.label}</strong>
                  {row.thisDevice && ' (this device)'}
                  <span className="block text-sm text-muted">
                    Turned on {when(row.createdAt)} by {row.createdBy}
                    {row.lastUsedAt ? `; last waiver ${when(row.lastUsedAt)}` : ''}
                  </span>
                </span>
                <button
                  type="button"
                  className={BUTTON_QUIET}
                  disabled={busy}
                  onClick={() => void turnOff(row.id, `The kiosk “${row.label}” is turned off.`)}
                >
                  Turn off<span className="sr-only"> {row.label}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
