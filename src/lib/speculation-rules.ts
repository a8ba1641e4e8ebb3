/**
 * The next page at once: a public page the visitor is about to open ("moderate": a link held under
 * the pointer for a moment or pressed; on Chrome for Android, a link in view once scrolling stops)
 * is prerendered by the browser from these rules, which list the public pages and never a page of
 * one booking or address, the desk, an endpoint or a file. Chromium prerenders nothing under its
 * Data Saver (the switch that also sends Save-Data), on battery saver or short of memory.
 *
 * Written into each public page (BaseLayout.astro) as `<script type="speculationrules">`, which
 * the Content-Security-Policy allows by its hash like any inline script of ours
 * (src/integrations/security-headers.ts). In the page rather than named by a `Speculation-Rules`
 * header: a header's rules are a request of their own, which Lighthouse counted as one the
 * largest paint waited for (Services 1.09x its bare twin with the header, 0.92x inline).
 */
export const SPECULATION_RULES = {
  prerender: [
    {
      where: {
        and: [
          {
            href_matches: [
              '/',
              '/about',
              '/services',
              '/classes',
              '/consultation',
              '/events',
              '/events/*',
              '/contact',
              '/waiver',
              '/book/*',
            ],
          },
          { not: { href_matches: ['/book/manage', '/*.ics'] } },
          { not: { selector_matches: '[rel~=nofollow], [download]' } },
        ],
      },
      eagerness: 'moderate',
    },
  ],
};
