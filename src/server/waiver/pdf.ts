import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import {
  CONSENTS,
  WAIVER_FIELDS,
  WAIVER_FIELD_NAMES,
  SIGNATURE_KINDS,
  WAIVER_SECTIONS,
  type WaiverFieldSpec,
} from '../../shared/waiver';
import { waiverBlocks } from '../../shared/waiver-blocks';
import * as zoned from '../../shared/booking/zoned';
import { momentLabel } from '../../shared/time-format';
import { siteFacts } from '../platform/site-facts';
import type { WaiverRecord } from './store';

export type PdfCopy = 'records' | 'participant';

const INK = '#1e2a23';
const MUTED = '#4a5650';
const RULE = '#c4d7ca';
const ACCENT = '#3b5747';

// pdfkit's built-in Helvetica encodes WinAnsi only: a Cyrillic or Greek name, or health notes
// written in them, came out as mojibake in the signed record. Such a waiver is set in DejaVu Sans
// (a free licence, see node_modules/dejavu-fonts-ttf/LICENSE: Latin, Greek, Cyrillic, Vietnamese
// and more), embedded as a subset and shipped to the functions through netlify.toml's
// included_files. Embedding costs time (measured: about 90 ms a PDF against 10 ms, shaping
// every line with the font's OpenType tables), so a waiver Helvetica can print keeps Helvetica.
const DEJAVU_FILES = {
  regular: 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
  bold: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
};

interface Typeface {
  regular: string;
  bold: string;
  /** The waiver text's size: DejaVu runs wider, and the waiver should stay on two pages. */
  textSize: number;
}

const HELVETICA: Typeface = { regular: 'Helvetica', bold: 'Helvetica-Bold', textSize: 9.5 };
const DEJAVU: Typeface = { regular: 'DejaVu', bold: 'DejaVu-Bold', textSize: 9 };

// WinAnsiEncoding (PDF 32000, annex D): ASCII, Latin-1, and these in 0x80-0x9F.
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

function winAnsi(text: string): boolean {
  for (const character of text) {
    const code = character.codePointAt(0)!;
    const latin = (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff);
    if (!latin && character !== '\n' && !WIN_ANSI_EXTRA.has(character)) return false;
  }
  return true;
}

let dejavu: { regular: Buffer; bold: Buffer } | undefined;

/** The typeface for this waiver, registered with the document. */
function typefaceFor(doc: PDFKit.PDFDocument, texts: string[]): Typeface {
  if (texts.every(winAnsi)) return HELVETICA;
  const require = createRequire(import.meta.url);
  dejavu ??= {
    regular: readFileSync(require.resolve(DEJAVU_FILES.regular)),
    bold: readFileSync(require.resolve(DEJAVU_FILES.bold)),
  };
  doc.registerFont(DEJAVU.regular, dejavu.regular);
  doc.registerFont(DEJAVU.bold, dejavu.bold);
  return DEJAVU;
}

/** "2026-11-22 04:15:02 UTC" */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * When a waiver was signed, as people read it: on the studio's clock with its zone named
 * ("Thursday, November 26, 2026, 10:32 AM PST"), the studio's calendar day ("2026-11-26"), and
 * the exact UTC second the audit trail keeps beside it.
 */
export function signedAt(date: Date): { local: string; day: string; utc: string } {
  const { timeZone } = siteFacts();
  const instant = zoned.instantOf(date);
  return {
    local: momentLabel(instant, timeZone),
    day: zoned.localDate(instant, timeZone).toString(),
    utc: formatUtc(date),
  };
}

/** A letter-size document being written, with the few looks a waiver's PDF is made of. */
interface Sheet {
  doc: PDFKit.PDFDocument;
  face: Typeface;
  width: number;
  left: number;
  /** A section's title, ruled beneath. */
  section: (title: string) => void;
  /** `Label: value` on one line (wrapped as needed). */
  row: (label: string, value: string) => void;
  /** Page footers, then the bytes. */
  finish: (footer: string) => Promise<Buffer>;
}

function sheet(info: PDFKit.DocumentInfo, texts: string[]): Sheet {
  const doc = new PDFDocument({
    size: 'LETTER',
    margins: { top: 56, bottom: 64, left: 60, right: 60 },
    bufferPages: true,
    info,
  });
  const face = typefaceFor(doc, texts);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const left = doc.page.margins.left;

  const section = (title: string) => {
    if (doc.y > doc.page.height - doc.page.margins.bottom - 80) doc.addPage();
    doc.moveDown(0.9);
    doc.font(face.bold).fontSize(12).fillColor(ACCENT).text(title.toUpperCase(), left);
    const y = doc.y + 2;
    doc
      .moveTo(left, y)
      .lineTo(left + width, y)
      .lineWidth(0.75)
      .strokeColor(RULE)
      .stroke();
    doc.y = y + 6;
  };
  const row = (label: string, value: string) => {
    doc.font(face.bold).fontSize(10).fillColor(MUTED).text(`${label}: `, left, doc.y, {
      continued: true,
    });
    doc
      .font(face.regular)
      .fillColor(INK)
      .text(value || '-');
    doc.moveDown(0.2);
  };
  const finish = (footer: string) => {
    const pages = doc.bufferedPageRange();
    for (let i = 0; i < pages.count; i++) {
      doc.switchToPage(pages.start + i);
      const bottom = doc.page.margins.bottom;
      doc.page.margins.bottom = 0;
      doc
        .font(face.regular)
        .fontSize(8)
        .fillColor(MUTED)
        .text(`${footer} - page ${i + 1} of ${pages.count}`, left, doc.page.height - 40, {
          width,
          align: 'center',
          lineBreak: false,
        });
      doc.page.margins.bottom = bottom;
    }
    doc.end();
    return done;
  };
  return { doc, face, width, left, section, row, finish };
}

/** The title lines at the top of the first page. */
function heading({ doc, face, left }: Sheet, studioName: string, subtitle: string, signed: Date) {
  doc.font(face.bold).fontSize(20).fillColor(INK).text(studioName, left);
  doc.font(face.regular).fontSize(13).fillColor(MUTED).text(subtitle);
  doc.fontSize(10).text(`Signed electronically on ${signedAt(signed).local}`);
}

/** The exact waiver text signed, with its version, and the answers to the two consents. */
function textAndConsents(page: Sheet, record: WaiverRecord) {
  const { doc, face, left, width, section, row } = page;
  section(`Waiver Text (version ${record.waiverText.version})`);
  for (const block of waiverBlocks(record.waiverText.text)) {
    if (block.kind === 'heading') {
      doc.moveDown(0.4).font(face.bold).fontSize(10).fillColor(INK);
      doc.text(block.text, left, doc.y, { width });
    } else {
      doc.font(face.regular).fontSize(face.textSize).fillColor(INK);
      doc.text(block.text, left, doc.y, { width, align: 'justify', lineGap: 1.5 });
      doc.moveDown(0.35);
    }
  }

  section('Consents');
  for (const [name, label] of Object.entries(CONSENTS)) {
    row(label, record[name as keyof typeof CONSENTS] ? 'Yes' : 'No');
  }
}

/**
 * The studio's record of a signed waiver as a PDF: who signed, what they declared (health
 * information included), the exact text they agreed to, their signature and the audit trail
 * that ties them together.
 */
export function renderWaiverPdf(record: WaiverRecord, studioName: string): Promise<Buffer> {
  const fullName = `${record.firstName} ${record.lastName}`;
  const printed = Object.values(record).filter((value) => typeof value === 'string');
  const page = sheet(
    {
      Title: `Liability waiver - ${fullName}`,
      Author: studioName,
      Subject: `Signed liability waiver ${record.id}`,
      CreationDate: record.createdAt,
    },
    [studioName, ...printed, record.waiverText.text],
  );
  const { doc, face, left, section, row } = page;

  heading(
    page,
    studioName,
    'Participant Information & Liability Waiver - studio record',
    record.createdAt,
  );
  for (const [key, title] of Object.entries(WAIVER_SECTIONS)) {
    section(title);
    for (const name of WAIVER_FIELD_NAMES.filter((field) => WAIVER_FIELDS[field].section === key)) {
      const spec: WaiverFieldSpec = WAIVER_FIELDS[name];
      row(spec.label, record[name] || (spec.required ? '' : 'None stated'));
    }
  }

  textAndConsents(page, record);

  section('Signature');
  const boxHeight = 110;
  if (doc.y + boxHeight + 30 > doc.page.height - doc.page.margins.bottom) doc.addPage();
  const boxTop = doc.y + 4;
  doc.rect(left, boxTop, 240, boxHeight).lineWidth(0.75).strokeColor(RULE).stroke();
  doc.image(record.signaturePng, left + 10, boxTop + 5, {
    fit: [220, boxHeight - 10],
    align: 'center',
    valign: 'center',
  });
  doc.y = boxTop + boxHeight + 6;
  doc.font(face.regular).fontSize(9).fillColor(MUTED);
  doc.text(`Signed electronically by ${fullName}`, left);

  section('Audit Trail');
  row('Record ID', record.id);
  row('Signed at', signedAt(record.createdAt).local);
  row('Signed at (UTC)', formatUtc(record.createdAt));
  row('IP address', record.clientIp ?? 'Not available');
  row('User agent', record.userAgent ?? 'Not available');
  row('Waiver text version', record.waiverText.version);
  row('Waiver text SHA-256', record.waiverText.sha256);
  row('Signature', SIGNATURE_KINDS[record.signatureKind]);
  if (record.signatureName) row('Name typed to sign', record.signatureName);
  row('Form timing', record.timed ? 'Checked' : 'Not checked (sent without JavaScript)');

  return page.finish(`${studioName} - waiver ${record.id}`);
}

/** What the participant's copy says about everything it leaves out. */
export const ON_FILE = (studioEmail: string) =>
  `Your other details, your health information and your signature are kept on file with the studio. For a full copy of your signed waiver, write to ${studioEmail}.`;

/**
 * The participant's copy. It goes to an address nobody has verified (anyone may type anyone's
 * address into the form), so it carries nothing typed into the form but the first name: not the
 * other fields, not the signature image (a drawing can say anything), not the audit trail. What
 * it holds is the studio's own: the day it was signed, the exact waiver text and its version,
 * the answers to the two consents, the record's number, and where to ask for the full copy.
 */
export function renderParticipantPdf(
  record: WaiverRecord,
  studio: { name: string; email: string },
): Promise<Buffer> {
  const page = sheet(
    {
      Title: 'Liability waiver - participant copy',
      Author: studio.name,
      Subject: `Signed liability waiver ${record.id}`,
      CreationDate: record.createdAt,
    },
    [studio.name, record.firstName, record.waiverText.text],
  );
  const { doc, face, left, width, section, row } = page;

  heading(
    page,
    studio.name,
    'Participant Information & Liability Waiver - participant copy',
    record.createdAt,
  );
  section('Participant');
  row(WAIVER_FIELDS.firstName.label, record.firstName);
  doc.font(face.regular).fontSize(10).fillColor(INK).text(ON_FILE(studio.email), left, doc.y, {
    width,
  });

  textAndConsents(page, record);

  section('Record');
  row('Record ID', record.id);
  row('Signed at', signedAt(record.createdAt).local);
  row('Signed at (UTC)', formatUtc(record.createdAt));
  row('Waiver text version', record.waiverText.version);
  row('Waiver text SHA-256', record.waiverText.sha256);

  return page.finish(`${studio.name} - waiver ${record.id}`);
}
