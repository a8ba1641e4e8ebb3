-- Paying online through the studio's own Stripe account (docs/architecture.md, "Payments").

-- One row per Stripe Checkout Session the site opened for a booking. The booking itself is
-- `payment = 'held'` while the checkout is open, and becomes 'paid' only when Stripe's event says
-- so and the session, read again from Stripe, agrees; never on the visitor's return alone.
CREATE TABLE payments (
  id uuid PRIMARY KEY,
  -- What is paid for: a session (session_bookings) or a class place.
  booking_kind text NOT NULL CHECK (booking_kind IN ('session', 'class')),
  booking_id uuid NOT NULL,
  -- Stripe's Checkout Session (cs_…): how an event is matched to its booking.
  checkout_session text NOT NULL UNIQUE CHECK (checkout_session ~ '^cs_\w+$'),
  -- The price in content when the checkout was opened, in cents: what Stripe was asked for.
  amount_cents integer NOT NULL CHECK (amount_cents > 0),
  currency char(3) NOT NULL,
  -- 'open' while the visitor may pay; 'paid' when Stripe says the payment succeeded; 'expired'
  -- when the checkout lapsed unpaid.
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'paid', 'expired')),
  -- Stripe's PaymentIntent (pi_…): the reference on her bank statement's report, and what a
  -- refund is made against.
  payment_intent text UNIQUE,
  -- Stripe's fee, in cents, when Stripe reports it.
  fee_cents integer CHECK (fee_cents >= 0),
  expires_at timestamptz NOT NULL,
  paid_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((state = 'paid') = (paid_at IS NOT NULL AND payment_intent IS NOT NULL))
);

-- A booking has at most one checkout it can still be paid through, and at most one that was paid.
CREATE UNIQUE INDEX payments_one_open ON payments (booking_kind, booking_id) WHERE state = 'open';
CREATE UNIQUE INDEX payments_one_paid ON payments (booking_kind, booking_id) WHERE state = 'paid';

-- Refunds, asked for on the desk, by a cancellation within the policy, or because a payment came
-- in for a place that was no longer free. Each is sent to Stripe with its own idempotency key, so
-- a retried request never refunds twice; a row is written before Stripe is asked ('pending') and
-- settled by Stripe's answer, and a pending one is asked again (same key) until it is.
CREATE TABLE payment_refunds (
  id uuid PRIMARY KEY,
  payment_id uuid NOT NULL REFERENCES payments (id),
  amount_cents integer NOT NULL CHECK (amount_cents > 0),
  -- 'policy' (cancelled within the cancellation policy), 'taken' (paid after the place went),
  -- 'class-cancelled', 'studio' (her decision on the desk).
  reason text NOT NULL CHECK (reason IN ('policy', 'taken', 'class-cancelled', 'studio')),
  -- The staff address that pressed Refund, or 'site'.
  requested_by text NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
  stripe_refund text UNIQUE CHECK (stripe_refund ~ '^re_\w+$'),
  error text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);

CREATE INDEX payment_refunds_payment_idx ON payment_refunds (payment_id);
CREATE INDEX payment_refunds_pending_idx ON payment_refunds (created_at) WHERE state = 'pending';

-- Never more refunded than was paid, whichever instance asks: the sum of a payment's refunds
-- that are not failed is checked under a lock on the payment's row.
CREATE FUNCTION payment_refunds_within_paid() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  paid integer;
  refunded integer;
BEGIN
  SELECT amount_cents INTO paid FROM payments WHERE id = NEW.payment_id AND state = 'paid' FOR UPDATE;
  IF paid IS NULL THEN
    RAISE EXCEPTION 'payment % is not paid', NEW.payment_id USING ERRCODE = 'check_violation';
  END IF;
  SELECT coalesce(sum(amount_cents), 0) INTO refunded
    FROM payment_refunds WHERE payment_id = NEW.payment_id AND state <> 'failed';
  IF refunded > paid THEN
    RAISE EXCEPTION 'refunds of payment % exceed what was paid', NEW.payment_id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_refunds_within_paid';
  END IF;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER payment_refunds_within_paid
  AFTER INSERT OR UPDATE OF amount_cents, state ON payment_refunds
  FOR EACH ROW EXECUTE FUNCTION payment_refunds_within_paid();

-- Every Stripe event the webhook handled, by its id: an event delivered again (Stripe retries,
-- and may send the same event twice) changes nothing more.
CREATE TABLE stripe_events (
  id text PRIMARY KEY CHECK (id ~ '^evt_\w+$'),
  type text NOT NULL,
  -- What the site did with it, for the log: 'paid', 'released', 'refunded: place taken', 'ignored: …'.
  outcome text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
