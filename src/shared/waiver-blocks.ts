/**
 * The waiver text is Markdown kept simple on purpose: `## ` headings and paragraphs. The page,
 * the PDF and the stored record all read it through this one parser, so what the participant
 * sees, what is filed and what is hashed are the same words.
 */
export type WaiverBlock = { kind: 'heading' | 'paragraph'; text: string };

export function waiverBlocks(markdown: string): WaiverBlock[] {
  return markdown
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((chunk) => chunk.replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean)
    .map((chunk) => {
      const heading = /^#{1,6}\s+(.*)$/.exec(chunk);
      return heading
        ? { kind: 'heading' as const, text: stripInline(heading[1]!) }
        : { kind: 'paragraph' as const, text: stripInline(chunk) };
    });
}

// Emphasis markers are not worth a Markdown renderer here; the words are what matter.
function stripInline(text: string): string {
  return text.replace(/(\*\*|__)(.+?)\1/g, '$2').replace(/(\*|_)(\S.*?\S|\S)\1/g, '$2');
}
