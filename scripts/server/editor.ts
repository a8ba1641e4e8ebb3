/**
 * The content editor's local backend: `npm start` and `npm run dev` on this machine let the editor
 * at /admin read and write the working copy's content/, with no account, speaking the protocol of
 * Decap CMS's proxy backend (the actions of its `decap-server`, local_fs mode). A deployed site
 * has none of this: there the editor signs in to the git host and commits (docs/instructor.md).
 *
 * It exists only on a server of this machine (listening on a loopback address, the embedded
 * database, no proxy in front: not self-hosted), and answers only a request from this machine
 * (a loopback peer, a loopback `Host`, so no other site's name can point at it) sent by the
 * editor's own page (`Origin` the `Host`'s own: a page of another site cannot write). It reads
 * and writes only under content/ (`..`, an absolute path, a link out and any file but a page's
 * Markdown, a YAML file or a picture are refused), and a saved file is checked as the build checks
 * it: a mistake is answered in her words and the file is put back as it was. After a save the
 * site is built again (`rebuild`), or, under `npm run dev`, Astro's dev server shows it at once.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';

/** Where the editor's requests go (Decap's `local_backend.url`, set by src/editor/main.ts). */
export const EDITOR_API = '/api/editor';

/** A picture of a phone is a few megabytes; its base64 in JSON a third more. */
export const EDITOR_MAX_BODY_BYTES = 16 * 1024 * 1024;

const ENTRY_TYPES = new Set(['.md', '.yaml']);
const PICTURE_TYPES = new Set(['.jpg', '.jpeg', '.png', '.webp', '.avif', '.gif']);
const LOOPBACK_PEER = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/;
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;

class Refusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface EditorBackend {
  /** Answers a request to EDITOR_API. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface EditorOptions {
  root: string;
  /** Called after each save that changed content/ (the site built again). */
  saved?: (files: string[]) => void;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > EDITOR_MAX_BODY_BYTES) throw new Refusal(413, 'That is too large to save.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > EDITOR_MAX_BODY_BYTES) throw new Refusal(413, 'That is too large to save.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Refusal(400, 'The editor sent something that is not JSON.');
  }
}

/** Whether the request comes from this machine, from the editor's own page (see above). */
function refusalOf(req: IncomingMessage): Refusal | undefined {
  if (req.method !== 'POST') return new Refusal(405, 'Only the editor posts here.');
  const host = req.headers.host ?? '';
  if (!LOOPBACK_PEER.test(req.socket.remoteAddress ?? '') || !LOOPBACK_HOST.test(host)) {
    return new Refusal(403, 'The local editor answers only this machine.');
  }
  if (req.headers.origin !== `http://${host}`) {
    return new Refusal(403, 'Only the editor at /admin of this site may save here.');
  }
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return new Refusal(415, 'The editor sends JSON.');
  }
  return undefined;
}

export function createEditorBackend({ root, saved }: EditorOptions): EditorBackend {
  const content = resolve(root, 'content');
  /** One save at a time: a save is checked against the files as they are after the last. */
  let queue: Promise<unknown> = Promise.resolve();

  /** `path` (`content/sessions/private.md`, as Decap names it) on disk, if it is one she may touch. */
  async function place(path: unknown, types: Set<string>): Promise<string> {
    if (typeof path !== 'string' || path.includes('\0') || path.includes('\\')) {
      throw new Refusal(400, 'That is not a file of content/.');
    }
    const file = resolve(root, path);
    const inside = relative(content, file);
    if (
      !inside ||
      inside.startsWith('..') ||
      inside.split(sep).includes('..') ||
      resolve(file) !== file
    ) {
      throw new Refusal(403, `${path} is not in content/: the editor changes only content/.`);
    }
    if (!types.has(extname(file).toLowerCase())) {
      throw new Refusal(403, `${path} is not a page, a settings file or a picture.`);
    }
    // A folder on the way that is a link to elsewhere would lead out of content/.
    const folder = await realpath(dirname(file)).catch(() => undefined);
    const real = await realpath(content);
    if (folder && folder !== real && !folder.startsWith(real + sep)) {
      throw new Refusal(403, `${path} is not in content/: the editor changes only content/.`);
    }
    const existing = await lstat(file).catch(() => undefined);
    if (existing?.isSymbolicLink()) throw new Refusal(403, `${path} is a link: not changed.`);
    return file;
  }

  const name = (file: string) => relative(root, file).split(sep).join('/');

  async function entry(path: unknown, label?: string) {
    const file = await place(path, ENTRY_TYPES);
    const data = await readFile(file).catch(() => undefined);
    return {
      data: data ? data.toString('utf8') : null,
      file: { path: name(file), label, id: data ? sha256(data) : null },
    };
  }

  async function media(path: unknown) {
    const file = await place(path, PICTURE_TYPES);
    const data = await readFile(file);
    return {
      id: sha256(data),
      content: data.toString('base64'),
      encoding: 'base64',
      path: name(file),
      name: basename(file),
    };
  }

  async function listed(folder: unknown, types: Set<string>, depth: number): Promise<string[]> {
    const inFolder = await place(join(String(folder), 'x.md'), ENTRY_TYPES).then(dirname);
    const entries = await readdir(inFolder, { withFileTypes: true, recursive: depth > 1 }).catch(
      () => [],
    );
    return entries
      .filter((item) => item.isFile() && types.has(extname(item.name).toLowerCase()))
      .map((item) => name(join(item.parentPath, item.name)))
      .sort();
  }

  /** Writes `files`, checks content/ as the build does, and puts them back on a mistake. */
  async function save(files: { path: unknown; data: Buffer; checked: boolean }[]) {
    const placed = await Promise.all(
      files.map(async (item) => ({
        ...item,
        file: await place(item.path, item.checked ? ENTRY_TYPES : PICTURE_TYPES),
      })),
    );
    const before = await Promise.all(
      placed.map((item) => readFile(item.file).catch(() => undefined)),
    );
    for (const item of placed) {
      await mkdir(dirname(item.file), { recursive: true });
      await writeFile(item.file, item.data);
    }
    const { contentProblems, RETENTION_KINDS } = await checker();
    const names = placed.filter((item) => item.checked).map((item) => name(item.file));
    const problems = contentProblems(root, RETENTION_KINDS).filter((line) =>
      names.some(
        (saved) => line === saved || line.startsWith(`${saved}:`) || line.startsWith(`${saved},`),
      ),
    );
    if (problems.length > 0) {
      for (const [index, item] of placed.entries()) {
        const old = before[index];
        if (old) await writeFile(item.file, old);
        else await rm(item.file, { force: true });
      }
      throw new Refusal(422, problems.join('\n'));
    }
    saved?.(placed.map((item) => name(item.file)));
  }

  async function act(action: unknown, params: Record<string, unknown>): Promise<unknown> {
    switch (action) {
      case 'info':
        return { repo: basename(root), publish_modes: ['simple'], type: 'local_fs' };
      case 'entriesByFolder': {
        const depth = Number(params.depth ?? 1);
        const found = await listed(params.folder, ENTRY_TYPES, depth);
        const extension = String(params.extension ?? '');
        return Promise.all(
          found.filter((path) => path.endsWith(extension)).map((path) => entry(path)),
        );
      }
      case 'entriesByFiles':
        return Promise.all(
          (Array.isArray(params.files) ? params.files : []).map(
            (item: { path?: unknown; label?: string }) => entry(item?.path, item?.label),
          ),
        );
      case 'getEntry':
        return entry(params.path);
      case 'persistEntry': {
        const one = params.entry as
          { path?: unknown; raw?: unknown; newPath?: unknown } | undefined;
        const dataFiles = (params.dataFiles as (typeof one)[] | undefined) ?? [one];
        if (dataFiles.some((item) => item?.newPath)) {
          throw new Refusal(422, 'Renaming a file is done in the repository, not in the editor.');
        }
        const assets = (Array.isArray(params.assets) ? params.assets : []) as {
          path?: unknown;
          content?: unknown;
          encoding?: unknown;
        }[];
        await save([
          ...dataFiles.map((item) => ({
            path: item?.path,
            data: Buffer.from(String(item?.raw ?? ''), 'utf8'),
            checked: true,
          })),
          ...assets.map((asset) => ({
            path: asset.path,
            data: Buffer.from(String(asset.content ?? ''), 'base64'),
            checked: false,
          })),
        ]);
        return { message: 'entry persisted' };
      }
      case 'getMedia':
        return Promise.all((await listed(params.mediaFolder, PICTURE_TYPES, 1)).map(media));
      case 'getMediaFile':
        return media(params.path);
      case 'persistMedia': {
        const asset = params.asset as { path?: unknown; content?: unknown } | undefined;
        await save([
          {
            path: asset?.path,
            data: Buffer.from(String(asset?.content ?? ''), 'base64'),
            checked: false,
          },
        ]);
        return media(asset?.path);
      }
      case 'deleteFile':
      case 'deleteFiles': {
        const paths =
          action === 'deleteFile' ? [params.path] : Array.isArray(params.paths) ? params.paths : [];
        const placed = await Promise.all(
          paths.map((path) =>
            place(path, extname(String(path)) === '.md' ? ENTRY_TYPES : PICTURE_TYPES),
          ),
        );
        for (const file of placed) await rm(file, { force: true });
        saved?.(placed.map(name));
        return { message: 'deleted' };
      }
      case 'getDeployPreview':
        return null;
      default:
        throw new Refusal(422, 'The local editor does not do that.');
    }
  }

  return {
    async handle(req, res) {
      try {
        const refusal = refusalOf(req);
        if (refusal) throw refusal;
        const body = (await readBody(req)) as { action?: unknown; params?: unknown } | null;
        const params =
          body?.params && typeof body.params === 'object'
            ? (body.params as Record<string, unknown>)
            : {};
        const answer = await (queue = queue.then(
          () => act(body?.action, params),
          () => act(body?.action, params),
        ));
        send(res, 200, answer);
      } catch (error) {
        if (error instanceof Refusal) return send(res, error.status, { error: error.message });
        console.error(`The local editor failed: ${(error as Error)?.name}`);
        send(res, 500, { error: 'Something went wrong saving it: nothing was changed.' });
      }
    },
  };
}

/** The build's content check, loaded from the site's TypeScript when first needed. */
async function checker() {
  await import('../source-imports.ts');
  return import('../../src/integrations/content-check.ts');
}
