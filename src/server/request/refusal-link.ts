/**
 * The address of the page that tells a visitor without script why their form was not accepted
 * (src/pages/refused.astro). A form's function cannot render an Astro page (Netlify bundles it
 * without Astro), so it answers such a post with a `303` to `/refused`, the page's model in the
 * address: the site's own words (title, text, each field to fix and why, the status and
 * `Retry-After`), never a value the visitor typed, vouched for by a keyed hash so that no one
 * else can make the page say other words. The browser shows it with a GET: nothing typed is sent
 * a second time (a waiver's health details stay in the one post), and Back returns to the form
 * with everything typed still there.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { vouchFor } from '../platform/crypto';
import { PAGES } from '../../shared/site-paths';
import type { Refused } from './pages';

const PURPOSE = 'refusal-page';

const text = z.string().max(2000);
const model = z.object({
  refusal: z.object({
    title: text,
    text,
    fields: z.array(z.object({ label: text, message: text })).max(50),
    fallback: text,
    email: text,
    formPage: z.object({ href: z.string().regex(/^\/(?![/\\])/), label: text }),
  }),
  status: z.number().int().min(400).max(599),
  headers: z.object({ 'retry-after': z.string().regex(/^\d{1,6}$/) }).optional(),
});

/** The address of the page showing `refused`, or `undefined` where no key vouches for it. */
export function refusalLink({ refusal, status, headers }: Refused): string | undefined {
  const retryAfter = Object.entries(headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'retry-after',
  )?.[1];
  const page = { refusal, status, ...(retryAfter && { headers: { 'retry-after': retryAfter } }) };
  const words = Buffer.from(JSON.stringify(page)).toString('base64url');
  const mark = vouchFor(PURPOSE, words);
  return mark && `${PAGES.refused}?${new URLSearchParams({ words, mark })}`;
}

/** The page's model from its address, when the site wrote it; else `undefined`. */
export function readRefusalLink(url: URL): Refused | undefined {
  const words = url.searchParams.get('words');
  const mark = url.searchParams.get('mark');
  if (!words || !mark) return undefined;
  const expected = vouchFor(PURPOSE, words);
  if (!expected || !sameText(expected, mark)) return undefined;
  try {
    const parsed = model.safeParse(JSON.parse(Buffer.from(words, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
