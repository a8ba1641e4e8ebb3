/**
 * A small stand-in for a CDN edge: serves a built folder on 127.0.0.1 with brotli or gzip
 * (whichever the browser prefers, compressed once and kept in memory), the Netlify `_headers`
 * rules of that folder (read as npm start reads them), Netlify's default `Cache-Control` for
 * everything else, pretty URLs (`/about` -> `about.html`) and `404.html` with status 404 for
 * unknown paths.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { loadHeaders } from '../scripts/server/rules.ts';
import { COMPRESSIBLE, contentType, DEFAULT_CACHE_CONTROL } from '../scripts/server/static.ts';

interface Encoded {
  body: Buffer;
  encoding?: 'br' | 'gzip';
}

interface CachedFile {
  type: string;
  raw: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  etag: string;
}

export interface StaticServer {
  origin: string;
  server: Server;
  close(): Promise<void>;
}

export async function startStaticServer(options: {
  root: string;
  port: number;
  host?: string;
}): Promise<StaticServer> {
  const { root, port, host = '127.0.0.1' } = options;
  const headersFor = await loadHeaders(root);
  const cache = new Map<string, CachedFile>();

  async function load(file: string): Promise<CachedFile | undefined> {
    const hit = cache.get(file);
    if (hit) return hit;
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const raw = await readFile(file);
    const type = contentType(file);
    const entry: CachedFile = {
      type,
      raw,
      etag: `"${info.size.toString(16)}-${info.mtimeMs.toString(16)}"`,
    };
    if (COMPRESSIBLE.test(type) && raw.length > 256) {
      entry.br = brotliCompressSync(raw, {
        params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
      });
      entry.gzip = gzipSync(raw, { level: 9 });
    }
    cache.set(file, entry);
    return entry;
  }

  /** The file a path names, as Netlify resolves it for `build.format: 'file'` output. */
  function candidates(pathname: string): string[] {
    const clean = normalize(decodeURIComponent(pathname)).replace(/^(\.\.(\/|\\|$))+/, '');
    const base = join(root, clean);
    if (!base.startsWith(root)) return [];
    if (clean.endsWith('/') || clean.endsWith(sep)) return [join(base, 'index.html')];
    return [base, `${base}.html`, join(base, 'index.html')];
  }

  function encode(file: CachedFile, acceptEncoding: string): Encoded {
    if (file.br && /\bbr\b/.test(acceptEncoding)) return { body: file.br, encoding: 'br' };
    if (file.gzip && /\bgzip\b/.test(acceptEncoding)) return { body: file.gzip, encoding: 'gzip' };
    return { body: file.raw };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let status = 200;
    let file: CachedFile | undefined;
    for (const candidate of candidates(url.pathname)) {
      file = await load(candidate);
      if (file) break;
    }
    if (!file) {
      status = 404;
      file = await load(join(root, '404.html'));
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    const headers: Record<string, string> = {
      'content-type': file.type,
      'cache-control': DEFAULT_CACHE_CONTROL,
      etag: file.etag,
      ...headersFor(url.pathname),
    };
    if (file.br) headers.vary = 'Accept-Encoding';
    if (status === 200 && req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers).end();
      return;
    }
    const { body, encoding } = encode(file, String(req.headers['accept-encoding'] ?? ''));
    if (encoding) headers['content-encoding'] = encoding;
    headers['content-length'] = String(body.length);
    res.writeHead(status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('static server:', req.url, error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  // Port 0 asks for any free port: the origin names the one given.
  const { port: listening } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${listening}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const root = join(process.cwd(), process.argv[2] ?? 'dist');
  const port = Number(process.env.PORT ?? 8950);
  const { origin } = await startStaticServer({ root, port });
  console.log(`Serving ${root} compressed on ${origin}`);
}
