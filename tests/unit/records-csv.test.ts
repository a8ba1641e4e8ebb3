import { describe, expect, test } from 'vitest';
import { csvCell, toCsv } from '../../src/server/records/csv';

describe('CSV for spreadsheets', () => {
  test('a cell that a spreadsheet would run as a formula starts with an apostrophe', () => {
    for (const value of ['=1+1', '+1 503 555 0142', '-2', '@SUM(A1)', '\r=1']) {
      expect(csvCell(value).replace(/^"|"$/g, '')).toBe(`'${value}`);
    }
    // A tab first: both sides of it, since a tab-separated reading cuts the cell there.
    expect(csvCell('\t=1')).toBe("'\t'=1");
    expect(csvCell('a=1')).toBe('a=1');
    expect(csvCell(-2)).toBe('-2');
  });

  test('a formula after a semicolon or a tab is neutralised too, for spreadsheets that split cells there', () => {
    expect(csvCell('Ada;=HYPERLINK("https://evil.example")')).toBe(
      `"Ada;'=HYPERLINK(""https://evil.example"")"`,
    );
    expect(csvCell('a;+1')).toBe("a;'+1");
    expect(csvCell('a; -1')).toBe("a;' -1");
    expect(csvCell('a\t@SUM(A1)')).toBe("a\t'@SUM(A1)");
    expect(csvCell('a;\t=1')).toBe("a;'\t'=1");
    // Every piece a spreadsheet could cut the cell into starts with something that is not a formula.
    for (const value of ['x;=1', 'x\t-1', '=1;=2', 'x; @A1', 'x;\r=1']) {
      for (const piece of csvCell(value).replace(/^"|"$/g, '').split(/[;\t]/)) {
        expect(piece, value).not.toMatch(/^[\s]*[=+\-@]/);
      }
    }
    expect(csvCell('one; two')).toBe('one; two');
    expect(csvCell('tea;biscuits')).toBe('tea;biscuits');
    // Only the last `;` before the formula: the first is followed by another `;`, not a formula.
    expect(csvCell('a;;=1')).toBe("a;;'=1");
    expect(csvCell('a\t;\t =1')).toBe("a\t;'\t' =1");
  });

  test('a message of 5,000 tabs (the longest a visitor may send) and one formula: every tab before it quoted', () => {
    expect(csvCell(`${'\t'.repeat(5_000)}=1`)).toBe(`'${"\t'".repeat(5_000)}=1`);
    expect(csvCell(`${'\t'.repeat(5_000)}x`)).toBe(`'${'\t'.repeat(5_000)}x`);
    expect(csvCell(`Zoë 🙂;=1`)).toBe("Zoë 🙂;'=1");
  });

  test('quotes a cell with a comma, a quote or a line break, and doubles its quotes (RFC 4180)', () => {
    expect(csvCell('plain text')).toBe('plain text');
    expect(csvCell('a, b')).toBe('"a, b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('=a,"b"')).toBe(`"'=a,""b"""`);
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
  });

  test('a file is UTF-8 with a byte-order mark and CRLF after every record', () => {
    expect(toCsv(['Name', 'Note'], [['Zoë', 'line\r\nbreak']])).toBe(
      '\uFEFFName,Note\r\nZoë,"line\r\nbreak"\r\n',
    );
  });
});
