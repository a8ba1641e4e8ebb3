import { when, timeZone } from './format';
import { href, type Route } from './route';
import { usePages } from './useLoad';
import { desk } from './api';
import {
  Badge,
  CARD,
  Failed,
  ListSummary,
  Loading,
  PagedList,
  ScreenTitle,
  SearchForm,
  Status,
} from './ui';

/** The search's query as the functions read it. */
export function listQuery(route: Route, names: string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of names) {
    const value = route.query.get(name);
    if (value) query[name] = value;
  }
  query.tz = timeZone();
  return query;
}

export default function Waivers({ route }: { route: Route }) {
  const query = listQuery(route, ['q', 'from', 'to']);
  const list = usePages(JSON.stringify(query), (after, options) =>
    desk.waivers.$get({ query: { ...query, after } }, options),
  );
  const searched = ['q', 'from', 'to'].some((name) => route.query.get(name));

  return (
    <div className="space-y-6">
      <ScreenTitle>Waivers</ScreenTitle>
      <SearchForm
        screen="waivers"
        route={route}
        text="Name, e-mail or phone"
        columns="lg:grid-cols-[2fr_1fr_1fr_auto]"
        buttons="lg:col-span-1"
        searched={searched}
        errors={list.error?.fieldErrors}
      />

      {list.loading && <Loading what="waivers" />}
      {list.error && !list.error.fieldErrors.from && !list.error.fieldErrors.to && (
        <Failed error={list.error} retry={list.reload} />
      )}
      <Status>
        <ListSummary
          list={list}
          noun="waiver"
          searched={searched}
          empty="No waivers have been signed yet."
        />
      </Status>
      <PagedList list={list} className="space-y-3" what="waivers">
        {(waiver) => (
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
        )}
      </PagedList>
    </div>
  );
}
