-- The complimentary consultation visitors book on /consultation (docs/architecture.md, "Bookings").

-- One row per booking. `held` is what the booking takes of the instructor's time: the
-- consultation and the buffer after it, [start, end + buffer). Postgres, not the code, refuses
-- two live bookings whose held spans overlap, whichever instance inserts or moves them: a
-- cancelled booking, or one taken for spam, holds nothing.
CREATE TABLE consultation_bookings (
  id uuid PRIMARY KEY,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  held tstzrange NOT NULL,
  name text NOT NULL,
  email text NOT NULL,
  phone text NOT NULL DEFAULT '',
  topic text NOT NULL DEFAULT '',
  -- Raised on every change the visitor's calendar must hear of (a move, a cancellation): the
  -- invite's SEQUENCE, and part of the outbox ref of each mail (`<id>:<sequence>`).
  sequence integer NOT NULL DEFAULT 0 CHECK (sequence >= 0),
  -- The manage link's token is never stored: only its SHA-256, to find the booking by it.
  manage_token_sha256 char(64) NOT NULL UNIQUE CHECK (manage_token_sha256 ~ '^[0-9a-f]{64}$'),
  -- The site address the booking was made at, which the links in its mails point to.
  origin text NOT NULL,
  submission_id uuid UNIQUE,
  spam_reason text,
  timed boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  -- 'visitor' (from the manage page) or the staff address that cancelled it on the desk.
  cancelled_by text,
  -- The studio's note to the visitor, sent with the cancellation.
  cancel_note text,
  CHECK (ends_at > starts_at),
  CHECK (lower(held) = starts_at AND upper(held) >= ends_at AND NOT lower_inf(held)),
  CONSTRAINT consultation_bookings_no_overlap
    EXCLUDE USING gist (held WITH &&) WHERE (cancelled_at IS NULL AND spam_reason IS NULL)
);

-- What the booking page, the desk and the feed read: bookings by time.
CREATE INDEX consultation_bookings_start_idx ON consultation_bookings (starts_at);
-- What the desk's waiver check and an erasure look a visitor up by.
CREATE INDEX consultation_bookings_email_idx ON consultation_bookings (lower(email));

-- Spans the instructor blocked on the desk (a holiday, a day off, an afternoon): no slot is
-- offered inside one.
CREATE TABLE consultation_blocks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  span tstzrange NOT NULL CHECK (NOT isempty(span) AND NOT lower_inf(span) AND NOT upper_inf(span)),
  note text NOT NULL DEFAULT '',
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX consultation_blocks_span_idx ON consultation_blocks USING gist (span);

-- The instructor's own calendar (CONSULTATION_BUSY_ICS_URL), read at most once a minute by
-- whichever instance finds it stale, and shared by all of them. One row. The address itself is
-- a secret and is not stored: `address_sha256` tells a copy of another address from this one's.
CREATE TABLE consultation_busy_feed (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  address_sha256 char(64) NOT NULL,
  -- The last copy that could be read, as it came, and when it was read.
  calendar text,
  fetched_at timestamptz,
  -- Its busy spans as [[start, end], ...] (ISO instants), worked out for busy_from..busy_to when
  -- it was read, so that a page does not parse the calendar again.
  busy jsonb,
  busy_from timestamptz,
  busy_to timestamptz,
  -- Events in the copy, and how many of them could not be read.
  events integer,
  unreadable integer,
  -- The last attempt to read it, and what went wrong then (NULL when it went well). Never the
  -- address.
  checked_at timestamptz,
  error text,
  -- While one instance reads the calendar, the others keep using the last copy.
  refreshing_until timestamptz
);

-- The secret address of the instructor's subscribable feed of bookings: only its SHA-256. One
-- row; making a new address replaces it, and the old one stops working.
CREATE TABLE consultation_feed_tokens (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  token_sha256 char(64) NOT NULL CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A mail the outbox no longer owes: its composer found nothing to send (a reminder for a
-- booking that was cancelled or moved since). Neither sent nor given up on, never due again.
ALTER TABLE mail_outbox ADD COLUMN retired_at timestamptz;
