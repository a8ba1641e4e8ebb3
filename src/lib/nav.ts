export interface NavItem {
  href: string;
  label: string;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { href: '/', label: 'Home' },
  { href: '/about', label: 'About' },
  { href: '/services', label: 'Services' },
  { href: '/events', label: 'Events' },
  { href: '/contact', label: 'Contact' },
  { href: '/waiver', label: 'Waiver' },
];

export const FOOTER_LINKS: readonly NavItem[] = NAV_ITEMS.slice(0, 4);

/** The public path of a page: `/about.html`, `/about/` and `/about` are all `/about`. */
export function cleanPath(pathname: string): string {
  return (
    pathname
      .replace(/\.html$/, '')
      .replace(/(^|\/)index$/, '')
      .replace(/\/+$/, '') || '/'
  );
}

/**
 * How a nav item stands to the page shown, as `aria-current` says it: the page itself ('page'),
 * the section the page is in ('true': an event's own page is within Events), or neither.
 */
export function currentAs(href: string, pathname: string): 'page' | 'true' | undefined {
  const path = cleanPath(pathname);
  if (path === href) return 'page';
  return href !== '/' && path.startsWith(`${href}/`) ? 'true' : undefined;
}

/** The nav items, each with how it stands to the page shown (the header's list and its menu). */
export function navItemsFor(pathname: string) {
  return NAV_ITEMS.map((item) => ({ ...item, current: currentAs(item.href, pathname) }));
}
