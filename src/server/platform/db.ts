import { getDatabase, type DatabaseConnection } from '@netlify/database';
import { readSetting } from './settings';
import { inTransaction } from './transaction';

/** A database problem the visitor can do nothing about but retry later (503). */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The database is unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface PooledClient extends Queryable {
  /** Back to the pool, or (with an error) closed: a connection that hung is not reused. */
  release(destroy?: Error | boolean): void;
  // A pooled connection is an EventEmitter (pg's Client, and the serverless driver's, which is a
  // port of it): its 'error' event says the connection died.
  on(event: 'error', listener: (error: unknown) => void): unknown;
  off(event: 'error', listener: (error: unknown) => void): unknown;
}

/**
 * How long a function waits for a connection, and for one statement, before it tells the visitor
 * the database is unavailable (503). `getDatabase()` takes no pool options, and its drivers wait
 * for a database that accepts connections but never answers until the function itself is
 * killed; so the wait is bounded here, and a connection that hung is closed, not reused.
 */
function timeouts() {
  return {
    connectMs: readSetting('DB_CONNECT_TIMEOUT_MS'),
    queryMs: readSetting('DB_QUERY_TIMEOUT_MS'),
  };
}

class TimedOut extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(what: string, ms: number) {
    super(`The database did not ${what} within ${ms} ms`);
    this.name = 'TimedOut';
  }
}

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(what, ms)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

let connection: DatabaseConnection | undefined;

function pool() {
  if (!connection) {
    try {
      connection = getDatabase();
    } catch (error) {
      throw new DatabaseUnavailableError(error);
    }
    // An idle connection that breaks (the database restarts) is an 'error' event of the pool: left
    // unheard it would end the whole process. The pool drops it; the next request reconnects.
    (connection.pool as unknown as NodeJS.EventEmitter).on('error', (error: unknown) => {
      const code = (error as { code?: unknown })?.code;
      console.error(
        `database: an idle connection was lost (${typeof code === 'string' ? code : 'no code'})`,
      );
    });
  }
  return connection.pool as unknown as { connect(): Promise<PooledClient> };
}

async function connect(): Promise<{ client: PooledClient; database: object }> {
  const database = pool();
  const pending = database.connect();
  try {
    return { client: await within(pending, timeouts().connectMs, 'connect'), database };
  } catch (error) {
    // A connection that arrives after all is closed at once.
    pending.then((client) => client.release(true)).catch(() => undefined);
    // The pool would keep places for connections to a database that does not answer, and with
    // its places all taken wait for good: the next request starts a pool of its own.
    if (error instanceof TimedOut) forget(database);
    throw asUnavailable(error);
  }
}

function forget(database: object) {
  if (connection?.pool !== database) return;
  connection = undefined;
  (database as { end?: () => Promise<void> }).end?.().catch(() => undefined);
}

/**
 * The connection ended under a statement that was not committed: the server ended the session
 * (SQLSTATE class 57P: an administrator, a restart, a failover) before answering, or the
 * connection was found dead before the statement was sent. Work whose first statement failed so
 * may be run again on a fresh connection: nothing of it landed.
 */
const ENDED_BY_SERVER = /^57P0[1-3]$/;

class DeadConnection extends Error {
  constructor(cause: unknown) {
    super('The pooled connection was dead before the statement was sent', { cause });
    this.name = 'DeadConnection';
  }
}

/**
 * Runs `work` on one connection; a statement that hangs closes it and fails the work.
 *
 * While the work holds the connection, its 'error' event is heard here. pg's pool listens to a
 * connection only while it is idle in the pool, and a connection that dies while it is handed
 * out (the database restarts, or ended it a moment before the pool handed it over) emits
 * 'error' on the connection itself: unheard, that would end the process (npm start exits, an
 * instance dies with every request it serves). Heard, the connection is closed, not reused, and
 * the work fails as an outage (503), or, when it failed on its very first statement, runs once
 * more on a fresh connection (of a new pool: a restart ends every connection the pool keeps),
 * since nothing of it landed.
 */
async function withClient<T>(work: (client: Queryable) => Promise<T>, retry = true): Promise<T> {
  const { client, database } = await connect();
  const { queryMs } = timeouts();
  let hung: Error | undefined;
  let died: unknown;
  let answered = 0;
  const onError = (error: unknown) => {
    died ??= error;
  };
  client.on('error', onError);
  const timed: Queryable = {
    async query(text, params) {
      if (died !== undefined) throw new DeadConnection(died);
      try {
        const result = await within(client.query(text, params), queryMs, 'answer');
        answered += 1;
        return result;
      } catch (error) {
        if (error instanceof TimedOut) hung = error;
        throw error;
      }
    },
  };
  let failure: { error: unknown } | undefined;
  let value: T | undefined;
  try {
    value = await work(timed);
  } catch (error) {
    failure = { error };
  } finally {
    // Back to the pool, or closed if it hung or died. The pool listens again from here on.
    client.release(hung ?? died !== undefined);
    client.off('error', onError);
  }
  if (!failure) return value as T;
  const code = (failure.error as { code?: unknown })?.code;
  const ended =
    failure.error instanceof DeadConnection ||
    (typeof code === 'string' && ENDED_BY_SERVER.test(code));
  if (retry && answered === 0 && ended) {
    // The others the pool keeps were most likely ended with it (a restart ends them all): the
    // work runs again on a new pool's fresh connection, and the old pool closes what it kept.
    forget(database);
    return withClient(work, false);
  }
  throw failure.error;
}

/** Runs one parameterised statement and returns its rows. */
export async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
  try {
    return await withClient(async (client) => (await client.query(text, params)).rows as T[]);
  } catch (error) {
    throw asUnavailable(error);
  }
}

/** Runs `work` in one transaction: every statement lands, or none does. */
export async function transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
  try {
    return await withClient((client) => inTransaction(client, () => work(client)));
  } catch (error) {
    throw asUnavailable(error);
  }
}

/** Closes the pool (the tests, and `npm start` when it stops). */
export async function closeDatabase(): Promise<void> {
  const current = connection;
  connection = undefined;
  await (current?.pool as { end?: () => Promise<void> } | undefined)?.end?.();
}

// Connection failures (refused, reset, timed out) are outages; a constraint violation is not.
function asUnavailable(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  const code = (error as { code?: unknown })?.code;
  const isSqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
  if (isSqlState && !code.startsWith('08') && !code.startsWith('57')) return error;
  return new DatabaseUnavailableError(error);
}
