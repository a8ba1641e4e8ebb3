import type { DeskBooking } from '../../shared/desk-api';
import { Actions, outcomeOf, type Act } from './BookingActions';
import { Contact } from './Contact';
import type { StudioFormats } from './format';
import { PaymentBadge } from './Payment';
import type { Outcome } from './useLoad';
import { Badge, CARD, Status, StatusBadge } from './ui';

/** One consultation or private session: who, where, their waiver and payment, and her actions. */
export function BookingCard({
  booking,
  format,
  at,
  busy,
  act,
  acted,
}: {
  booking: DeskBooking;
  format: StudioFormats;
  at: number;
  busy: boolean;
  act: Act;
  acted: { id: string; outcome: Outcome } | undefined;
}) {
  const title = `booking-${booking.id}`;
  const cancelled = booking.cancelledAt !== null;
  return (
    <article className={`${CARD} space-y-2`} aria-labelledby={title}>
      <header className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h4 id={title} className="font-sans text-base font-semibold">
          {format.span(booking.start, booking.end)} · {booking.title}
        </h4>
        <span className="flex flex-wrap gap-2">
          {cancelled && <Badge tone="warn">Cancelled</Badge>}
          {booking.noShow && <Badge tone="bad">No-show</Badge>}
          {booking.outsideHours && <Badge tone="warn">Outside your hours</Badge>}
        </span>
      </header>
      <Contact person={booking.person} />
      {booking.address && (
        <p className="text-sm break-words">At their address: {booking.address}</p>
      )}
      <p className="flex flex-wrap gap-2">
        <StatusBadge status={booking.person.waiverStatus} />
        {booking.payment ? (
          <PaymentBadge
            payment={booking.payment}
            cancelled={cancelled}
            where={booking.address ? 'home' : 'studio'}
          />
        ) : (
          <Badge tone="good">Free</Badge>
        )}
      </p>
      {booking.outsideHours && (
        <p className="text-sm text-ink">
          Your weekly hours no longer include this time: it was booked before they changed. It stays
          booked; cancel it if you cannot take it.
        </p>
      )}
      {cancelled && (
        <p className="text-sm text-muted">
          Cancelled {format.at(booking.cancelledAt!)}{' '}
          {booking.cancelledBy === 'visitor'
            ? 'by them'
            : `by ${booking.cancelledBy ?? 'the studio'}`}
        </p>
      )}
      <Status>{outcomeOf(acted, booking.id)}</Status>
      <Actions
        kind={booking.kind}
        id={booking.id}
        who={booking.person.name}
        what={`${booking.title}, ${format.at(booking.start)}`}
        where={booking.address ? 'home' : 'studio'}
        payment={booking.payment}
        cancelled={cancelled}
        begun={Date.parse(booking.start) <= at}
        noShow={booking.noShow}
        busy={busy}
        act={act}
        titleId={title}
      />
    </article>
  );
}
