/**
 * The content editor at /admin: Decap CMS, started with the configuration the build made from the
 * content schemas (/admin/config.json: config.ts), every field checked as she types with the
 * schema the build checks its line with, and every file, before it is saved, with its whole
 * schema (its refinements across lines included), in the build's words. Bundled by
 * src/integrations/content-editor.ts; nothing of it is on any other page.
 */
import './manual-init';
import CMS from 'decap-cms-app';
import { createElement, Component, type ComponentType } from 'react';
import type { z } from 'zod';
import { fieldAt, fileProblems, fieldProblem, withoutEmpty } from './checks';
import { editorCollections, type EditorContext } from './collections';
import { missingBlocks } from '../lib/content-schemas';
import { checkName, FORMATS, type EditorConfig } from './config';
import { FILE_TEXT, readMarkdown, readYaml, writeMarkdown, writeYaml } from './files';
import { waiverVersionProblem } from './waiver';

/** What the build wrote beside this script. */
interface Written {
  config: EditorConfig;
  context: EditorContext;
}

/** A refusal whose words are hers alone (Decap shows it after "Failed to persist entry: "). */
class ContentProblem extends Error {
  override name = 'ContentProblem';
  override toString() {
    return this.message;
  }
}

type Immutable = {
  toJS(): unknown;
  get(key: string): unknown;
  set(key: string, value: unknown): Immutable;
};
const plain = (value: unknown) =>
  value && typeof (value as Immutable).toJS === 'function' ? (value as Immutable).toJS() : value;

/** Each file's schema by the name its fields' `check` starts with. */
function schemasOf(context: EditorContext): Map<string, z.ZodType> {
  const schemas = new Map<string, z.ZodType>();
  for (const collection of editorCollections(context)) {
    if ('files' in collection) {
      for (const file of collection.files) {
        schemas.set(checkName(collection.name, file.name), file.schema);
      }
    } else {
      schemas.set(checkName(collection.name), collection.schema);
    }
  }
  return schemas;
}

/** The schema a field's `check` names: its file's, walked to the field. */
function checkOf(schemas: Map<string, z.ZodType>, check: string): z.ZodType | undefined {
  const [file, ...path] = check.split('.');
  const schema = schemas.get(file!);
  return schema && fieldAt(schema, path);
}

interface ControlProps {
  field: { get(key: string): unknown };
  value: unknown;
}

/**
 * Decap's own widget `name`, its value checked by the field's schema: her words under the field,
 * and no save while one is wrong. An empty field is the schema's to judge too ("missing: ..."),
 * so Decap's own "is required" never shows.
 */
function checkedWidget(name: string, schemas: Map<string, z.ZodType>) {
  const base = CMS.getWidget(name);
  if (!base) return;
  const Base = base.control as unknown as ComponentType<ControlProps>;
  class Checked extends Component<ControlProps> {
    getValidateValue = () => 'checked by its schema';
    // Decap's field redraws its control only when this says so (or, without it, when the value
    // changes): a picture chosen in the media library arrives as another prop (`mediaPaths`).
    override shouldComponentUpdate() {
      return true;
    }
    isValid = () => {
      const check = this.props.field.get('check');
      const schema = typeof check === 'string' ? checkOf(schemas, check) : undefined;
      const message = schema && fieldProblem(schema, plain(this.props.value));
      return message ? { error: { type: 'CUSTOM', message } } : true;
    };
    override render() {
      return createElement(Base, this.props);
    }
  }
  CMS.registerWidget(name, Checked as never, base.preview as never);
}

/** The lines of each file that name a picture (`image`, `photo`, `heroImage`). */
function picturesOf(config: EditorConfig): Map<string, string[]> {
  const named = (fields: { name: string; widget: string }[]) =>
    fields.filter((field) => field.widget === 'image').map((field) => field.name);
  const pictures = new Map<string, string[]>();
  for (const collection of config.collections) {
    if ('files' in collection && collection.files) {
      for (const file of collection.files) {
        pictures.set(checkName(collection.name, file.name), named(file.fields));
      }
    } else {
      pictures.set(checkName(collection.name), named(collection.fields));
    }
  }
  return pictures;
}

/**
 * A picture's path as the build reads it, relative to the file (`./studio.jpg`): Decap writes it
 * without the `./`, which Astro's `image()` would take for a package's name.
 */
function picturesBeside(data: Immutable, names: string[]): Immutable {
  let fixed = data;
  for (const name of names) {
    const path = data.get(name);
    if (typeof path === 'string' && path && !/^(\.{1,2}\/|\/|[a-z]+:)/.test(path)) {
      fixed = fixed.set(name, `./${path}`);
    }
  }
  return fixed;
}

async function start() {
  const response = await fetch('/admin/config.json', { cache: 'no-store' });
  const { config, context } = (await response.json()) as Written;
  const schemas = schemasOf(context);
  const pictures = picturesOf(config);
  for (const widget of ['string', 'text', 'number', 'select', 'boolean', 'image']) {
    checkedWidget(widget, schemas);
  }
  CMS.registerCustomFormat(FORMATS.yaml, 'yaml', { fromFile: readYaml, toFile: writeYaml });
  CMS.registerCustomFormat(FORMATS.markdown, 'md', {
    fromFile: readMarkdown,
    toFile: writeMarkdown,
  });
  CMS.registerEventListener({
    name: 'preSave',
    handler: async ({ entry }: { entry: Immutable }) => {
      const collection = String(entry.get('collection'));
      const slug = String(entry.get('slug'));
      const data = plain(entry.get('data')) as Record<string, unknown>;
      const schema = schemas.get(checkName(collection, slug)) ?? schemas.get(collection);
      if (!schema) return undefined;
      const { [FILE_TEXT]: loaded, body, ...lines } = data;
      const problems = fileProblems(schema, withoutEmpty(lines));
      if (collection === 'pages')
        problems.push(...missingBlocks(slug, withoutEmpty(lines) as never));
      if (collection === 'pages' && slug === 'waiver') {
        const problem = await waiverVersionProblem(loaded, { ...lines, body });
        if (problem) problems.push(problem);
      }
      if (problems.length > 0) throw new ContentProblem(problems.join('\n'));
      return picturesBeside(
        entry.get('data') as Immutable,
        pictures.get(checkName(collection, slug)) ?? pictures.get(collection) ?? [],
      );
    },
  });
  // Under npm start and npm run dev, the working copy's own files (scripts/server/editor.ts).
  CMS.init({
    config: { ...config, local_backend: { url: `${location.origin}/api/editor` } } as never,
  });
}

void start();
