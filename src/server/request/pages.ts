/**
 * The pages a function writes itself, for a form posted by the browser without any script: the
 * visitor gets a page, not JSON. Success is a `303` to a static page with the product's words; a
 * refusal is a page saying what went wrong and which fields need fixing. Every visitor value is
 * escaped; the page is styled by the site's own style sheet (`/styles/site.css`), kept out of
 * search engines and out of every cache.
 */
import { escapeHtml } from '../../shared/html';
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

/** The model of the page that says why a post was not accepted (see `problemPage`). */
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

/**
 * The page that tells a visitor without script why their form was not accepted, written by a
 * form's function (which Netlify bundles without Astro; the pages rendered on demand draw
 * `refusalOf` with components/RefusalPage.astro instead).
 */
export function problemPage({ problem, words, labels, formPage }: ProblemPage): Response {
  const studio = siteFacts();
  const fields = Object.entries(problem.fieldErrors ?? {}).map(
    ([field, message]) =>
      `<li><strong class="font-semibold">${escapeHtml(labels[field] ?? field)}:</strong> ${escapeHtml(message)}</li>`,
  );
  const body = `
<div class="min-w-0 rounded-2xl border border-clay-600 bg-white p-6 shadow-sm sm:p-8" role="alert" aria-labelledby="problem-title">
  <h1 id="problem-title" class="text-3xl font-semibold tracking-tight">${escapeHtml(words.title)}</h1>
  <p class="mt-4 text-lg text-ink">${escapeHtml(words.text)}</p>
  ${
    fields.length > 0
      ? `<h2 class="mt-6 font-sans text-base font-semibold">These fields need fixing</h2>
  <ul class="mt-2 list-disc space-y-1 pl-6 text-ink">${fields.join('')}</ul>`
      : ''
  }
  <p class="mt-6 text-ink">Go back to the form with your browser's Back button: everything you typed is still there. Fix what is named here and send it again.</p>
  <p class="mt-4 text-muted">${linkEmail(escapeHtml(words.fallback), studio.email)}</p>
  <p class="mt-8"><a href="${formPage.href}" class="inline-flex items-center justify-center rounded-full bg-sage-700 px-6 py-3 text-base font-semibold text-white hover:bg-sage-800">${escapeHtml(formPage.label)}</a></p>
</div>`;
  return new Response(layout(words.title, studio.name, body), {
    status: problem.status,
    headers: { ...PAGE_HEADERS, ...problem.headers, 'content-type': 'text/html; charset=utf-8' },
  });
}

// The studio's address in the fallback line becomes a mail link.
function linkEmail(text: string, email: string): string {
  const escaped = escapeHtml(email);
  return text.replace(
    escaped,
    `<a href="mailto:${escaped}" class="break-all text-sage-800 underline underline-offset-4">${escaped}</a>`,
  );
}

function layout(title: string, studio: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} | ${escapeHtml(studio)}</title>
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/styles/site.css">
</head>
<body class="flex min-h-screen flex-col">
<header class="border-b border-sand-200 bg-sand-50">
  <div class="mx-auto flex h-16 max-w-6xl items-center px-5 sm:px-8">
    <a href="/" class="font-serif text-xl font-semibold tracking-tight text-sage-800">${escapeHtml(studio)}</a>
  </div>
</header>
<main id="main" class="flex-1">
<section class="py-16 sm:py-24"><div class="mx-auto max-w-3xl px-5 sm:px-8">${main}</div></section>
</main>
<footer class="bg-sage-800 text-sage-50">
  <p class="mx-auto max-w-6xl px-5 py-5 text-xs text-sage-100 sm:px-8">© ${new Date().getUTCFullYear()} ${escapeHtml(studio)}. All rights reserved.</p>
</footer>
</body>
</html>
`;
}
