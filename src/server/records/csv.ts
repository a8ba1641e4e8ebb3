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

/**
 * `'` after every `;` or tab followed (tabs, returns and spaces between) by `=`, `+`, `-` or `@`.
 * One pass from the end: a lookahead regex (`/[;\t](?=[\t\r ]*[=+\-@])/g`) takes time growing
 * with the square of a run of tabs, and a visitor's message may be 5,000 of them.
 */
function neutraliseAfterSeparators(text: string): string {
  const out: string[] = [];
  let formulaNext = false;
  for (let i = text.length - 1; i >= 0; i--) {
    const char = text[i];
    if (formulaNext && (char === ';' || char === '\t')) out.push("'");
    out.push(char);
    if (char === '=' || char === '+' || char === '-' || char === '@') formulaNext = true;
    else if (char !== '\t' && char !== '\r' && char !== ' ') formulaNext = false;
  }
  return out.reverse().join('');
}

export function csvCell(value: string | number | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (typeof value === 'string') {
    text = neutraliseAfterSeparators(text);
    if (FORMULA.test(text)) text = `'${text}`;
  }
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: (string | number | boolean | null)[][]): string {
  const lines = [header, ...rows].map((cells) => cells.map(csvCell).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
