import { z } from 'zod';
import { flag, milliseconds, number, text } from './kinds.ts';

/**
 * `npm start`'s own settings (scripts/server/) and the tools' (`npm run backup`, `restore`), in
 * the order of docs/settings.md's table. The functions never read them.
 */
export const startSettings = z.object({
  HOST: text({ about: 'where `npm start` listens: its address', fallback: '`127.0.0.1`' }),
  PORT: number(
    8888,
    { min: 0, whole: true },
    {
      about: 'where `npm start` listens: its port (`0`: any free port)',
    },
  ),
  TRUST_PROXY: flag(
    '`1` behind a TLS proxy: the visitor is the last address of `X-Forwarded-For`, the scheme `X-Forwarded-Proto`',
  ),
  LOCAL_DB_DIR: text({
    about: 'where the embedded database keeps its data',
    fallback: '`.netlify/db`',
  }),
  NETLIFY_DB_URL: text({
    about: 'the Postgres connection string; set for `npm start`, it replaces the embedded database',
    fallback: 'set by Netlify; unset locally (the embedded database)',
    secret: true,
  }),
  OUTBOX_INTERVAL_MS: milliseconds(
    30_000,
    { about: 'how often `npm start` looks for mail that is due (`0`: never)' },
    0,
  ),
  MAX_BODY_BYTES: number(
    2 * 1024 * 1024,
    { min: 0 },
    {
      about: "the largest request body `npm start` reads (the forms' own caps are 32 KB and 1 MB)",
      fallback: '`2097152` (2 MB)',
    },
  ),
  BODY_IDLE_TIMEOUT_MS: milliseconds(
    10_000,
    { about: 'the longest pause within a body before `408`' },
    0,
  ),
  REQUEST_TIMEOUT_MS: milliseconds(
    30_000,
    { about: 'the longest a whole request may take to arrive before `408`' },
    0,
  ),
  HEADERS_TIMEOUT_MS: milliseconds(
    10_000,
    { about: 'the longest the headers may take to arrive before `408`' },
    0,
  ),
  FUNCTION_TIMEOUT_MS: milliseconds(
    30_000,
    {
      about: 'a function that has not answered by then gets the visitor a `504`',
      fallback: "`30000` (Netlify's)",
    },
    0,
  ),
  SHUTDOWN_TIMEOUT_MS: milliseconds(
    5_000,
    {
      about:
        'on `SIGTERM` or `SIGINT`, how long requests in flight and mail being sent may still take',
    },
    0,
  ),
  POSTGRES_BIN: text({
    about:
      "where PostgreSQL's programs are: `pg_dump` and `pg_restore` for `npm run backup` and `restore`; for the tests, `initdb`, `pg_ctl` and `postgres`",
    fallback: '`pg_dump` on `PATH`, else the newest `/usr/lib/postgresql/<version>/bin`',
  }),
  RESTORE_REPLACES: text({
    about:
      "for `npm run restore`: the database it replaces (a connection string, or the embedded one's old folder), whose erasures, unsubscribes and cancellations since the backup it makes again",
    fallback: 'none: `npm run restore` asks for it',
    secret: true,
  }),
});
