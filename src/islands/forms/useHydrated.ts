import { useSyncExternalStore } from 'react';

const never = () => () => undefined;

/**
 * False in the server-rendered HTML and during hydration, true once React runs the island in the
 * browser: what a form shows before its script has taken over.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
