/**
 * The content editor's configuration (Decap CMS's `config`), made from the collections of
 * collections.ts and their schemas, so the editor's fields are the lines the build checks: each
 * field's kind, whether it must be there, its choices and its default come from the schema
 * (`z.toJSONSchema`), its hint is the schema's own message (what to write, with an example), and
 * its `check` names the schema the editor checks it with (checks.ts, main.ts).
 */
import { z } from 'zod';
import { fieldAt, fieldHint } from './checks';
import type { EditorCollection, EditorFile, FolderCollection } from './collections';

/** A JSON Schema node, as `z.toJSONSchema` writes one. */
interface Json {
  type?: string;
  properties?: Record<string, Json>;
  required?: string[];
  items?: Json;
  enum?: (string | number)[];
  const?: string | number;
  anyOf?: Json[];
  default?: unknown;
  editor?: string;
  additionalProperties?: Json | boolean;
}

/** A field of Decap's configuration (the keys it reads, and `check`, which main.ts reads). */
export interface EditorField {
  name: string;
  label: string;
  widget: string;
  required: boolean;
  hint?: string;
  /** Where the field's schema is: the file's name and the field's path, `*` for a list's items. */
  check?: string;
  default?: unknown;
  options?: (string | number)[];
  multiple?: boolean;
  value_type?: 'int' | 'float';
  fields?: EditorField[];
  field?: EditorField;
  collapsed?: boolean;
  summary?: string;
  choose_url?: boolean;
}

/** `lengthMinutes` as a label: "Length minutes"; a few said better. */
const LABELS: Record<string, string> = {
  imageAlt: 'Picture described (for someone who cannot see it)',
  heroImage: 'Picture',
  heroImageAlt: 'Picture described (for someone who cannot see it)',
  image: 'Picture',
  photo: 'Photo',
  photoAlt: 'Photo described (for someone who cannot see it)',
  postalCode: 'ZIP code',
  timeZone: 'Time zone',
  url: 'Web address',
};

export function labelOf(name: string): string {
  if (LABELS[name]) return LABELS[name]!;
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const isSentence = (hint: string | undefined) => /\bsentence/.test(hint ?? '');

/** The editor's field for the line `name` of the schema `json` (zod's `schema`) at `path`. */
function fieldOf(
  file: string,
  root: z.ZodType,
  path: (string | number)[],
  json: Json,
  required: boolean,
): EditorField {
  const name = String(path.at(-1));
  const schema = fieldAt(root, path);
  const hint = schema ? fieldHint(schema) : undefined;
  const field: EditorField = {
    name,
    label: labelOf(name),
    widget: 'string',
    required: required && json.default === undefined,
    ...(hint ? { hint } : {}),
    check: [file, ...path].join('.'),
    ...(json.default !== undefined ? { default: json.default } : {}),
  };
  return { ...field, ...kindOf(file, root, path, json, hint) };
}

/** The widget and its options for a line of the kind `json` describes. */
function kindOf(
  file: string,
  root: z.ZodType,
  path: (string | number)[],
  json: Json,
  hint: string | undefined,
): Partial<EditorField> {
  if (json.editor === 'image') return { widget: 'image', choose_url: false };
  if (json.anyOf) {
    const words = json.anyOf.filter((branch) => branch.const !== undefined).map((b) => b.const!);
    // A number or a word (`95` or `inquire`): typed as she writes it, read as the build reads it.
    if (json.anyOf.some((branch) => branch.type === 'number')) return { widget: 'string' };
    // A word or an address (an event's place): the words here; an address is written in the file.
    return { widget: 'select', options: words };
  }
  if (json.enum) return { widget: 'select', options: json.enum };
  switch (json.type) {
    case 'boolean':
      return { widget: 'boolean' };
    case 'integer':
      return { widget: 'number', value_type: 'int' };
    case 'number':
      return { widget: 'number', value_type: 'float' };
    case 'array': {
      const items = json.items ?? {};
      if (items.enum) return { widget: 'select', multiple: true, options: items.enum };
      if (items.type === 'object') {
        const fields = fieldsOf(file, root, [...path, '*'], items);
        return { widget: 'list', fields, collapsed: true, summary: summaryOf(fields) };
      }
      const { name: _name, ...field } = fieldOf(file, root, [...path, '*'], items, true);
      return {
        widget: 'list',
        field: { name: 'line', ...field, label: labelOf(String(path.at(-1))) },
      };
    }
    case 'object':
      return { widget: 'object', collapsed: false, fields: fieldsOf(file, root, path, json) };
    default:
      return { widget: isSentence(hint) ? 'text' : 'string' };
  }
}

/** How a list shows each of its items closed: by its first line of words. */
function summaryOf(fields: EditorField[]): string | undefined {
  const first = fields.find((field) => field.widget === 'string' || field.widget === 'select');
  return first ? `{{fields.${first.name}}}` : undefined;
}

function fieldsOf(
  file: string,
  root: z.ZodType,
  path: (string | number)[],
  json: Json,
): EditorField[] {
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, property]) =>
    fieldOf(file, root, [...path, name], property, required.has(name)),
  );
}

/** A file's schema as JSON Schema: the kinds of its lines, as the build reads them. */
export function jsonOf(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
}

/** The fields of a file checked with `schema` (named `file` in the checks), and its text. */
export function editorFields(
  file: string,
  schema: z.ZodType,
  body?: string,
  needs: readonly string[] = [],
): EditorField[] {
  const json = jsonOf(schema);
  const fields = fieldsOf(file, schema, [], {
    ...json,
    required: [...(json.required ?? []), ...needs],
  });
  if (!body) return fields;
  return [...fields, { name: 'body', label: body, widget: 'text', required: false }];
}

/** The name a file is checked by: its collection's, and its own within a collection of files. */
export const checkName = (collection: string, file?: string) =>
  file ? `${collection}/${file}` : collection;

/** The file formats of main.ts, which keep a file's comments and layout when it is saved. */
export const FORMATS = { yaml: 'studio-yaml', markdown: 'studio-frontmatter' } as const;

function folderCollection(collection: FolderCollection) {
  const name = checkName(collection.name);
  return {
    name: collection.name,
    label: collection.label,
    label_singular: collection.singular,
    folder: collection.folder,
    extension: 'md',
    format: FORMATS.markdown,
    create: true,
    delete: true,
    slug: '{{slug}}',
    identifier_field: collection.identifier ?? 'title',
    summary: `{{${collection.identifier ?? 'title'}}}`,
    sortable_fields: ['order'],
    // Pictures go beside the file, where the build's image pipeline reads them from.
    ...(collection.images ? { media_folder: '', public_folder: '' } : {}),
    fields: editorFields(name, collection.schema, collection.body),
  };
}

function fileEntry(collection: string, file: EditorFile) {
  return {
    name: file.name,
    label: file.label,
    file: file.file,
    fields: editorFields(checkName(collection, file.name), file.schema, file.body, file.needs),
  };
}

export interface Backend {
  /** `owner/name` on GitHub, and the branch the site is deployed from. */
  repo: string;
  branch: string;
}

/** Decap's configuration for `collections`, signing in through Netlify to `backend`. */
export function editorConfig(collections: EditorCollection[], backend: Backend, siteUrl: string) {
  return {
    load_config_file: false,
    // Netlify's OAuth provider signs her in to GitHub (the site's Access control: OAuth).
    backend: {
      name: 'github',
      repo: backend.repo,
      branch: backend.branch,
      base_url: 'https://api.netlify.com',
      auth_endpoint: 'auth',
      commit_messages: {
        create: 'Content: add {{collection}} “{{slug}}” (from the editor)',
        update: 'Content: change {{collection}} “{{slug}}” (from the editor)',
        delete: 'Content: remove {{collection}} “{{slug}}” (from the editor)',
        uploadMedia: 'Content: add the picture “{{path}}” (from the editor)',
        deleteMedia: 'Content: remove the picture “{{path}}” (from the editor)',
      },
    },
    publish_mode: 'simple',
    // The studio's mark on the sign-in screen (Decap's own, wide, covers its button on a phone).
    logo_url: '/favicon.svg',
    site_url: siteUrl,
    display_url: siteUrl,
    // Pictures of the pages (the Home picture): content/images, read by the build from there.
    media_folder: 'content/images',
    public_folder: './images',
    collections: collections.map((collection) =>
      'files' in collection
        ? {
            name: collection.name,
            label: collection.label,
            // Decap reads a format for a whole collection: its files are all YAML, or all Markdown.
            format: collection.files[0]!.file.endsWith('.md') ? FORMATS.markdown : FORMATS.yaml,
            editor: { preview: false },
            files: collection.files.map((file) => fileEntry(collection.name, file)),
          }
        : { ...folderCollection(collection), editor: { preview: false } },
    ),
  };
}

export type EditorConfig = ReturnType<typeof editorConfig>;
