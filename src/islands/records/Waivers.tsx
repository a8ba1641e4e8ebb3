import { useState } from 'react';
import type { WaiverRow } from '../../lib/records-api';
import { count, when, timeZone } from './format';
import { href, type Route } from './route';
import { usePages } from './useLoad';
import {
  Badge,
  BUTTON,
  BUTTON_QUIET,
  CARD,
  DateRange,
  Failed,
  Field,
  formValues,
  Loading,
  ScreenTitle,
  Status,
} from './ui';

/** The search's query as the functions read it. */
export function listQuery(route: Route, names: string[]): string {
  const params = new URLSearchParams();
  for (const name of names) {
    const value = route.query.get(name);
    if (value) params.set(name, value);
  }
  params.set('tz', timeZone());
  return params.toString();
}

export default function Waivers({ route }: { route: Route }) {
  const q = route.query.get('q') ?? '';
  const from = route.query.get('from') ?? '';
  const to = route.query.get('to') ?? '';
  const list = usePages<WaiverRow>(`/waivers?${listQuery(route, ['q', 'from', 'to'])}`);
  const searched = Boolean(q || from || to);
  const [cleared, setCleared] = useState(0);

  return (
    <div className="space-y-6">
      <ScreenTitle>Waivers</ScreenTitle>
      <form
        role="search"
        aria-label="Find waivers"
        key={cleared}
        className={`${CARD} grid gap-4 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_1fr_auto] lg:items-end`}
        onSubmit={(event) => {
          event.preventDefault();
          window.location.hash = href('waivers', formValues(event.currentTarget));
        }}
      >
        <Field
          label="Name, e-mail or phone"
          name="q"
          type="search"
          defaultValue={q}
          className="sm:col-span-2 lg:col-span-1"
        />
        <DateRange from={from} to={to} errors={list.error?.fieldErrors} />
        <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-1">
          <button type="submit" className={BUTTON}>
            Search
          </button>
          {searched && (
            <a
              href={href('waivers')}
              className={BUTTON_QUIET}
              onClick={() => setCleared((n) => n + 1)}
            >
              Clear
            </a>
          )}
        </div>
      </form>

      {list.loading && <Loading what="waivers" />}
      {list.error && !list.error.fieldErrors.from && !list.error.fieldErrors.to && (
        <Failed error={list.error} retry={list.reload} />
      )}
      <Status>
        {list.data && (
          <p className="text-sm text-muted">
            {list.items.length === 0
              ? searched
                ? 'No waiver matches this search.'
                : 'No waivers have been signed yet.'
              : `${count(list.items.length, 'waiver')} shown, newest first${list.next ? '; older ones below' : ''}.`}
          </p>
        )}
      </Status>
      {list.data && (
        <>
          <ul className="space-y-3">
            {list.items.map((waiver) => (
              <li key={waiver.id}>
                <a
                  href={href(`waivers/${waiver.id}`)}
                  className={`${CARD} block hover:border-sage-600`}
                >
                  <span className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
                    <span className="font-semibold text-sage-800 underline underline-offset-4">
                      {waiver.firstName} {waiver.lastName}
                    </span>
                    <span className="text-sm text-muted">Signed {when(waiver.createdAt)}</span>
                  </span>
                  <span className="mt-1 block text-sm break-words text-ink">
                    {waiver.email} · {waiver.phone}
                  </span>
                  {waiver.spamReason && (
                    <span className="mt-2 block">
                      <Badge tone="spam">Taken for spam</Badge>
                    </span>
                  )}
                </a>
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
              {list.loadingMore ? 'Loading…' : 'Show older waivers'}
            </button>
          )}
          {list.moreError && <Failed error={list.moreError} />}
        </>
      )}
    </div>
  );
}
