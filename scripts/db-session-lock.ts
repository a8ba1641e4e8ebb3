/**
 * One session at a time for the emulator's embedded Postgres.
 *
 * Netlify's emulator serves its database (PGlite) to every connection through ONE Postgres
 * session: a transaction opened on one connection sees, commits or rolls back the statements of
 * every other, and extended-protocol messages of two connections interleave until a client waits
 * forever for an answer that went to the other (under 60 concurrent form posts every function
 * timed out). Real Postgres (Netlify Database) has none of this.
 *
 * This proxy sits in front of it and lets one connection at a time talk to the database: a
 * connection takes the session when it sends, and hands it on when the database says it is idle
 * again (ReadyForQuery with status 'I': no transaction open) or when it disconnects. The others
 * wait their turn with their bytes queued. A transaction is then as isolated as on a real server.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface SessionLock {
  url: string;
  close(): Promise<void>;
}

export async function startSessionLock(databaseUrl: string): Promise<SessionLock> {
  const target = new URL(databaseUrl);
  const waiting: Client[] = [];
  const open = new Set<Client>();
  let holder: Client | undefined;

  const grant = () => {
    while (!holder && waiting.length > 0) {
      const next = waiting.shift()!;
      if (next.closed) continue;
      holder = next;
      next.flush();
    }
  };
  const release = (client: Client) => {
    if (holder === client) {
      holder = undefined;
      grant();
    }
  };

  class Client {
    closed = false;
    // The start-up handshake is answered by the gateway, not the session: it needs no turn.
    private started = false;
    private queued: Buffer[] = [];
    private pending: Buffer = Buffer.alloc(0);
    private readonly backend: Socket;
    private readonly socket: Socket;

    constructor(socket: Socket) {
      this.socket = socket;
      this.backend = connect(Number(target.port), target.hostname);
      this.backend.setNoDelay(true);
      socket.setNoDelay(true);
      open.add(this);
      socket.on('data', (chunk) => this.fromClient(chunk));
      this.backend.on('data', (chunk) => this.fromBackend(chunk));
      const end = () => this.close();
      socket.on('close', end);
      socket.on('error', end);
      this.backend.on('close', end);
      this.backend.on('error', end);
    }

    private fromClient(chunk: Buffer) {
      if (!this.started) {
        this.backend.write(chunk);
        return;
      }
      this.queued.push(chunk);
      if (holder === this) this.flush();
      else if (!waiting.includes(this)) {
        waiting.push(this);
        grant();
      }
    }

    flush() {
      for (const chunk of this.queued) this.backend.write(chunk);
      this.queued = [];
    }

    // Backend messages are a type byte and a 4-byte length; 'Z' (ReadyForQuery) ends a turn.
    private fromBackend(chunk: Buffer) {
      this.socket.write(chunk);
      this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
      let idle = false;
      while (this.pending.length >= 5) {
        const length = this.pending.readUInt32BE(1);
        if (this.pending.length < 1 + length) break;
        if (this.pending[0] === 0x5a) idle = this.pending[5] === 0x49; // 'Z', status 'I'
        this.pending = this.pending.subarray(1 + length);
      }
      if (!idle) return;
      if (!this.started) this.started = true;
      else if (this.queued.length === 0) release(this);
    }

    close() {
      if (this.closed) return;
      this.closed = true;
      open.delete(this);
      this.socket.destroy();
      this.backend.destroy();
      release(this);
    }
  }

  const server: Server = createServer((socket) => void new Client(socket));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    // Stopping ends the connections still open (idle pool connections would hold it for seconds).
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const client of open) client.close();
      }),
  };
}
