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
} from '../../forms/waiver';
import { waiverBlocks } from '../../forms/waiver-text';
import type { WaiverRecord } from './store';

export type PdfCopy = 'records' | 'participant';

/** What the participant's copy shows instead of their health details. */
export const HEALTH_ON_FILE = 'On file with the studio';

const INK = '#1e2a23';
const MUTED = '#4a5650';
const RULE = '#c4d7ca';
const ACCENT = '#3b5747';

// pdfkit's built-in Helvetica encodes WinAnsi only: a Cyrillic or Greek name, or health notes
// written in them, came out as mojibake in the signed record. DejaVu Sans (a free licence, see
// node_modules/dejavu-fonts-ttf/LICENSE) covers Latin, Greek, Cyrillic, Vietnamese and more; it
// is embedded as a subset, and shipped to the functions through netlify.toml's included_files.
const FONT_FILES = {
  regular: 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
  bold: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
};
const REGULAR = 'Body';
const BOLD = 'Body-Bold';

let fontData: { regular: Buffer; bold: Buffer } | undefined;

function fonts() {
  const require = createRequire(import.meta.url);
  fontData ??= {
    regular: readFileSync(require.resolve(FONT_FILES.regular)),
    bold: readFileSync(require.resolve(FONT_FILES.bold)),
  };
  return fontData;
}

/** "2026-11-22 04:15:02 UTC" */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * The signed waiver as a PDF: who signed, what they declared, the exact text they agreed to,
 * their signature and the audit trail that ties them together. The participant's copy leaves
 * out the health details, which only the studio's records hold.
 */
export function renderWaiverPdf(
  record: WaiverRecord,
  studioName: string,
  copy: PdfCopy,
): Promise<Buffer> {
  const fullName = `${record.firstName} ${record.lastName}`;
  const doc = new PDFDocument({
    size: 'LETTER',
    margins: { top: 56, bottom: 64, left: 60, right: 60 },
    bufferPages: true,
    info: {
      Title: `Liability waiver - ${fullName}`,
      Author: studioName,
      Subject: `Signed liability waiver ${record.id}`,
      CreationDate: record.createdAt,
    },
  });
  const { regular, bold } = fonts();
  doc.registerFont(REGULAR, regular);
  doc.registerFont(BOLD, bold);
  doc.font(REGULAR);
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
    doc.font(BOLD).fontSize(12).fillColor(ACCENT).text(title.toUpperCase(), left);
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
    doc.font(BOLD).fontSize(10).fillColor(MUTED).text(`${label}: `, left, doc.y, {
      continued: true,
    });
    doc
      .font(REGULAR)
      .fillColor(INK)
      .text(value || '-');
    doc.moveDown(0.2);
  };

  doc.font(BOLD).fontSize(20).fillColor(INK).text(studioName, left);
  doc
    .font(REGULAR)
    .fontSize(13)
    .fillColor(MUTED)
    .text(
      copy === 'records'
        ? 'Participant Information & Liability Waiver - studio record'
        : 'Participant Information & Liability Waiver - participant copy',
    );
  doc.fontSize(10).text(`Signed electronically on ${formatUtc(record.createdAt)}`);

  for (const [key, title] of Object.entries(WAIVER_SECTIONS)) {
    section(title);
    let onFile = false;
    for (const name of WAIVER_FIELD_NAMES.filter((field) => WAIVER_FIELDS[field].section === key)) {
      const spec: WaiverFieldSpec = WAIVER_FIELDS[name];
      if (spec.health && copy === 'participant') {
        if (!onFile) doc.font(REGULAR).fontSize(10).fillColor(INK).text(HEALTH_ON_FILE, left);
        onFile = true;
        continue;
      }
      row(spec.label, record[name] || (spec.required ? '' : 'None stated'));
    }
  }

  section(`Waiver Text (version ${record.waiverText.version})`);
  for (const block of waiverBlocks(record.waiverText.text)) {
    if (block.kind === 'heading') {
      doc.moveDown(0.4).font(BOLD).fontSize(10).fillColor(INK);
      doc.text(block.text, left, doc.y, { width });
    } else {
      doc.font(REGULAR).fontSize(9).fillColor(INK);
      doc.text(block.text, left, doc.y, { width, align: 'justify', lineGap: 1.5 });
      doc.moveDown(0.35);
    }
  }

  section('Consents');
  for (const [name, label] of Object.entries(CONSENTS)) {
    row(label, record[name as keyof typeof CONSENTS] ? 'Yes' : 'No');
  }

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
  doc.font(REGULAR).fontSize(9).fillColor(MUTED);
  doc.text(`Signed electronically by ${fullName}`, left);

  section('Audit Trail');
  row('Record ID', record.id);
  row('Signed at (UTC)', formatUtc(record.createdAt));
  row('IP address', record.clientIp ?? 'Not available');
  row('User agent', record.userAgent ?? 'Not available');
  row('Waiver text version', record.waiverText.version);
  row('Waiver text SHA-256', record.waiverText.sha256);
  row('Signature', SIGNATURE_KINDS[record.signatureKind]);
  if (record.signatureName) row('Name typed to sign', record.signatureName);
  row('Form timing', record.timed ? 'Checked' : 'Not checked (sent without JavaScript)');

  const pages = doc.bufferedPageRange();
  for (let i = 0; i < pages.count; i++) {
    doc.switchToPage(pages.start + i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font(REGULAR)
      .fontSize(8)
      .fillColor(MUTED)
      .text(
        `${studioName} - waiver ${record.id} - page ${i + 1} of ${pages.count}`,
        left,
        doc.page.height - 40,
        { width, align: 'center', lineBreak: false },
      );
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}
