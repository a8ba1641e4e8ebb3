/**
 * The answers a function gives a form posted by the browser without any script: the visitor gets
 * a page, not JSON. Success is a `303` to a static page with the product's words; a refusal is a
 * `303` to the page saying what went wrong and which fields need fixing (src/pages/refused.astro,
 * drawn from `refusalOf` by components/RefusalPage.astro, as the pages rendered on demand draw
 * their own refusals). Kept out of search engines and out of every cache.
 */
import type { RefusalPage } from '../../shared/refusal';
import { siteFacts } from '../platform/site-facts';
import { API_SECURITY_HEADERS, type Problem } from './responses';

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...API_SECURITY_HEADERS,
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

/** `303 See Other` to a page of the site: the browser shows it with a GET, so Back is safe. */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { ...PAGE_HEADERS, location } });
}

/**
 * `307 Temporary Redirect` to a page rendered on demand: the browser posts the same form again
 * there. A function's answer that must show back what was typed is so an Astro page like the
 * others, with the site's layout, while what was typed travels in the body and never in an
 * address (a function cannot render an Astro page itself: Netlify bundles it without Astro).
 */
export function sendFormTo(location: string): Response {
  return new Response(null, { status: 307, headers: { ...PAGE_HEADERS, location } });
}

/** What a refusal page says, in the product's words where it has them. */
export interface ProblemWords {
  title: string;
  text: string;
  /** The product's own fallback line (how else to reach the studio). */
  fallback: string;
}

export interface ProblemPage {
  problem: Problem;
  words: ProblemWords;
  /** The label of each field, to name the ones that need fixing. */
  labels: Record<string, string>;
  /** The form's page, for a fresh start. */
  formPage: { href: string; label: string };
}

/**
 * A refusal as a page rendered on demand shows it (components/RefusalPage.astro): its model,
 * status and headers (`Retry-After`).
 */
export interface Refused {
  refusal: RefusalPage;
  status: number;
  headers?: Record<string, string>;
}

/** The model of the page that says why a post was not accepted. */
export function refusalOf({ problem, words, labels, formPage }: ProblemPage): Refused {
  return {
    refusal: {
      title: words.title,
      text: words.text,
      fields: Object.entries(problem.fieldErrors ?? {}).map(([field, message]) => ({
        label: labels[field] ?? field,
        message,
      })),
      fallback: words.fallback,
      email: siteFacts().email,
      formPage,
    },
    status: problem.status,
    ...(problem.headers && { headers: problem.headers }),
  };
}
