/**
 * The embedded Postgres that `npm start` uses by default: PGlite (Postgres compiled to
 * WebAssembly) serving the Postgres wire protocol on a port of 127.0.0.1, as `@netlify/database-dev`'s
 * `NetlifyDB` does, with the same PGlite, data folder and migration runner.
 *
 * Written here rather than taken from `NetlifyDB` for one reason: its sockets keep Nagle's
 * algorithm on, and the wire protocol answers a parameterised statement in several small writes,
 * so each such statement waited for the client's delayed ACK (44 ms here, against 0.4 ms for a
 * plain one). `NetlifyDB` offers no way to set the sockets' options; this sets `noDelay`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations, initializeTrackingTable } from '@netlify/database-dev';
import { createScramSha256Data } from 'pg-gateway';
import { fromNodeSocket } from 'pg-gateway/node';

export interface EmbeddedDatabase {
  /** A connection string for the `postgres` database, with this start's password. */
  url: string;
  db: PGlite;
  applyMigrations(directory: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Starts PGlite on `directory` (in memory without one) and serves it on a free port of
 * 127.0.0.1, to clients that know its password: one made at random for this start, in the
 * returned `url` only. `NetlifyDB` trusts every connection; here another user or program on the
 * machine, which can reach 127.0.0.1 too, cannot read the studio's records through the port.
 */
export async function startEmbeddedDatabase(directory?: string): Promise<EmbeddedDatabase> {
  if (directory) await mkdir(directory, { recursive: true });
  const db = await PGlite.create(directory);
  await initializeTrackingTable(db);
  const password = randomBytes(24).toString('base64url');
  // SCRAM-SHA-256, as Postgres itself does: the password never crosses the socket.
  const scram = await createScramSha256Data(password);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    fromNodeSocket(socket, {
      serverVersion: '16.3 (PGlite)',
      auth: { method: 'scram-sha-256', getScramSha256Data: () => scram },
      onMessage: (data, { isAuthenticated }) =>
        isAuthenticated ? db.execProtocolRaw(data) : undefined,
    }).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    db,
    applyMigrations: (migrations) => applyMigrations(db, migrations),
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
