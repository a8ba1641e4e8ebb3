import { useEffect, useState } from 'react';

/** The desk's screens, each with an address of its own after the `#` (back and forward work). */
export type Screen =
  | 'overview'
  | 'waivers'
  | 'waiver'
  | 'participant'
  | 'versions'
  | 'kiosk'
  | 'messages'
  | 'consultations'
  | 'list'
  | 'delivery'
  | 'export'
  | 'erase'
  | 'log';

export interface Route {
  screen: Screen;
  /** The record a screen shows (`#/waivers/<id>`). */
  id?: string;
  query: URLSearchParams;
}

const SCREENS: Record<string, Screen> = {
  '': 'overview',
  waivers: 'waivers',
  versions: 'versions',
  kiosk: 'kiosk',
  messages: 'messages',
  consultations: 'consultations',
  list: 'list',
  delivery: 'delivery',
  export: 'export',
  erase: 'erase',
  log: 'log',
};

/** `#/waivers/<id>?q=...` as a route; anything unknown is the overview. */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const [name = '', id] = path.split('/');
  const query = new URLSearchParams(search);
  if (name === 'waivers' && id) return { screen: 'waiver', id: decodeURIComponent(id), query };
  if (name === 'participants' && id) {
    return { screen: 'participant', id: decodeURIComponent(id), query };
  }
  return { screen: SCREENS[name] ?? 'overview', query };
}

/** The address of a screen, with its query (empty values left out). */
export function href(screen: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
  const search = params.toString();
  return `#/${screen}${search ? `?${search}` : ''}`;
}

export function useRoute(): Route {
  const [hash, setHash] = useState(() =>
    typeof window === 'undefined' ? '' : window.location.hash,
  );
  useEffect(() => {
    const changed = () => setHash(window.location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}
