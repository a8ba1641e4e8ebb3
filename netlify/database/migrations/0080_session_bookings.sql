-- Private and in-home sessions booked on the site (docs/architecture.md, "Bookings").

-- What every kind of booking holds of the instructor's time, one row per live booking, under
-- one exclusion constraint: Postgres, not the code, refuses a session over a consultation, a
-- consultation over a session, or two sessions at once, whichever instance writes them and in
-- whichever order. Each kind's table keeps its own rows and columns; a trigger on it writes,
-- moves and removes its row here (a cancelled booking, or one taken for spam, holds nothing), so
-- the consultation's code goes on inserting and updating consultation_bookings as before and
-- meets the same SQLSTATE (23P01) when the time is held by another kind. A later kind (a class
-- date, a place held while an online checkout is open) adds its column here and to the CHECK.
CREATE TABLE held_time (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  span tstzrange NOT NULL CHECK (NOT isempty(span) AND NOT lower_inf(span) AND NOT upper_inf(span)),
  consultation_id uuid UNIQUE REFERENCES consultation_bookings (id) ON DELETE CASCADE,
  session_id uuid UNIQUE,
  CHECK (num_nonnulls(consultation_id, session_id) = 1),
  CONSTRAINT held_time_no_overlap EXCLUDE USING gist (span WITH &&)
);

-- One row per private or in-home session. `held` is what it takes of her time: for a session at
-- the studio [start, end + buffer); at the visitor's address the travel time before and after
-- too, [start - travel, end + travel + buffer).
CREATE TABLE session_bookings (
  id uuid PRIMARY KEY,
  -- The session's file in content/sessions (`private`, `in-home`), and its title as booked.
  session_type text NOT NULL CHECK (session_type ~ '^[a-z0-9-]{1,60}$'),
  session_title text NOT NULL,
  -- 'studio' or 'home' (the visitor's address, below).
  place text NOT NULL CHECK (place IN ('studio', 'home')),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  held tstzrange NOT NULL,
  name text NOT NULL,
  email text NOT NULL,
  phone text NOT NULL DEFAULT '',
  -- Where an in-home session happens, as the visitor wrote it, and its ZIP code (one of the
  -- areas content lists when it was booked).
  street text,
  postal_code text CHECK (postal_code ~ '^\d{5}$'),
  -- The price from content when it was booked, in cents: what is due (the browser never says).
  amount_cents integer NOT NULL CHECK (amount_cents >= 0),
  currency char(3) NOT NULL DEFAULT 'usd',
  -- 'due': to be paid at the studio; 'paid': recorded paid (on the desk, or later online);
  -- 'held': the place kept while an online checkout is open, until `hold_expires_at` (the next
  -- issue, paying online: a held booking is confirmed paid, or released when it expires).
  payment text NOT NULL DEFAULT 'due' CHECK (payment IN ('due', 'held', 'paid')),
  hold_expires_at timestamptz,
  paid_at timestamptz,
  -- The staff address that recorded the payment, or 'checkout'.
  paid_by text,
  -- Marked on the desk when the visitor did not come.
  no_show_at timestamptz,
  no_show_by text,
  -- Raised on every change the visitor's calendar must hear of (a move, a cancellation): the
  -- invite's SEQUENCE, and part of the outbox ref of each mail (`<id>:<sequence>`).
  sequence integer NOT NULL DEFAULT 0 CHECK (sequence >= 0),
  -- The manage link's token: its SHA-256 to find the booking by it, and sealed (`enc2`, bound to
  -- the row and this column) so a mail composed later carries the same link.
  manage_token_sha256 char(64) NOT NULL UNIQUE CHECK (manage_token_sha256 ~ '^[0-9a-f]{64}$'),
  manage_token_sealed text NOT NULL CHECK (manage_token_sealed LIKE 'enc2:%'),
  -- The site address the booking was made at, which the links in its mails point to.
  origin text NOT NULL,
  submission_id uuid UNIQUE,
  request_sha256 text,
  spam_reason text,
  timed boolean NOT NULL DEFAULT true,
  client_network text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  -- 'visitor' (from the manage page) or the staff address that cancelled it on the desk.
  cancelled_by text,
  cancel_note text,
  CHECK (ends_at > starts_at),
  CHECK (lower(held) <= starts_at AND upper(held) >= ends_at AND NOT lower_inf(held)),
  CHECK (place = 'studio' OR (street IS NOT NULL AND postal_code IS NOT NULL)),
  CHECK ((payment = 'held') = (hold_expires_at IS NOT NULL)),
  CHECK ((payment = 'paid') = (paid_at IS NOT NULL)),
  CHECK ((no_show_at IS NULL) = (no_show_by IS NULL))
);

ALTER TABLE held_time
  ADD CONSTRAINT held_time_session_fk
  FOREIGN KEY (session_id) REFERENCES session_bookings (id) ON DELETE CASCADE;

CREATE INDEX session_bookings_start_idx ON session_bookings (starts_at);
CREATE INDEX session_bookings_email_idx ON session_bookings (lower(email));

-- A booking's row in held_time follows the booking: written while it is live, moved with it,
-- removed when it is cancelled or taken for spam. The time another kind holds fails the insert or
-- the update of the booking itself (23P01, constraint held_time_no_overlap).
CREATE FUNCTION hold_consultation_time() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.cancelled_at IS NULL AND NEW.spam_reason IS NULL THEN
    INSERT INTO held_time (span, consultation_id) VALUES (NEW.held, NEW.id)
      ON CONFLICT (consultation_id) DO UPDATE SET span = EXCLUDED.span
      WHERE held_time.span IS DISTINCT FROM EXCLUDED.span;
  ELSE
    DELETE FROM held_time WHERE consultation_id = NEW.id;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION hold_session_time() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.cancelled_at IS NULL AND NEW.spam_reason IS NULL THEN
    INSERT INTO held_time (span, session_id) VALUES (NEW.held, NEW.id)
      ON CONFLICT (session_id) DO UPDATE SET span = EXCLUDED.span
      WHERE held_time.span IS DISTINCT FROM EXCLUDED.span;
  ELSE
    DELETE FROM held_time WHERE session_id = NEW.id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER consultation_bookings_hold_time
  AFTER INSERT OR UPDATE OF held, cancelled_at, spam_reason ON consultation_bookings
  FOR EACH ROW EXECUTE FUNCTION hold_consultation_time();

CREATE TRIGGER session_bookings_hold_time
  AFTER INSERT OR UPDATE OF held, cancelled_at, spam_reason ON session_bookings
  FOR EACH ROW EXECUTE FUNCTION hold_session_time();

-- The consultations already live hold their time from now on.
INSERT INTO held_time (span, consultation_id)
  SELECT held, id FROM consultation_bookings WHERE cancelled_at IS NULL AND spam_reason IS NULL;
