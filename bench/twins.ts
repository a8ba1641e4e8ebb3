/**
 * The bare twin of a page: the same words in the same order and structure (headings, paragraphs,
 * lists, links, labels, a `<details>` open or closed as on the page), and nothing else: no style
 * sheet, no script, no image, no attribute but a link's target. The fastest that page's own words
 * can be drawn on the connection, which is the yardstick each page's LCP is measured against.
 *
 * It is made from the HTML the page is served with (a function's page as its function answers
 * it). The bench is the only reader of this markup, so a handful of regular expressions over the
 * site's own, well-formed output will do; no visitor's HTML ever goes through it.
 */

/** Elements dropped with everything inside them. */
const DROPPED = ['script', 'style', 'svg', 'template', 'noscript', 'head', 'textarea', 'select'];

/** Elements kept (without their attributes); any other tag goes, its content stays. */
const KEPT = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'a',
  'strong',
  'em',
  'b',
  'i',
  'br',
  'blockquote',
  'header',
  'main',
  'footer',
  'nav',
  'section',
  'article',
  'aside',
  'form',
  'fieldset',
  'legend',
  'label',
  'button',
  'details',
  'summary',
  'div',
  'span',
  'table',
  'tr',
  'td',
  'th',
  'time',
]);

export function bareTwin(html: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(html)?.[1] ?? '';
  let body = /<body\b[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  for (const tag of DROPPED) {
    body = body.replace(new RegExp(`<${tag}\\b[\\s\\S]*?</${tag}>`, 'gi'), '');
  }
  body = body.replace(/<!--[\s\S]*?-->/g, '');
  body = body.replace(
    /<(\/?)([a-z][\w-]*)\b([^>]*)>/gi,
    (_, close: string, name: string, rest: string) => {
      const tag = name.toLowerCase();
      if (!KEPT.has(tag)) return '';
      if (close) return `</${tag}>`;
      const href = tag === 'a' ? /\bhref="([^"]*)"/.exec(rest)?.[1] : undefined;
      const open = tag === 'details' && /\sopen\b/.test(rest);
      return `<${tag}${href !== undefined ? ` href="${href}"` : ''}${open ? ' open' : ''}>`;
    },
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<meta name="description" content="The bare twin of a page of the site, for the benchmark.">
</head>
<body>${body}</body>
</html>
`;
}
