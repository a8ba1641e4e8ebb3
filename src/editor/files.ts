/**
 * How the content editor reads and writes a file of content/: as the build reads it, and keeping
 * what she did not change as it was. A file is read into its lines (and, for Markdown, its text
 * below them, `body`), with the file as loaded under `FILE_TEXT`; a save writes the new lines into
 * that text with the `yaml` package's document, so the comments that explain each line, the
 * quotes, the folded sentences and the order of the lines stay, and only what changed is new.
 *
 * A Markdown file's lines are read by Astro with a YAML 1.1 reader (js-yaml), which takes
 * `18:00` for a number: they are written as YAML 1.1, which quotes such words.
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { absent } from './checks';

/** The line of the editor's data that holds the file as it was loaded (never written). */
export const FILE_TEXT = '__file';

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n?---\r?\n?([\s\S]*)$/;

type Data = Record<string, unknown>;

function linesOf(doc: Document): Data {
  const data: unknown = doc.toJS();
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Data) : {};
}

export function readYaml(text: string): Data {
  return { ...linesOf(parseDocument(text)), [FILE_TEXT]: text };
}

export function readMarkdown(text: string): Data {
  const match = FRONTMATTER.exec(text);
  const [yaml, body] = match ? [match[1]!, match[2]!] : ['', text];
  const lines = linesOf(parseDocument(yaml, { version: '1.1' }));
  return { ...lines, body: body.replace(/^\r?\n/, '').replace(/\s+$/, ''), [FILE_TEXT]: text };
}

/** The value a line is left out for: nothing, or an empty list. */
const leftOut = (value: unknown) => absent(value) || (Array.isArray(value) && value.length === 0);

/** `node` changed to hold `value`, keeping what did not change (comments, quotes, layout). */
function merged(doc: Document, node: unknown, value: unknown): unknown {
  if (isMap(node) && value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value).filter(([, item]) => !leftOut(item));
    for (const pair of [...node.items]) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (!entries.some(([name]) => name === key)) node.delete(key);
    }
    for (const [key, item] of entries) node.set(key, merged(doc, node.get(key, true), item));
    return node;
  }
  if (isSeq(node) && Array.isArray(value)) {
    node.items = value.map((item, index) => merged(doc, node.items[index], item)) as Node[];
    return node;
  }
  if (isScalar(node) && node.value === value) return node;
  const created = doc.createNode(value);
  if (isScalar(node) && isScalar(created)) {
    created.commentBefore = node.commentBefore;
    created.comment = node.comment;
    if (typeof value === 'string' && typeof node.value === 'string' && node.type) {
      created.type = node.type;
    }
  }
  return created;
}

function written(doc: Document, data: Data): string {
  const { [FILE_TEXT]: _text, body: _body, ...lines } = data;
  doc.contents = merged(doc, doc.contents, lines) as Node;
  // As the files are written: flow lists without padding, sentences folded before column 100.
  return doc.toString({ lineWidth: 98, flowCollectionPadding: false, singleQuote: true });
}

export function writeYaml(data: Data): string {
  const text = typeof data[FILE_TEXT] === 'string' ? data[FILE_TEXT] : '';
  const { body: _body, ...lines } = data;
  return written(parseDocument(text), lines);
}

export function writeMarkdown(data: Data): string {
  const text = typeof data[FILE_TEXT] === 'string' ? data[FILE_TEXT] : '';
  const yaml = FRONTMATTER.exec(text)?.[1] ?? '';
  const doc = parseDocument(yaml, { version: '1.1' });
  const body = typeof data.body === 'string' ? data.body.trim() : '';
  return `---\n${written(doc, data)}---\n${body ? `\n${body}\n` : ''}`;
}
