-- Money that always agrees (docs/payments.md).

-- The page of an open checkout, so that a booking asked for again (a double click, a form sent
-- twice) is answered with the checkout already open instead of asking Stripe for another.
ALTER TABLE payments ADD COLUMN checkout_url text CHECK (checkout_url ~ '^https?://');
