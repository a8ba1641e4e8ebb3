-- The small group classes (content/classes.yaml): their dates, the places booked in them, and
-- their waitlists (docs/architecture.md, "Classes").

-- One occurrence of a class: made when its first place is booked, or on the desk when the
-- instructor adds a single date or cancels one (then it is made cancelled, and the timetable
-- skips it). It keeps the name, length, places, minimum and price it was made with, so a later
-- edit of the timetable never changes a class people booked.
CREATE TABLE class_dates (
  id uuid PRIMARY KEY,
  -- The timetable class it is a date of (classKey in src/shared/classes/timetable.ts), or a
  -- key of the desk's own for a single date added there.
  class_key text NOT NULL CHECK (class_key ~ '^[a-z0-9-]{1,120}$'),
  title text NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  capacity integer NOT NULL CHECK (capacity BETWEEN 1 AND 20),
  minimum integer NOT NULL CHECK (minimum >= 1),
  price_cents integer NOT NULL CHECK (price_cents >= 0),
  -- NULL for a date of the timetable; the staff address that added it on the desk otherwise.
  added_by text,
  -- The instructor's calendar invite of the class: raised on each change (a cancellation).
  sequence integer NOT NULL DEFAULT 0 CHECK (sequence >= 0),
  -- When the cutoff's step ran for it (no offers from then on; below its minimum, cancelled).
  cut_off_at timestamptz,
  cancelled_at timestamptz,
  -- 'minimum' (too few at the cutoff) or 'studio' (the desk).
  cancel_reason text CHECK (cancel_reason IN ('minimum', 'studio')),
  cancelled_by text,
  cancel_note text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT class_dates_once UNIQUE (class_key, starts_at),
  -- What each place's row refers to, so that a place never outnumbers the class (below).
  CONSTRAINT class_dates_capacity UNIQUE (id, capacity),
  CHECK (ends_at > starts_at),
  CHECK (minimum <= capacity),
  CHECK ((cancelled_at IS NULL) = (cancel_reason IS NULL))
);

CREATE INDEX class_dates_start_idx ON class_dates (starts_at);

-- One place in a class. A live place (offered to the waitlist's first person, or booked) holds a
-- seat number from 1 to the class's capacity, and no two live places of a class hold the same
-- number: Postgres, not the code, refuses the place that would be one too many, whichever
-- instance inserts it (UNIQUE (class_date_id, seat_no) and the CHECK on seat_no). The class's
-- capacity is copied here through a foreign key that follows it (ON UPDATE CASCADE), so
-- lowering a class's capacity under a place already held is refused too. A place given up
-- (cancelled, a lapsed offer or hold, spam) keeps its row and gives its number back (NULL).
CREATE TABLE class_seats (
  id uuid PRIMARY KEY,
  class_date_id uuid NOT NULL,
  capacity integer NOT NULL,
  seat_no integer,
  -- 'offered': held for a waitlist offer until it is claimed or lapses; 'booked'; 'cancelled';
  -- 'lapsed' (an offer or an online checkout not completed in time); 'spam' (kept, holds nothing).
  status text NOT NULL CHECK (status IN ('offered', 'booked', 'cancelled', 'lapsed', 'spam')),
  -- 'due' at the studio, 'paid', or 'held' while an online checkout is open, until held_until.
  payment text NOT NULL DEFAULT 'due' CHECK (payment IN ('due', 'held', 'paid')),
  held_until timestamptz,
  paid_at timestamptz,
  paid_by text,
  no_show boolean NOT NULL DEFAULT false,
  name text NOT NULL,
  email text NOT NULL,
  -- One mailbox however it is written: lower case, without a +tag (one place per person).
  mailbox text NOT NULL,
  -- The invite's SEQUENCE, raised on every change the calendar must hear of; part of the outbox
  -- ref of each mail about the place (`<id>:<sequence>`).
  sequence integer NOT NULL DEFAULT 0 CHECK (sequence >= 0),
  -- The manage link's token is never stored: only its SHA-256, and sealed (as consultations').
  manage_token_sha256 char(64) NOT NULL UNIQUE CHECK (manage_token_sha256 ~ '^[0-9a-f]{64}$'),
  manage_token_sealed text NOT NULL CHECK (manage_token_sealed LIKE 'enc2:%'),
  origin text NOT NULL,
  submission_id uuid UNIQUE,
  request_sha256 text,
  client_network text,
  timed boolean NOT NULL DEFAULT true,
  spam_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  -- 'visitor', 'minimum' (the class was cancelled at its cutoff), or the staff address.
  cancelled_by text,
  cancel_note text,
  CONSTRAINT class_seats_class FOREIGN KEY (class_date_id, capacity)
    REFERENCES class_dates (id, capacity) ON UPDATE CASCADE ON DELETE CASCADE,
  CONSTRAINT class_seats_within_capacity CHECK (seat_no BETWEEN 1 AND capacity),
  CONSTRAINT class_seats_one_per_seat UNIQUE (class_date_id, seat_no),
  CONSTRAINT class_seats_live_numbered CHECK ((seat_no IS NOT NULL) = (status IN ('offered', 'booked'))),
  CHECK ((payment = 'held') = (held_until IS NOT NULL)),
  CHECK ((payment = 'paid') = (paid_at IS NOT NULL)),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);

-- One live place per person in a class.
CREATE UNIQUE INDEX class_seats_one_per_person ON class_seats (class_date_id, mailbox)
  WHERE seat_no IS NOT NULL;
CREATE INDEX class_seats_mailbox_idx ON class_seats (mailbox);

-- The waitlist of a full class, in the order people joined (`place`). When a place frees, the
-- first person waiting is offered it: a place row 'offered' holds the seat for them until
-- offer_expires_at, and the claim link's token is stored as its SHA-256 (and sealed, so the
-- mail composed later carries it).
CREATE TABLE class_waitlist (
  id uuid PRIMARY KEY,
  class_date_id uuid NOT NULL REFERENCES class_dates (id) ON DELETE CASCADE,
  place bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  email text NOT NULL,
  mailbox text NOT NULL,
  origin text NOT NULL,
  submission_id uuid UNIQUE,
  request_sha256 text,
  client_network text,
  timed boolean NOT NULL DEFAULT true,
  spam_reason text,
  -- 'waiting'; 'offered' (a place held for them); 'claimed'; 'lapsed' (the offer ran out);
  -- 'closed' (the cutoff came with no place for them, or the class was cancelled); 'spam'.
  status text NOT NULL DEFAULT 'waiting'
    CHECK (status IN ('waiting', 'offered', 'claimed', 'lapsed', 'closed', 'spam')),
  seat_id uuid REFERENCES class_seats (id) ON DELETE SET NULL,
  claim_token_sha256 char(64) UNIQUE CHECK (claim_token_sha256 ~ '^[0-9a-f]{64}$'),
  claim_token_sealed text CHECK (claim_token_sealed LIKE 'enc2:%'),
  offered_at timestamptz,
  offer_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'offered' OR (seat_id IS NOT NULL AND claim_token_sha256 IS NOT NULL
    AND claim_token_sealed IS NOT NULL AND offer_expires_at IS NOT NULL))
);

-- One place in the queue per person and class.
CREATE UNIQUE INDEX class_waitlist_one_per_person ON class_waitlist (class_date_id, mailbox)
  WHERE status IN ('waiting', 'offered');
CREATE INDEX class_waitlist_queue_idx ON class_waitlist (class_date_id, place)
  WHERE status = 'waiting';
CREATE INDEX class_waitlist_offers_idx ON class_waitlist (offer_expires_at)
  WHERE status = 'offered';
