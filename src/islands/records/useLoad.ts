import { useCallback, useEffect, useState } from 'react';
import { call, DeskError } from './api';

export interface Loaded<T> {
  data?: T;
  error?: DeskError;
  loading: boolean;
  reload: () => void;
}

/** Loads `path` from the desk (again whenever it changes, or on `reload`). */
export function useLoad<T extends object>(path: string): Loaded<T> {
  const [state, setState] = useState<{ path: string; data?: T; error?: DeskError }>({ path });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    call<T>(path, { signal: controller.signal }).then(
      (data) => setState({ path, data }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({
            path,
            error: error instanceof DeskError ? error : new DeskError(0, String(error)),
          });
        }
      },
    );
    return () => controller.abort();
  }, [path, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const current = state.path === path;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: !current || (!state.data && !state.error),
    reload,
  };
}

interface PageAnswer<T> {
  items: T[];
  next: string | null;
}

/**
 * A list loaded a page at a time: the first page of `path`, then older pages appended with
 * `more()` (the desk pages by keyset: `after` is the last row shown).
 */
export function usePages<T>(path: string) {
  const first = useLoad<PageAnswer<T>>(path);
  const [older, setOlder] = useState<{ path: string; items: T[]; next: string | null }>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<DeskError>();
  const mine = older?.path === path ? older : undefined;
  const items = [...(first.data?.items ?? []), ...(mine?.items ?? [])];
  const next = mine ? mine.next : (first.data?.next ?? null);

  const more = async () => {
    if (!next) return;
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const page = await call<PageAnswer<T>>(
        `${path}${path.includes('?') ? '&' : '?'}after=${next}`,
      );
      setOlder({ path, items: [...(mine?.items ?? []), ...page.items], next: page.next });
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

export type Pages<T> = ReturnType<typeof usePages<T>>;

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
