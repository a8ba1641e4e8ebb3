/**
 * Text made safe to put in HTML, in an element or a quoted attribute: the one escaping of the
 * site's own (the pages Astro renders escape by themselves, and the mails by React Email).
 */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
