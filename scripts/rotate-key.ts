/**
 * `npm run rotate-key`: re-encrypts every stored health field and records PDF, every
 * booking's manage-link token and the Get Notified list's link tokens, with `WAIVER_ENCRYPTION_KEY`, opening each with the key that
 * sealed it (that one, or one of `WAIVER_ENCRYPTION_OLD_KEYS`), on the database `npm start` uses
 * (scripts/site-database.ts). Batches of `--batch=N` waivers, then bookings (100), each one
 * transaction, read back and checked before it commits (src/server/waiver/key-rotation.ts,
 * src/server/booking/key-rotation.ts): stopped anywhere, it leaves every row readable with the
 * keys given, and run again it finishes the job. It prints counts and key ids only, and
 * leaves a line in the records desk's access log. `--check` only counts what is left to do.
 *
 * Exit status: 0 when everything is sealed with the current key; 1 otherwise (and on an error).
 * Steps: docs/operations.md, "Changing the encryption key".
 */
import './source-imports.ts';
import { openSiteDatabase } from './site-database.ts';

const args = process.argv.slice(2);
const check = args.includes('--check');
const batchArg = args.find((arg) => arg.startsWith('--batch='));
const batchSize = batchArg ? Number(batchArg.slice('--batch='.length)) : 100;
if (!Number.isInteger(batchSize) || batchSize < 1) {
  console.error('rotate-key: --batch= takes a whole number of 1 or more');
  process.exit(2);
}
const unknown = args.filter((arg) => arg !== '--check' && !arg.startsWith('--batch='));
if (unknown.length > 0) {
  console.error(`rotate-key: unknown argument ${unknown.join(' ')} (use --check, --batch=N)`);
  process.exit(2);
}

const ACTOR = 'npm run rotate-key';
let status = 1;
let database: Awaited<ReturnType<typeof openSiteDatabase>> | undefined;
try {
  database = await openSiteDatabase(process.cwd());
  process.env.NETLIFY_DB_URL = database.url;
  const { keyring } = await import('../src/server/platform/crypto.ts');
  const rotation = await import('../src/server/waiver/key-rotation.ts');
  const links = await import('../src/server/booking/key-rotation.ts');
  const listLinks = await import('../src/server/list/key-rotation.ts');
  const { logAccess } = await import('../src/server/records/access-log.ts');
  const { currentId, byId } = keyring();
  const others = [...byId.keys()].filter((id) => id !== currentId);
  console.log(
    `rotate-key: current key ${currentId}; ${others.length > 0 ? `older keys ${others.join(', ')}` : 'no older keys given'} (database: ${database.kind})`,
  );
  if (check) {
    const left =
      (await rotation.valuesNotOnCurrentKey()) +
      (await links.linksNotOnCurrentKey()) +
      (await listLinks.listTokensNotOnCurrentKey());
    console.log(`rotate-key: ${left} stored value(s) not yet sealed with key ${currentId}`);
    status = left === 0 ? 0 : 1;
  } else {
    const started = performance.now();
    const summary = await rotation.rotateKey({
      batchSize,
      onBatch: ({ batch, waivers, fields, pdfs }) =>
        console.log(
          `rotate-key: batch ${batch} committed: ${waivers} waiver(s), ${fields} field(s), ${pdfs} PDF(s)`,
        ),
    });
    const bookings = await links.rotateBookingLinks({
      batchSize,
      onBatch: ({ batch, bookings }) =>
        console.log(`rotate-key: bookings' batch ${batch} committed: ${bookings} booking link(s)`),
    });
    const list = await listLinks.rotateListTokens({ batchSize });
    console.log(
      `rotate-key: ${list.tokens} link token(s) of the Get Notified list and re-sign requests re-encrypted`,
    );
    if (list.unreadable.length > 0) {
      console.error(
        `rotate-key: ${list.unreadable.length} link token(s) of the list or of re-sign requests could not be opened with the keys given and were left as they are: ${list.unreadable.join(', ')}`,
      );
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const tally = { ...summary.from };
    for (const [key, n] of Object.entries(bookings.from)) tally[key] = (tally[key] ?? 0) + n;
    const from = Object.entries(tally)
      .map(([key, n]) => `${n} from ${key}`)
      .join(', ');
    console.log(
      `rotate-key: done in ${seconds} s: ${summary.waivers} waiver(s), ${summary.fields} field(s), ${summary.pdfs} PDF(s), ${bookings.bookings} booking link(s) re-encrypted to key ${summary.toKey}${from ? ` (${from})` : ''}`,
    );
    if (summary.unreadable.length > 0) {
      console.error(
        `rotate-key: ${summary.unreadable.length} waiver(s) could not be opened with the keys given and were left as they are: ${summary.unreadable.join(', ')}`,
      );
    }
    if (bookings.unreadable.length > 0) {
      console.error(
        `rotate-key: ${bookings.unreadable.length} booking link(s) could not be opened or rebuilt with the keys given and were left as they are: ${bookings.unreadable.join(', ')}`,
      );
    }
    const remaining = summary.remaining + bookings.remaining + list.remaining;
    console.log(
      remaining === 0
        ? `rotate-key: every stored value is sealed with key ${summary.toKey}; the older keys can go`
        : `rotate-key: ${remaining} stored value(s) are still not sealed with key ${summary.toKey}: keep the older keys`,
    );
    await logAccess(
      { email: ACTOR },
      {
        action: 'rotate-key',
        detail: {
          toKey: summary.toKey,
          from: summary.from,
          waivers: summary.waivers,
          fields: summary.fields,
          pdfs: summary.pdfs,
          unreadable: summary.unreadable,
          bookings: bookings.bookings,
          bookingsFrom: bookings.from,
          unreadableBookings: bookings.unreadable,
          listTokens: list.tokens,
          unreadableListTokens: list.unreadable,
          remaining,
        },
      },
    );
    status = remaining === 0 ? 0 : 1;
  }
} catch (error) {
  // The error's name and message: a message here says which key or row, never what it holds.
  console.error(`rotate-key: stopped: ${(error as Error)?.message ?? String(error)}`);
  console.error('rotate-key: every batch before this one is done; run it again to finish.');
} finally {
  const { closeDatabase } = await import('../src/server/platform/db.ts');
  await closeDatabase();
  await database?.close();
}
process.exit(status);
