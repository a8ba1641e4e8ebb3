import { useEffect, useState, type ReactNode } from 'react';
import type { SessionInfo } from '../../shared/desk-api';
import AccessLog from './AccessLog';
import Bookings from './Bookings';
import Consultations from './Consultations';
import Delivery from './Delivery';
import Erasure from './Erasure';
import Export from './Export';
import Kiosk from './Kiosk';
import List from './List';
import Messages from './Messages';
import Overview from './Overview';
import ParticipantDetail from './Participants';
import type { Route } from './route';
import Versions from './Versions';
import WaiverDetail from './WaiverDetail';
import Waivers from './Waivers';

/**
 * Where a screen's entry sits in the nav: `daily` ones are always in the row; `wide` ones join
 * them from a tablet's width and `desk` ones from a laptop's; until then, and for the `more` ones
 * always, they are under More, one tap away.
 */
export type Place = 'daily' | 'wide' | 'desk' | 'more';

interface Shown {
  route: Route;
  session: SessionInfo;
}

/**
 * A screen at `#/<path>`, with its entry in the nav; or one record's screen at `#/<path>/<id>`,
 * reached from another screen's rows and `under` that screen's entry.
 */
type Entry = { screen: string; path: string; show: (shown: Shown) => ReactNode } & (
  { label: string; place: Place } | { under: string }
);

/** The desk's screens, once: the nav, the addresses after the `#` and the page read this list. */
export const SCREENS = [
  {
    screen: 'overview',
    label: 'Overview',
    path: '',
    place: 'daily',
    show: ({ session }) => <Overview session={session} />,
  },
  {
    screen: 'bookings',
    label: 'Bookings',
    path: 'bookings',
    place: 'daily',
    show: () => <Bookings />,
  },
  {
    screen: 'waivers',
    label: 'Waivers',
    path: 'waivers',
    place: 'daily',
    show: ({ route }) => <Waivers route={route} />,
  },
  {
    screen: 'consultations',
    label: 'Consultations',
    path: 'consultations',
    place: 'wide',
    show: ({ route }) => <Consultations route={route} />,
  },
  {
    screen: 'messages',
    label: 'Messages',
    path: 'messages',
    place: 'wide',
    show: ({ route }) => <Messages route={route} />,
  },
  {
    screen: 'versions',
    label: 'Waiver texts',
    path: 'versions',
    place: 'desk',
    show: () => <Versions />,
  },
  { screen: 'list', label: 'List', path: 'list', place: 'desk', show: () => <List /> },
  {
    screen: 'delivery',
    label: 'Mail',
    path: 'delivery',
    place: 'desk',
    show: () => <Delivery />,
  },
  { screen: 'kiosk', label: 'Kiosk', path: 'kiosk', place: 'more', show: () => <Kiosk /> },
  {
    screen: 'export',
    label: 'Export',
    path: 'export',
    place: 'more',
    show: ({ session }) => <Export staffEmail={session.email} />,
  },
  {
    screen: 'erase',
    label: 'Erase',
    path: 'erase',
    place: 'more',
    show: ({ route, session }) => <Erasure route={route} staffEmail={session.email} />,
  },
  { screen: 'log', label: 'Access log', path: 'log', place: 'more', show: () => <AccessLog /> },
  {
    screen: 'waiver',
    path: 'waivers',
    under: 'waivers',
    show: ({ route }) => <WaiverDetail key={route.id} id={route.id!} />,
  },
  {
    screen: 'participant',
    path: 'participants',
    under: 'waivers',
    show: ({ route }) => <ParticipantDetail key={route.id} id={route.id!} />,
  },
] as const satisfies readonly Entry[];

export type Screen = (typeof SCREENS)[number]['screen'];
type ScreenEntry = (typeof SCREENS)[number];
export type NavEntry = Extract<ScreenEntry, { place: Place }>;

/** The screens with an entry in the nav, in its order. */
export const NAV = SCREENS.filter((entry): entry is NavEntry => 'place' in entry);

/** `#/waivers/<id>?q=...` as a route; anything unknown is the overview. */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const [name = '', id] = path.split('/');
  const query = new URLSearchParams(search);
  const record = id ? SCREENS.find((entry) => 'under' in entry && entry.path === name) : undefined;
  if (record && id) return { screen: record.screen, id: decodeURIComponent(id), query };
  return { screen: NAV.find((entry) => entry.path === name)?.screen ?? 'overview', query };
}

/** The screen a route shows. */
export function screenOf(route: Route): ScreenEntry {
  return SCREENS.find((entry) => entry.screen === route.screen) ?? SCREENS[0];
}

/** The nav's entry of the screen a route shows (a waiver and a participant are under Waivers). */
export function activeEntry(route: Route): NavEntry | undefined {
  const shown = screenOf(route);
  const screen = 'under' in shown ? shown.under : shown.screen;
  return NAV.find((entry) => entry.screen === screen);
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
