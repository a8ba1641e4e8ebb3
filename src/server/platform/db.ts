import { getDatabase, type DatabaseConnection } from '@netlify/database';

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

let connection: DatabaseConnection | undefined;

function pool() {
  try {
    connection ??= getDatabase();
  } catch (error) {
    throw new DatabaseUnavailableError(error);
  }
  return connection.pool as unknown as Queryable & {
    connect(): Promise<Queryable & { release(): void }>;
  };
}

/** Runs one parameterised statement and returns its rows. */
export async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
  try {
    const { rows } = await pool().query(text, params);
    return rows as T[];
  } catch (error) {
    throw asUnavailable(error);
  }
}

/** Runs `work` in one transaction: every statement lands, or none does. */
export async function transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
  let client;
  try {
    client = await pool().connect();
  } catch (error) {
    throw asUnavailable(error);
  }
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw asUnavailable(error);
  } finally {
    client.release();
  }
}

/** Closes the pool (tests, and the local server on shutdown). */
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
