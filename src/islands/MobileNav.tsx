import { useEffect, useRef, useState } from 'react';
import { island } from './ErrorBoundary';
import { navItemsFor } from '../lib/nav';

interface Props {
  /** The page shown: the island reads the items itself rather than taking them as props, which
      every page would carry a second time, serialized (about 100 bytes of each page's answer). */
  pathname: string;
}

const MENU_ID = 'mobile-menu';

/**
 * The markup works before (or without) JavaScript through the native Popover API: the
 * toggle opens the list and Escape or a tap outside closes it. Hydration, on the first
 * interaction, adds what the platform does not: an accurate aria-expanded, closing when a
 * link is chosen, and focus back on the toggle.
 */
function Menu({ pathname }: Props) {
  const items = navItemsFor(pathname);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const [hydrated, setHydrated] = useState(false);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const menu = menuRef.current;
    if (!menu) return;
    setHydrated(true);
    setOpen(menu.matches(':popover-open'));
    const onToggle = (event: Event) => {
      const isOpen = (event as ToggleEvent).newState === 'open';
      setOpen(isOpen);
      const focused = document.activeElement;
      if (!isOpen && (focused === document.body || menu.contains(focused))) {
        toggleRef.current?.focus();
      }
    };
    menu.addEventListener('toggle', onToggle);
    return () => menu.removeEventListener('toggle', onToggle);
  }, []);

  const closeMenu = () => menuRef.current?.hidePopover();

  return (
    <div className="md:hidden">
      <button
        ref={toggleRef}
        type="button"
        popoverTarget={MENU_ID}
        aria-controls={MENU_ID}
        aria-expanded={hydrated ? open : undefined}
        className="inline-flex h-11 w-11 items-center justify-center rounded-full text-ink hover:bg-sage-100"
      >
        <span className="sr-only">Menu</span>
        <svg
          aria-hidden="true"
          viewBox="0 0 24 24"
          className="h-6 w-6"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
        >
          {open ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
        </svg>
      </button>
      <div
        ref={menuRef}
        id={MENU_ID}
        popover="auto"
        className="fixed inset-x-0 top-16 m-0 w-full border-0 border-b border-sand-200 bg-sand-50 p-0 shadow-lg md:hidden"
      >
        <ul className="flex flex-col px-5 py-3">
          {items.map(({ href, label, current }) => (
            <li key={href}>
              <a
                href={href}
                onClick={closeMenu}
                aria-current={current}
                className={`block rounded-lg px-4 py-3 text-base font-medium ${
                  current ? 'bg-sage-700 text-white' : 'text-ink hover:bg-sage-100'
                }`}
              >
                {label}
              </a>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

export default island(Menu, 'MobileNav');
