/**
 * What a mail says, as blocks: composed once by a feature, written twice here, as the HTML part
 * (StudioMail, through React Email) and as the plain-text part, in the same words and order.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { siteFacts } from '../platform/site-facts';
import { StudioMail, type Block } from './StudioMail';

export type { Block };

function asText(block: Block): string {
  if (typeof block === 'string') return block;
  if ('heading' in block) return block.heading;
  if ('fields' in block)
    return block.fields.map(([label, value]) => `${label}: ${value}`).join('\n');
  return block.text ? `${block.text}\n${block.link}` : `${block.label}: ${block.link}`;
}

/**
 * The HTML and text parts of a mail from its blocks and its small print. Every mail ends with
 * the studio's name and postal address. Rendered with react-dom's `renderToStaticMarkup`, which
 * React Email's components are made for and which, unlike React Email's own `render`, answers
 * at once: the composers stay synchronous.
 */
export function mailBody(
  blocks: Block[],
  footer: Block[] = [],
  preview?: string,
): { html: string; text: string } {
  const { name, address } = siteFacts();
  const markup = renderToStaticMarkup(
    createElement(StudioMail, { studio: name, address, preview, blocks, footer }),
  );
  const text = [
    ...blocks.map(asText),
    '--',
    ...footer.map(asText),
    address ? `${name}, ${address}` : name,
    '',
  ].join('\n\n');
  return { html: `<!DOCTYPE html>${markup}`, text };
}
