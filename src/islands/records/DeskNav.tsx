import { useEffect, useRef, useState } from 'react';
import { href, type Route } from './route';
import { activeEntry, NAV, type Place } from './screens';

/** The widths `wide` and `desk` start at (Tailwind's `sm` and `lg`). */
const FROM: Record<Place, string | undefined> = {
  daily: undefined,
  wide: '(min-width: 40rem)',
  desk: '(min-width: 64rem)',
  more: undefined,
};

/** In the row: shown from the width its place says. */
const IN_ROW: Record<Place, string> = {
  daily: 'flex',
  wide: 'hidden sm:flex',
  desk: 'hidden lg:flex',
  more: 'hidden',
};
/** Under More: only below that width. */
const IN_MORE: Record<Place, string> = {
  daily: 'hidden',
  wide: 'sm:hidden',
  desk: 'lg:hidden',
  more: '',
};

/** Whether the window is at least as wide as `query` says (false before the first paint). */
function useWidth(query: string): boolean {
  const [matches, setMatches] = useState(false);
  useEffect(() => {
    const list = window.matchMedia(query);
    const changed = () => setMatches(list.matches);
    changed();
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}

const TAB =
  'flex min-h-11 items-center justify-center gap-1.5 rounded-full border px-1 text-[0.8125rem] font-semibold whitespace-nowrap sm:px-4 sm:text-sm lg:px-3';
const tabLook = (current: boolean) =>
  current
    ? 'border-sage-700 bg-sage-700 text-white'
    : 'border-sand-200 bg-white text-sage-800 hover:border-sage-600';

function Waiting({ count }: { count: number }) {
  return (
    <span className="rounded-full bg-clay-700 px-2 text-xs text-white">
      {count}
      <span className="sr-only"> undelivered</span>
    </span>
  );
}

/**
 * The desk's navigation in one row: the screens she uses daily at hand, the rest one tap away
 * under More (on a laptop every screen is in the row). `waiting` is the undelivered mail's count.
 */
export default function DeskNav({ route, waiting }: { route: Route; waiting: number }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLLIElement>(null);
  const active = activeEntry(route)?.screen;
  const wide = useWidth(FROM.wide!);
  const desk = useWidth(FROM.desk!);
  const underMore = (place: Place) =>
    place === 'more' || (place === 'desk' && !desk) || (place === 'wide' && !wide);
  const moreActive = NAV.some(({ screen, place }) => screen === active && underMore(place));

  // Closed again by a move to a screen, a tap elsewhere or Escape.
  useEffect(() => {
    if (!open) return;
    const moved = () => setOpen(false);
    const outside = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    const escape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      box.current?.querySelector('button')?.focus();
    };
    window.addEventListener('hashchange', moved);
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      window.removeEventListener('hashchange', moved);
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  return (
    <nav aria-label="Records desk">
      <ul className="flex flex-wrap gap-1 sm:gap-2">
        {NAV.map(({ screen, label, path, place }) => (
          <li key={screen} className={`${IN_ROW[place]} min-w-0 flex-auto lg:flex-none`}>
            <a
              href={href(path)}
              aria-current={active === screen ? 'page' : undefined}
              className={`${TAB} ${tabLook(active === screen)} w-full`}
            >
              {label}
              {screen === 'delivery' && waiting > 0 && <Waiting count={waiting} />}
            </a>
          </li>
        ))}
        <li className="relative flex flex-auto lg:flex-none" ref={box}>
          <button
            type="button"
            aria-expanded={open}
            aria-controls="desk-more"
            onClick={() => setOpen((was) => !was)}
            className={`${TAB} ${tabLook(moreActive && !open)} w-full`}
          >
            More
            {waiting > 0 && (
              // Delivery is under More below a laptop's width: its count shows here, as a dot
              // on a phone, where the row has no room for more.
              <span className="flex items-center lg:hidden">
                <span aria-hidden="true" className="h-2 w-2 rounded-full bg-clay-700 sm:hidden" />
                <span
                  aria-hidden="true"
                  className="hidden rounded-full bg-clay-700 px-2 text-xs text-white sm:inline"
                >
                  {waiting}
                </span>
                <span className="sr-only">, {waiting} undelivered</span>
              </span>
            )}
            <svg
              aria-hidden="true"
              viewBox="0 0 12 12"
              className="hidden h-3 w-3 fill-current sm:block"
            >
              <path d={open ? 'M2 8l4-4 4 4z' : 'M2 4l4 4 4-4z'} />
            </svg>
          </button>
          <ul
            id="desk-more"
            hidden={!open}
            className="absolute top-full right-0 z-20 mt-2 w-56 rounded-xl border border-sand-200 bg-white p-1.5 shadow-lg"
          >
            {NAV.filter(({ place }) => place !== 'daily').map(({ screen, label, path, place }) => (
              <li key={screen} className={IN_MORE[place]}>
                <a
                  href={href(path)}
                  aria-current={active === screen ? 'page' : undefined}
                  className={`flex min-h-11 items-center justify-between gap-2 rounded-lg px-3 font-semibold ${
                    active === screen ? 'bg-sage-700 text-white' : 'text-sage-800 hover:bg-sage-50'
                  }`}
                >
                  {label}
                  {screen === 'delivery' && waiting > 0 && <Waiting count={waiting} />}
                </a>
              </li>
            ))}
          </ul>
        </li>
      </ul>
    </nav>
  );
}
