import { describe, expect, test } from 'vitest';
import { csvCell, toCsv } from '../../src/server/records/csv';

describe('CSV for spreadsheets', () => {
  test('a cell that a spreadsheet would run as a formula starts with an apostrophe', () => {
    for (const value of ['=1+1', '+1 503 555 0142', '-2', '@SUM(A1)', '\t=1', '\r=1']) {
      expect(csvCell(value).replace(/^"|"$/g, '')).toBe(`'${value}`);
    }
    expect(csvCell('a=1')).toBe('a=1');
    expect(csvCell(-2)).toBe('-2');
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
