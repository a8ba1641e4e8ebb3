import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { ask, DeskError, type Sent, type Success } from './api';

/** What a request is sent with: the signal that cancels it when the screen moves on. */
export interface Init {
  init: { signal: AbortSignal };
}

export interface Loaded<T> {
  data?: T;
  error?: DeskError;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what `send` asks the desk's API for, again whenever `key` (what is asked: the route and
 * its query) changes, or on `reload`.
 */
export function useLoad<R extends Sent>(
  key: string,
  send: (options: Init) => Promise<R>,
): Loaded<Success<R>> {
  const [state, setState] = useState<{ key: string; data?: Success<R>; error?: DeskError }>({
    key,
  });
  const [round, setRound] = useState(0);
  const request = useEffectEvent((signal: AbortSignal) => ask(send({ init: { signal } })));
  useEffect(() => {
    const controller = new AbortController();
    request(controller.signal).then(
      (data) => setState({ key, data }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({
            key,
            error: error instanceof DeskError ? error : new DeskError(0, String(error)),
          });
        }
      },
    );
    return () => controller.abort();
  }, [key, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const current = state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: !current || (!state.data && !state.error),
    reload,
  };
}

/** The rows of a list the API answers a page at a time. */
type RowOf<R> = Success<R> extends { items: (infer T)[] } ? T : never;

/**
 * A list loaded a page at a time: the first page that `send` asks for (`after` undefined), then
 * older pages appended with `more()` (the desk pages by keyset: `after` is the last row shown).
 * `key` names what is asked, as for `useLoad`.
 */
export function usePages<R extends Sent>(
  key: string,
  send: (after: string | undefined, options?: Init) => Promise<R>,
) {
  type T = RowOf<R>;
  const first = useLoad(key, (options) => send(undefined, options));
  const [older, setOlder] = useState<{ key: string; items: T[]; next: string | null }>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<DeskError>();
  const mine = older?.key === key ? older : undefined;
  const firstPage = first.data as { items: T[]; next: string | null } | undefined;
  const items = [...(firstPage?.items ?? []), ...(mine?.items ?? [])];
  const next = mine ? mine.next : (firstPage?.next ?? null);

  const more = async () => {
    if (!next) return;
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const page = (await ask(send(next))) as { items: T[]; next: string | null };
      setOlder({ key, items: [...(mine?.items ?? []), ...page.items], next: page.next });
    } catch (error) {
      setMoreError(error instanceof DeskError ? error : new DeskError(0, String(error)));
    } finally {
      setLoadingMore(false);
    }
  };
  const reload = () => {
    setOlder(undefined);
    first.reload();
  };
  return { ...first, items, next, more, loadingMore, moreError, reload };
}

/** A list loaded a page at a time (`usePages`), of rows `T`. */
export interface Pages<T> extends Loaded<unknown> {
  items: T[];
  next: string | null;
  more: () => Promise<void>;
  loadingMore: boolean;
  moreError: DeskError | undefined;
}

export interface Outcome {
  tone: 'good' | 'bad';
  words: string;
}

/**
 * An action on one row of a screen ("not spam", "send again"): which row it is busy with, and
 * what came of the last one (the outcome `work` gives, or the desk's words when it throws).
 */
export function useRowAction() {
  const [busy, setBusy] = useState<string>();
  const [outcome, setOutcome] = useState<Outcome>();
  const run = async (id: string, work: () => Promise<Outcome>) => {
    setBusy(id);
    setOutcome(undefined);
    try {
      setOutcome(await work());
    } catch (error) {
      setOutcome({
        tone: 'bad',
        words: error instanceof DeskError ? error.message : String(error),
      });
    } finally {
      setBusy(undefined);
    }
  };
  return { busy, outcome, run };
}
