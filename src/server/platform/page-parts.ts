/**
 * Pieces of the pages the functions write into a built page (a booking's page, the list's link
 * pages): one look for their buttons, links and heading band, and one rule for their headers.
 */
import { escapeHtml as e } from '../../shared/html';

/**
 * A page about one person (a booking, a subscription): never stored by any cache, never
 * indexed, and no Referer leaves the site from it (its address holds a token). `same-origin`
 * rather than `no-referrer`: with no referrer at all, browsers send `Origin: null` with the
 * page's own form posts, which the same-origin check must refuse.
 */
export const PERSONAL: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'same-origin',
};

export const BUTTON =
  'inline-flex min-h-11 items-center justify-center rounded-full bg-sage-700 px-6 py-2.5 text-base font-semibold text-white transition-colors hover:bg-sage-800';

export const LINK = 'font-semibold text-sage-800 underline underline-offset-4 hover:text-sage-700';

/** The page's heading band: an eyebrow, the title (the page's h1) and an optional line. */
export function hero(eyebrow: string, title: string, text?: string): string {
  return `<section class="bg-sage-50 px-5 py-14 sm:px-8 sm:py-20"><header class="mx-auto max-w-3xl text-center"><p class="mb-3 text-sm font-semibold tracking-wider text-clay-700 uppercase">${e(eyebrow)}</p><h1 id="page-title" class="text-4xl font-semibold tracking-tight sm:text-5xl">${e(title)}</h1>${text ? `<p class="mt-4 text-lg leading-relaxed text-muted">${e(text)}</p>` : ''}</header></section>`;
}
