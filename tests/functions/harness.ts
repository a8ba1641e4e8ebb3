/**
 * Real parts for the function tests: the embedded Postgres of Netlify's emulator (with the
 * project's migrations applied) and a real SMTP server whose mail is parsed as it arrives.
 */
import { resolve } from 'node:path';
import { NetlifyDB } from '@netlify/database-dev';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { closeDatabase } from '../../src/server/platform/db';

export const MIGRATIONS = resolve(import.meta.dirname, '../../netlify/database/migrations');

export interface TestDatabase {
  db: NetlifyDB;
  url: string;
  /** Empties every table the migrations made (keeps the migrations applied). */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDatabase(): Promise<TestDatabase> {
  const db = new NetlifyDB({ logger: () => undefined });
  const url = await db.start();
  await db.applyMigrations(MIGRATIONS);
  process.env.NETLIFY_DB_URL = url;
  process.env.NETLIFY_DB_DRIVER = 'server';
  return {
    db,
    url,
    async clear() {
      const { rows } = await db.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE '%migration%'`,
      );
      if (rows.length > 0) {
        await db.exec(
          `TRUNCATE ${rows.map((r) => `"${r.tablename}"`).join(', ')} RESTART IDENTITY CASCADE`,
        );
      }
    },
    async stop() {
      await closeDatabase();
      await db.stop();
    },
  };
}

/**
 * A JSON POST as the site's own page sends it: `Origin` is the URL's own origin (browsers send it
 * with every POST), so the origin check lets it through. `body` is sent as is when a string.
 */
export function jsonPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(url, {
    method: 'POST',
    headers: { origin: new URL(url).origin, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A body that produces `next()` chunk after chunk, never ending: streamed, with no length. */
export function streamOf(next: () => Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      controller.enqueue(next());
    },
  });
}

export interface Envelope {
  from: string | undefined;
  to: string[];
}

export interface TestSmtp {
  url: string;
  port: number;
  mails: (ParsedMail & { envelope: Envelope })[];
  /** Resolves once `count` mails have arrived (rejects after `timeoutMs`). */
  waitForMails(count: number, timeoutMs?: number): Promise<void>;
  /** Refuses every message from now on (a mail server outage), or accepts again. */
  setFailing(failing: boolean): void;
  stop(): Promise<void>;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const mails: TestSmtp['mails'] = [];
  let failing = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      if (failing) {
        stream.resume();
        stream.on('end', () =>
          callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 451 })),
        );
        return;
      }
      simpleParser(stream)
        .then((mail) => {
          const envelope: Envelope = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
          };
          mails.push(Object.assign(mail, { envelope }));
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  const address = server.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `smtp://127.0.0.1:${actualPort}`,
    port: actualPort,
    mails,
    async waitForMails(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, got ${mails.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    setFailing(value) {
      failing = value;
    },
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}
