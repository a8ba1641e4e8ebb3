import {
  useEffect,
  useId,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
  type SubmitEvent,
} from 'react';
import { STATUS_WORDS, type MailState, type WaiverStatus } from '../../shared/desk-api';
import { DeskError } from './api';
import { count } from './format';
import { href, type Route } from './route';
import type { Pages } from './useLoad';

/** The desk's few looks, named once. */
export const BUTTON =
  'inline-flex min-h-11 items-center justify-center gap-2 rounded-full bg-sage-700 px-5 py-2 text-sm font-semibold text-white hover:bg-sage-800 disabled:cursor-not-allowed disabled:opacity-60';
export const BUTTON_QUIET =
  'inline-flex min-h-11 items-center justify-center gap-2 rounded-full border border-sage-600 bg-white px-5 py-2 text-sm font-semibold text-sage-800 hover:bg-sage-50 disabled:cursor-not-allowed disabled:opacity-60';
export const BUTTON_DANGER =
  'inline-flex min-h-11 items-center justify-center gap-2 rounded-full bg-clay-700 px-5 py-2 text-sm font-semibold text-white hover:bg-clay-600 disabled:cursor-not-allowed disabled:opacity-60';
export const INPUT =
  'block w-full rounded-lg border border-sand-200 bg-white px-3 py-2 text-base text-ink focus:border-sage-600 focus:outline-2 focus:outline-offset-0 focus:outline-sage-600 aria-invalid:border-clay-600';
export const CARD = 'rounded-xl border border-sand-200 bg-white p-4 shadow-sm sm:p-5';
export const LINK = 'font-semibold text-sage-800 underline underline-offset-4 hover:text-sage-700';

/**
 * A screen's heading. It takes the focus when the screen opens (not on the first load), so a
 * screen reader hears where it landed and the keyboard continues from there.
 */
export function ScreenTitle({
  children,
  focus = true,
  id,
}: {
  children: ReactNode;
  focus?: boolean;
  id?: string;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus && document.body.dataset.deskReady === 'true') ref.current?.focus();
    document.body.dataset.deskReady = 'true';
  }, [focus]);
  return (
    <h2
      ref={ref}
      id={id}
      tabIndex={-1}
      className="font-serif text-2xl font-semibold focus:outline-none"
    >
      {children}
    </h2>
  );
}

/**
 * A form of its own in a card, named by its title (an h3); its fields, notices and buttons are
 * `children`. The browser's own validation is off: the server's answer says what is wrong.
 */
export function FormCard({
  id,
  title,
  onSubmit,
  children,
}: {
  /** The title's id, which names the form. */
  id: string;
  title: string;
  onSubmit: (event: SubmitEvent<HTMLFormElement>) => Promise<void>;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={(event) => void onSubmit(event)}
      noValidate
      className={`${CARD} space-y-4`}
      aria-labelledby={id}
    >
      <h3 id={id} className="font-serif text-xl font-semibold">
        {title}
      </h3>
      {children}
    </form>
  );
}

/**
 * A desk form's post: `post` sends the form's values (empty ones left out) and says in words what
 * it did. `busy` while it goes; then `done` holds those words, or `error` the desk's refusal with
 * its field errors. A post that goes through starts a new `round` (the form's key, so its fields
 * empty) and calls `after`.
 */
export function useFormPost(
  post: (values: Record<string, string>) => Promise<string>,
  after: () => void,
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<DeskError>();
  const [done, setDone] = useState<string>();
  const [round, setRound] = useState(0);
  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const values = formValues(event.currentTarget);
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      setDone(await post(values));
      setRound((n) => n + 1);
      after();
    } catch (caught) {
      setError(caught instanceof DeskError ? caught : new DeskError(0, String(caught)));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, round, submit, clearError: () => setError(undefined) };
}

interface FieldProps extends Omit<ComponentProps<'input'>, 'id'> {
  label: string;
  error?: string;
  hint?: string;
}

/** A labelled input with its error (and hint) read out as its description. */
export function Field({ label, error, hint, className, ...input }: FieldProps) {
  const id = useId();
  const described = [error && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(' ');
  return (
    <div className={className}>
      <label htmlFor={id} className="mb-1 block text-sm font-semibold text-ink">
        {label}
      </label>
      <input
        id={id}
        className={INPUT}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        {...input}
      />
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-sm text-muted">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="mt-1 text-sm font-semibold text-clay-700">
          {error}
        </p>
      )}
    </div>
  );
}

/** The first and last day of a range; the browser's time zone travels with them. */
export function DateRange({
  from,
  to,
  errors = {},
}: {
  from?: string;
  to?: string;
  errors?: Record<string, string>;
}) {
  return (
    <>
      <Field label="From" name="from" type="date" defaultValue={from} error={errors.from} />
      <Field label="To" name="to" type="date" defaultValue={to} error={errors.to} />
    </>
  );
}

/**
 * A list screen's search: the text, `children` (more choices), the date range, Search, and Clear
 * once something is searched for. Searching puts the values in the screen's address, which the
 * list follows; Clear empties the form as well.
 */
export function SearchForm({
  screen,
  route,
  text,
  columns,
  buttons,
  searched,
  errors,
  address = (values) => values,
  children,
}: {
  screen: 'waivers' | 'messages';
  route: Route;
  /** The text field's label. */
  text: string;
  /** The grid's columns on a large screen, and the buttons' span of them. */
  columns: string;
  buttons: string;
  searched: boolean;
  errors?: Record<string, string>;
  /** The address's query for the form's values (as they are, unless said). */
  address?: (values: Record<string, string>) => Record<string, string | undefined>;
  children?: ReactNode;
}) {
  const [cleared, setCleared] = useState(0);
  return (
    <form
      role="search"
      aria-label={`Find ${screen}`}
      key={cleared}
      className={`${CARD} grid gap-4 sm:grid-cols-2 ${columns} lg:items-end`}
      onSubmit={(event) => {
        event.preventDefault();
        window.location.hash = href(screen, address(formValues(event.currentTarget)));
      }}
    >
      <Field
        label={text}
        name="q"
        type="search"
        defaultValue={route.query.get('q') ?? ''}
        className="sm:col-span-2 lg:col-span-1"
      />
      {children}
      <DateRange
        from={route.query.get('from') ?? ''}
        to={route.query.get('to') ?? ''}
        errors={errors}
      />
      <div className={`flex flex-wrap gap-2 sm:col-span-2 ${buttons}`}>
        <button type="submit" className={BUTTON}>
          Search
        </button>
        {searched && (
          <a href={href(screen)} className={BUTTON_QUIET} onClick={() => setCleared((n) => n + 1)}>
            Clear
          </a>
        )}
      </div>
    </form>
  );
}

/** What a searched list shows: how many rows, or that it has none. */
export function ListSummary<T>({
  list,
  noun,
  searched,
  empty,
}: {
  list: Pages<T>;
  /** One row: "waiver". */
  noun: string;
  searched: boolean;
  /** The words for no rows at all, when nothing is searched for. */
  empty: string;
}) {
  if (!list.data) return null;
  return (
    <p className="text-sm text-muted">
      {list.items.length === 0
        ? searched
          ? `No ${noun} matches this search.`
          : empty
        : `${count(list.items.length, noun)} shown, newest first${list.next ? '; older ones below' : ''}.`}
    </p>
  );
}

/** What just happened (or went wrong), announced politely. */
export function Notice({
  tone = 'info',
  children,
}: {
  tone?: 'info' | 'good' | 'bad';
  children: ReactNode;
}) {
  const look = {
    info: 'border-sand-200 bg-sand-100',
    good: 'border-sage-200 bg-sage-50',
    bad: 'border-clay-600 bg-white',
  }[tone];
  return <div className={`rounded-lg border px-4 py-3 text-sm text-ink ${look}`}>{children}</div>;
}

/**
 * A live region that is always in the page, so what appears in it is read out (one that is
 * added or unhidden together with its text often is not). Empty, it takes no room.
 */
export function Status({ children }: { children?: ReactNode }) {
  return <div role="status">{children}</div>;
}

export function Loading({ what }: { what: string }) {
  return <p className="py-6 text-muted">Loading {what}…</p>;
}

export function Failed({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div role="alert" className="space-y-3">
      <Notice tone="bad">{error.message}</Notice>
      {retry && (
        <button type="button" className={BUTTON_QUIET} onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/**
 * A list loaded a page at a time (`usePages`), once its first page is in: its rows, then the
 * button that loads older ones and what went wrong loading them.
 */
export function PagedList<T>({
  list,
  ordered = false,
  className,
  what,
  children,
}: {
  list: Pages<T>;
  /** An `<ol>` rather than a `<ul>`. */
  ordered?: boolean;
  className: string;
  /** What the rows are, for the button: "Show older {what}". */
  what: string;
  /** A row's `<li>`, with its key. */
  children: (item: T) => ReactNode;
}) {
  if (!list.data) return null;
  const List = ordered ? 'ol' : 'ul';
  return (
    <>
      <List className={className}>{list.items.map((item) => children(item))}</List>
      {list.next && (
        <button
          type="button"
          className={BUTTON_QUIET}
          disabled={list.loadingMore}
          onClick={() => void list.more()}
        >
          {list.loadingMore ? 'Loading…' : `Show older ${what}`}
        </button>
      )}
      {list.moreError && <Failed error={list.moreError} />}
    </>
  );
}

export function Badge({
  tone,
  children,
}: {
  tone: 'spam' | 'good' | 'warn' | 'bad';
  children: ReactNode;
}) {
  const look = {
    spam: 'bg-clay-700 text-white',
    good: 'bg-sage-100 text-sage-800',
    warn: 'bg-sand-200 text-ink',
    bad: 'bg-clay-700 text-white',
  }[tone];
  return (
    <span className={`inline-block rounded-full px-2.5 py-0.5 text-xs font-semibold ${look}`}>
      {children}
    </span>
  );
}

const MAIL_WORDS: Record<MailState, [string, 'good' | 'warn' | 'bad']> = {
  sent: ['E-mailed', 'good'],
  owed: ['E-mail still being tried', 'warn'],
  failed: ['E-mail failed', 'bad'],
  // The day's limit of copies to that address was reached: the studio's own copy still went.
  skipped: ['Not sent: too many copies to that address today', 'warn'],
};

export function MailBadge({ state }: { state: MailState }) {
  const [words, tone] = MAIL_WORDS[state];
  return <Badge tone={tone}>{words}</Badge>;
}

const STATUS_TONES: Record<WaiverStatus, 'good' | 'warn' | 'bad'> = {
  covered: 'good',
  older: 'warn',
  expired: 'warn',
  none: 'bad',
};

/** A participant's status in words, wherever the desk names a person. */
export function StatusBadge({ status }: { status: WaiverStatus }) {
  return (
    <Badge tone={STATUS_TONES[status]}>
      <span className="sr-only">Waiver: </span>
      {STATUS_WORDS[status]}
    </Badge>
  );
}

/** Label and value pairs. */
export function Facts({ items }: { items: [ReactNode, ReactNode][] }) {
  return (
    <dl className="divide-y divide-sand-100">
      {items.map(([label, value], index) => (
        <div key={index} className="py-2 sm:grid sm:grid-cols-[12rem_1fr] sm:gap-x-6">
          <dt className="text-sm font-semibold text-muted">{label}</dt>
          <dd className="min-w-0 break-words whitespace-pre-wrap text-ink">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The values of a form's fields by name (empty ones left out). */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  new FormData(form).forEach((value, name) => {
    if (typeof value === 'string' && value.trim()) values[name] = value.trim();
  });
  return values;
}
