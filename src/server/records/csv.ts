/**
 * CSV as spreadsheets open it correctly (RFC 4180): UTF-8 with a byte-order mark (without it,
 * Excel reads UTF-8 as Windows-1252 and "Zoë" comes out as "ZoÃ«"), CRLF between records, and a
 * cell quoted when it holds a comma, a quote (doubled) or a line break.
 *
 * A cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return, which some
 * spreadsheets skip before reading one of those) is a formula to a spreadsheet: a visitor could
 * type `=HYPERLINK(...)` as their name. Such a cell gets a leading `'`, which makes it text
 * (OWASP's advice on CSV injection). A phone number written `+1 503...` reads `'+1 503...`.
 * Spreadsheets set to a locale whose list separator is `;` (much of Europe), or opening the file
 * as tab-separated, cut a cell at a `;` or a tab, whatever the quotes say: `Ada;=HYPERLINK(...)`
 * becomes a cell `Ada` and a formula. So a `;` or tab followed by one of those (spaces between
 * allowed) gets the `'` too: `Ada;'=HYPERLINK(...)`.
 */
const FORMULA = /^[=+\-@\t\r]/;
const FORMULA_AFTER_SEPARATOR = /[;\t](?=[\t\r ]*[=+\-@])/g;

export function csvCell(value: string | number | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (typeof value === 'string') {
    text = text.replace(FORMULA_AFTER_SEPARATOR, "$&'");
    if (FORMULA.test(text)) text = `'${text}`;
  }
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: (string | number | boolean | null)[][]): string {
  const lines = [header, ...rows].map((cells) => cells.map(csvCell).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
