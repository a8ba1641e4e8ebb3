/**
 * CSV as spreadsheets open it correctly (RFC 4180): UTF-8 with a byte-order mark (without it,
 * Excel reads UTF-8 as Windows-1252 and "Zoë" comes out as "ZoÃ«"), CRLF between records, and a
 * cell quoted when it holds a comma, a quote (doubled) or a line break.
 *
 * A cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return, which some
 * spreadsheets skip before reading one of those) is a formula to a spreadsheet: a visitor could
 * type `=HYPERLINK(...)` as their name. Such a cell gets a leading `'`, which makes it text
 * (OWASP's advice on CSV injection). A phone number written `+1 503...` reads `'+1 503...`.
 */
const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: (string | number | boolean | null)[][]): string {
  const lines = [header, ...rows].map((cells) => cells.map(csvCell).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
