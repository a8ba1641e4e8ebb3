/**
 * The published folder, served as Netlify's CDN serves it: `/about` from `about.html` (Astro's
 * `build.format: 'file'`), `/` and `/dir/` from `index.html`, the `_headers` rules, Netlify's
 * default `Cache-Control: public, max-age=0, must-revalidate` where no rule sets one, brotli or
 * gzip for text when the client takes it, ETag and 304, HEAD. Nothing outside the folder is ever
 * read, and `_headers` / `_redirects` themselves are not served (they are configuration). Paths
 * arrive normalised (paths.ts): a path written to slip past these rules never gets here.
 *
 * Files are read once and kept in memory with their compressed forms (the site is well under a
 * megabyte); a file that changes on disk is read again, and files over 1 MB are streamed instead.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { RequestPath } from './paths.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export const DEFAULT_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.ics': 'text/calendar; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.pdf': 'application/pdf',
  '.wasm': 'application/wasm',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

/** The Content-Type of a file, by its extension. */
export function contentType(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** Types a CDN compresses: text, and SVG, which is XML. */
export const COMPRESSIBLE =
  /^(text\/|application\/(json|xml|manifest\+json|javascript)|image\/svg\+xml)/;

const CACHE_LIMIT = 1024 * 1024;
const HIDDEN = new Set(['/_headers', '/_redirects']);

export interface StaticFile {
  path: string;
  size: number;
  mtimeMs: number;
  type: string;
  etag: string;
  raw?: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

/** The outcome of looking a path up. */
export type Lookup =
  { kind: 'file'; file: StaticFile } | { kind: 'redirect'; location: string } | { kind: 'none' };

export class StaticSite {
  private readonly root: string;
  private readonly cache = new Map<string, StaticFile>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** A file of the folder, or undefined: never one outside it. */
  async file(relative: string): Promise<StaticFile | undefined> {
    const path = resolve(this.root, `.${relative}`);
    if (path !== this.root && !path.startsWith(this.root + sep)) return undefined;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const hit = this.cache.get(path);
    if (hit && hit.size === info.size && hit.mtimeMs === info.mtimeMs) return hit;
    const type = contentType(path);
    if (info.size > CACHE_LIMIT) {
      this.cache.delete(path);
      const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      return { path, size: info.size, mtimeMs: info.mtimeMs, type, etag };
    }
    const raw = await readFile(path);
    const etag = `"${createHash('sha1').update(raw).digest('base64url').slice(0, 22)}"`;
    const file: StaticFile = { path, size: info.size, mtimeMs: info.mtimeMs, type, etag, raw };
    if (COMPRESSIBLE.test(type) && raw.length > 512) {
      const [br, gz] = await Promise.all([
        brotli(raw, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
        }),
        gzipAsync(raw, { level: 9 }),
      ]);
      file.br = br;
      file.gzip = gz;
    }
    this.cache.set(path, file);
    return file;
  }

  /**
   * The file a request's path (normalised by paths.ts) names, as Netlify resolves it for this
   * site: `/a` is `a`, else `a.html`, else (with a redirect adding the slash) `a/index.html`; `/a/`
   * is `a/index.html`, else (with a redirect removing the slash) `a.html`. A redirect's location
   * is the normalised path itself with its slash added or removed: a path on this site.
   */
  async lookup(path: RequestPath): Promise<Lookup> {
    const { decoded, encoded } = path;
    if (HIDDEN.has(decoded.toLowerCase())) return { kind: 'none' };
    if (decoded.endsWith('/')) {
      const index = await this.file(`${decoded}index.html`);
      if (index) return { kind: 'file', file: index };
      if (decoded !== '/' && (await this.file(`${decoded.slice(0, -1)}.html`))) {
        return { kind: 'redirect', location: encoded.slice(0, -1) };
      }
      return { kind: 'none' };
    }
    const exact = (await this.file(decoded)) ?? (await this.file(`${decoded}.html`));
    if (exact) return { kind: 'file', file: exact };
    if (await this.file(`${decoded}/index.html`)) {
      return { kind: 'redirect', location: `${encoded}/` };
    }
    return { kind: 'none' };
  }

  /** Sends a file with `headers` (the `_headers` rules for the requested path) added. */
  send(
    req: IncomingMessage,
    res: ServerResponse,
    file: StaticFile,
    status: number,
    ruleHeaders: Record<string, string>,
  ): void {
    const headers: Record<string, string> = {
      'content-type': file.type,
      'cache-control': DEFAULT_CACHE_CONTROL,
      ...ruleHeaders,
    };
    let body: Buffer | undefined = file.raw;
    let etag = file.etag;
    if (file.br || file.gzip) {
      headers.vary = 'Accept-Encoding';
      const accepted = String(req.headers['accept-encoding'] ?? '');
      if (file.br && /\bbr\b/.test(accepted)) {
        body = file.br;
        headers['content-encoding'] = 'br';
        etag = `${etag.slice(0, -1)}-br"`;
      } else if (file.gzip && /\bgzip\b/.test(accepted)) {
        body = file.gzip;
        headers['content-encoding'] = 'gzip';
        etag = `${etag.slice(0, -1)}-gz"`;
      }
    }
    headers.etag = etag;
    const match = req.headers['if-none-match'];
    const tags = match?.split(/\s*,\s*/).map((tag) => tag.replace(/^W\//, '')) ?? [];
    if (status === 200 && tags.some((tag) => tag === etag || tag === '*')) {
      delete headers['content-type'];
      res.writeHead(304, headers).end();
      return;
    }
    headers['content-length'] = String(body?.length ?? file.size);
    res.writeHead(status, headers);
    if (req.method === 'HEAD') {
      res.end();
    } else if (body) {
      res.end(body);
    } else {
      const stream = createReadStream(file.path);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    }
  }

  /** The 404 page of the site (404.html), if it has one. */
  notFoundPage(): Promise<StaticFile | undefined> {
    return this.file('/404.html');
  }

  get directory(): string {
    return this.root;
  }
}
