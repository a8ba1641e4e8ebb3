/**
 * The one look of every mail the site sends: the studio's name at the top, the blocks in a
 * readable sans-serif, links as buttons, and a footer with the studio's name and postal address.
 * React Email's components write the table markup and inline styles mail clients need; React
 * escapes every value, so a visitor's words can never become markup.
 *
 * Written with `createElement` rather than JSX: the commands in scripts/ run this code with Node's
 * own type stripping (scripts/source-imports.ts), which reads `.ts` and not `.tsx`.
 */
import {
  Body,
  Button,
  Container,
  Head,
  Hr,
  Html,
  Preview,
  Section,
  Text,
} from '@react-email/components';
import { createElement as h, Fragment, type CSSProperties, type ReactNode } from 'react';

/**
 * What a mail says, part by part: a paragraph (its line breaks kept); a heading; labelled values
 * ("Name: Ada", a label's value a link where `links` gives one); or a button link with the words
 * that lead to it.
 */
export type Block =
  | string
  | { heading: string }
  | { fields: [label: string, value: string][]; links?: Record<string, string> }
  | { text?: string; link: string; label: string };

const INK = '#1e2a23';
const MUTED = '#4a5650';
const SAGE = '#3d5a4a';
const SAND = '#f6f1ea';
const LINE = '#e8dfd3';
const SANS = "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

const page: CSSProperties = {
  backgroundColor: SAND,
  fontFamily: SANS,
  color: INK,
  margin: 0,
  padding: '0 12px',
};
const card: CSSProperties = {
  backgroundColor: '#ffffff',
  border: `1px solid ${LINE}`,
  borderRadius: '12px',
  maxWidth: '560px',
  margin: '24px auto',
  padding: '24px 28px',
};
const studioName: CSSProperties = {
  fontFamily: "Georgia, 'Times New Roman', serif",
  fontSize: '20px',
  fontWeight: 700,
  color: SAGE,
  margin: '0 0 20px',
};
const paragraph: CSSProperties = { fontSize: '16px', lineHeight: '24px', margin: '0 0 16px' };
const heading: CSSProperties = {
  ...paragraph,
  fontSize: '20px',
  lineHeight: '28px',
  fontWeight: 700,
};
const small: CSSProperties = {
  fontSize: '13px',
  lineHeight: '20px',
  color: MUTED,
  margin: '0 0 8px',
};
const button: CSSProperties = {
  backgroundColor: SAGE,
  borderRadius: '999px',
  color: '#ffffff',
  fontSize: '15px',
  fontWeight: 600,
  padding: '12px 22px',
  textDecoration: 'none',
};

/** Text whose line breaks are kept as `<br>`. */
const lines = (text: string): ReactNode[] =>
  text.split(/\r\n|\r|\n/).map((line, i) => h(Fragment, { key: i }, i > 0 ? h('br') : null, line));

function block(part: Block, key: number, style = paragraph): ReactNode {
  if (typeof part === 'string') return h(Text, { key, style }, ...lines(part));
  if ('heading' in part) return h(Text, { key, style: heading }, part.heading);
  if ('fields' in part) {
    const { fields, links = {} } = part;
    return h(
      Text,
      { key, style },
      ...fields.map(([label, value], i) =>
        h(
          Fragment,
          { key: label },
          i > 0 ? h('br') : null,
          h('strong', null, `${label}:`),
          ' ',
          links[label]
            ? h('a', { href: links[label], style: { color: SAGE } }, value)
            : lines(value),
        ),
      ),
    );
  }
  return h(
    Section,
    { key, style: { margin: '0 0 20px' } },
    part.text ? h(Text, { style: { ...style, margin: '0 0 12px' } }, ...lines(part.text)) : null,
    h(Button, { href: part.link, style: button }, part.label),
  );
}

export interface StudioMailProps {
  studio: string;
  address: string | undefined;
  /** The line a mail client shows beside the subject in a list of mails. */
  preview?: string;
  blocks: Block[];
  /** Small print above the studio's name and address: why this mail came, how to reply. */
  footer: Block[];
}

export function StudioMail({ studio, address, preview, blocks, footer }: StudioMailProps) {
  return h(
    Html,
    { lang: 'en' },
    // A title for whoever opens the mail as a page (a mail client's "view in browser").
    h(Head, null, h('title', null, studio)),
    preview ? h(Preview, null, preview) : null,
    h(
      Body,
      { style: page },
      h(
        Container,
        { style: card },
        h(Text, { style: studioName }, studio),
        ...blocks.map((part, i) => block(part, i)),
        h(Hr, { style: { borderColor: LINE, margin: '24px 0 16px' } }),
        ...footer.map((part, i) => block(part, i, small)),
        h(Text, { style: small }, address ? `${studio} · ${address}` : studio),
      ),
    ),
  );
}
