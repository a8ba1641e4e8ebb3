import { dollars } from '../../shared/money';
import {
  ACTION_WORDS,
  ACTOR_WORDS,
  type LogRow,
  type RetentionRemoved,
} from '../../shared/desk-api';
import { count, removedWords, when } from './format';
import { href } from './route';
import { usePages } from './useLoad';
import { desk } from './api';
import { CARD, Failed, LINK, Loading, PagedList, ScreenTitle } from './ui';

/** A line's detail in words: counts and choices, never a record's content (it holds none). */
function detail(row: LogRow): string | undefined {
  const d = row.detail;
  switch (row.action) {
    case 'export-waivers':
    case 'export-messages': {
      const range = d.from || d.to ? `, ${String(d.from ?? '…')} to ${String(d.to ?? '…')}` : '';
      return `${count(Number(d.rows), 'row')}${range}${d.health ? ', health information included' : ''}`;
    }
    case 'erase':
      return [
        count(Number(d.waivers), 'waiver'),
        count(Number(d.messages), 'message'),
        count(Number(d.bookings ?? 0), 'consultation'),
        count(Number(d.mails), 'e-mail'),
        count(Number(d.pdfs), 'signed PDF'),
      ].join(', ');
    case 'send-again':
      return d.sent ? 'sent' : 'not sent';
    case 'rotate-key': {
      const left = Number(d.remaining);
      // Runs before booking links were sealed logged no `bookings`.
      const links = Number(d.bookings ?? 0);
      return [
        `${count(Number(d.waivers), 'waiver')} (${count(Number(d.fields), 'field')}, ${count(Number(d.pdfs), 'signed PDF')})${links > 0 ? `, ${count(links, 'consultation link')}` : ''} to key ${String(d.toKey)}`,
        left > 0 ? `${count(left, 'value')} still on an older key` : 'nothing left on an older key',
      ].join(', ');
    }
    case 'retention':
      return removedWords(d.removed as RetentionRemoved[] | undefined);
    case 'restore':
      return `every sign-in, kiosk and calendar address ended; made again: ${[
        count(Number(d.erasures ?? 0), 'erasure'),
        count(Number(d.unsubscribed ?? 0), 'unsubscribe'),
        count(Number(d.cancelled ?? 0), 'cancellation'),
      ].join(', ')}`;
    case 'cancel-booking':
    case 'cancel-session':
    case 'cancel-place':
    case 'cancel-class':
      return d.note ? 'with a note' : 'without a note';
    case 'refund':
      return typeof d.amountCents === 'number' ? dollars(d.amountCents) : undefined;
    default:
      return undefined;
  }
}

function record(row: LogRow) {
  if (!row.recordKind || !row.recordId) return undefined;
  if (row.recordKind === 'waiver') {
    return (
      <a href={href(`waivers/${row.recordId}`)} className={LINK}>
        Waiver {row.recordId.slice(0, 8)}
      </a>
    );
  }
  const kinds: Record<string, string> = {
    message: 'Message',
    booking: 'Booking',
    block: 'Blocked time',
  };
  const id = row.recordKind === 'booking' ? row.recordId.slice(0, 8) : row.recordId;
  return `${kinds[row.recordKind] ?? 'E-mail'} ${id}`;
}

export default function AccessLog() {
  const list = usePages('log', (after, options) => desk.log.$get({ query: { after } }, options));
  return (
    <div className="space-y-6">
      <ScreenTitle>Access log</ScreenTitle>
      <p className="text-muted">
        Every sign-in, every opening of a waiver with health information, every download, export and
        erasure, every change of the encryption key, every daily clean-up that removed records and
        every restore from a backup, every change to a booking or payment, newest first.
      </p>
      {list.loading && <Loading what="the access log" />}
      {list.error && <Failed error={list.error} retry={list.reload} />}
      <PagedList list={list} ordered className="space-y-2" what="entries">
        {(row) => (
          <li key={row.id} className={`${CARD} text-sm`}>
            <p className="flex flex-wrap justify-between gap-x-4">
              <span className="font-semibold">
                {ACTION_WORDS[row.action as keyof typeof ACTION_WORDS] ?? row.action}
              </span>
              <span className="text-muted">{when(row.at)}</span>
            </p>
            <p className="mt-1 break-words text-muted">
              {ACTOR_WORDS[row.actor] ?? row.actor}
              {record(row) && <> · {record(row)}</>}
              {detail(row) && <> · {detail(row)}</>}
            </p>
          </li>
        )}
      </PagedList>
    </div>
  );
}
