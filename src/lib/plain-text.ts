import { convert } from 'html-to-text';

/**
 * Rendered Markdown as plain text, for what cannot show HTML: a calendar's DESCRIPTION, search
 * engines' structured data, a meta description. Links keep their address in brackets.
 */
export function plainText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
        selector,
        options: { uppercase: false },
      })),
    ],
  }).trim();
}

/**
 * The first paragraph of `text` in at most `max` characters: its whole sentences that fit, or
 * when not even the first one does, its words that fit, followed by an ellipsis.
 */
export function excerpt(text: string, max = 160): string {
  const first = (text.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  if (first.length <= max) return first;
  const sentences = first.match(/[^.!?]+[.!?]+(?=\s|$)/g) ?? [];
  let fitting = '';
  for (const sentence of sentences) {
    if ((fitting + sentence).trim().length > max) break;
    fitting += sentence;
  }
  if (fitting.trim()) return fitting.trim();
  // The words that fit with room for the ellipsis: up to the last space within `max`.
  const cut = first.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).replace(/[\s,;:.]+$/, '')}…`;
}
