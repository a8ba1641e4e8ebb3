-- Money that always agrees (docs/payments.md): a payment that is not the price asked for.

-- What Stripe actually took, when it differs from what the site asked for (a session paid in
-- another currency or for another amount: refunded in full, the booking not confirmed).
ALTER TABLE payments ADD COLUMN received_cents integer CHECK (received_cents >= 0);
ALTER TABLE payments ADD COLUMN received_currency char(3);

-- 'mismatch': the payment was not the price asked for, so it is given back whole.
ALTER TABLE payment_refunds DROP CONSTRAINT payment_refunds_reason_check;
ALTER TABLE payment_refunds ADD CONSTRAINT payment_refunds_reason_check
  CHECK (reason IN ('policy', 'taken', 'class-cancelled', 'studio', 'mismatch'));

-- A refund is counted against what was received when that differs from what was asked.
CREATE OR REPLACE FUNCTION payment_refunds_within_paid() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  paid integer;
  refunded integer;
BEGIN
  SELECT coalesce(received_cents, amount_cents) INTO paid
    FROM payments WHERE id = NEW.payment_id AND state = 'paid' FOR UPDATE;
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
