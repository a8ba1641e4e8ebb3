/**
 * A pass-through proxy in front of the site server, which the browsers visit instead of it. It
 * does two things a WebDriver client cannot do in every engine:
 *
 * - It keeps a log of every response (method, path, status, Location), so a test can see that a
 *   form post was answered 303 even where the client has no network events (WebKit).
 * - It puts the console-error recorder (in-page.ts) at the start of every HTML page, and adds
 *   that one script's hash to the page's Content-Security-Policy so the policy lets it run; the
 *   policy is otherwise left exactly as the site sends it. This is the "preload script" that
 *   WebKitGTK's WebDriver (no BiDi) lacks.
 *
 * Requests are forwarded unchanged, `Host` included, so the site sees its own origin.
 */
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { recorder } from './in-page.ts';

export interface LoggedResponse {
  method: string;
  path: string;
  status: number;
  location?: string;
}

export interface Proxy {
  url: string;
  responses: LoggedResponse[];
  stop(): Promise<void>;
}

const RECORDER = `(${recorder.toString()})();`;
const RECORDER_HASH = `'sha256-${createHash('sha256').update(RECORDER).digest('base64')}'`;

/** The policy with the recorder's hash added to the directive that governs inline scripts. */
export function allowRecorder(policy: string): string {
  const directives = policy.split(';').map((directive) => directive.trim());
  const scripts = directives.findIndex((directive) => /^script-src(\s|$)/.test(directive));
  if (scripts >= 0) {
    directives[scripts] = `${directives[scripts]} ${RECORDER_HASH}`;
  } else {
    const fallback = directives.find((directive) => /^default-src(\s|$)/.test(directive));
    if (!fallback) return policy;
    const sources = fallback.replace(/^default-src/, '').replace(/'none'/, '');
    directives.push(`script-src ${sources} ${RECORDER_HASH}`.replace(/\s+/g, ' '));
  }
  return directives.filter(Boolean).join('; ');
}

/** The page with the recorder as its first script: after `<meta charset>`, else after `<head>`. */
export function withRecorder(html: string): string {
  const tag = `<script>${RECORDER}</script>`;
  const charset = /<meta\s+charset=[^>]*>/i.exec(html);
  if (charset) return html.replace(charset[0], `${charset[0]}${tag}`);
  const head = /<head[^>]*>/i.exec(html);
  return head ? html.replace(head[0], `${head[0]}${tag}`) : `${tag}${html}`;
}

export async function startProxy(target: string, port: number): Promise<Proxy> {
  const upstream = new URL(target);
  const responses: LoggedResponse[] = [];
  const server: Server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, 'accept-encoding': 'identity' };
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        const status = answer.statusCode ?? 502;
        const location = answer.headers.location;
        responses.push({ method: req.method ?? 'GET', path: req.url ?? '/', status, location });
        const isHtml = /^text\/html/i.test(answer.headers['content-type'] ?? '');
        if (!isHtml || req.method === 'HEAD') {
          // A 304 carries the page's policy too, which the browser puts on the page it kept
          // (with the recorder in it): it must allow the recorder as well.
          const policy = answer.headers['content-security-policy'];
          const headers =
            typeof policy === 'string'
              ? { ...answer.headers, 'content-security-policy': allowRecorder(policy) }
              : answer.headers;
          res.writeHead(status, headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.from(withRecorder(Buffer.concat(chunks).toString('utf8')));
          const out: IncomingHttpHeaders = {
            ...answer.headers,
            'content-length': String(body.length),
          };
          delete out['transfer-encoding'];
          const policy = answer.headers['content-security-policy'];
          if (typeof policy === 'string') out['content-security-policy'] = allowRecorder(policy);
          res.writeHead(status, out);
          res.end(body);
        });
      },
    );
    forward.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`Proxy: ${error.message}`);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    responses,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
