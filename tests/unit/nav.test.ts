import { describe, expect, test } from 'vitest';
import { NAV_ITEMS, FOOTER_LINKS, cleanPath, currentAs } from '../../src/lib/nav';

describe('navigation', () => {
  test("lists the site's six pages in order", () => {
    expect(NAV_ITEMS.map((i) => `${i.label} ${i.href}`)).toEqual([
      'Home /',
      'About /about',
      'Services /services',
      'Events /events',
      'Contact /contact',
      'Waiver /waiver',
    ]);
  });

  test('puts Home, About, Services and Events in the footer', () => {
    expect(FOOTER_LINKS.map((i) => i.label)).toEqual(['Home', 'About', 'Services', 'Events']);
  });

  test('treats built file names and trailing slashes as the same page', () => {
    expect(cleanPath('/index.html')).toBe('/');
    expect(cleanPath('/about.html')).toBe('/about');
    expect(cleanPath('/about/')).toBe('/about');
    expect(cleanPath('/')).toBe('/');
  });

  test('marks only the page being shown as the current page', () => {
    expect(currentAs('/', '/index.html')).toBe('page');
    expect(currentAs('/', '/about')).toBeUndefined();
    expect(currentAs('/about', '/about.html')).toBe('page');
  });

  test("marks Events as the current section on an event's own page, and nothing else", () => {
    expect(currentAs('/events', '/events/spring-reformer-workshop')).toBe('true');
    expect(currentAs('/events', '/events/spring-reformer-workshop.html')).toBe('true');
    expect(currentAs('/', '/events/spring-reformer-workshop')).toBeUndefined();
    expect(currentAs('/events', '/eventsx')).toBeUndefined();
  });
});
