/**
 * Runs `work` between BEGIN and COMMIT on one connection: every statement lands, or, on any
 * error, none does (ROLLBACK, whose own failure is ignored: such a connection is broken anyway)
 * and the error goes on. The functions' database (db.ts) and npm start's migrations
 * (scripts/server/database.ts, which Node runs as it is: so this file imports nothing) both use it.
 */
export async function inTransaction<T>(
  connection: { query(sql: string): Promise<unknown> },
  work: () => Promise<T>,
): Promise<T> {
  await connection.query('BEGIN');
  try {
    const result = await work();
    await connection.query('COMMIT');
    return result;
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
