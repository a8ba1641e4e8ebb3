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

export function isCurrent(href: string, pathname: string): boolean {
  return cleanPath(pathname) === href;
}
