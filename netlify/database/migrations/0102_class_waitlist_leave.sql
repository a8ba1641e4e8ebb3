-- A person waiting for a place in a full class can leave its waitlist: the link in the mail
-- saying they joined (and the page they land on when they join) holds a token of its own, stored
-- as its SHA-256 and sealed (so a mail composed later carries it), as a place's manage link.
-- Leaving makes the entry 'left'; an entry made before has no such link.
ALTER TABLE class_waitlist
  ADD COLUMN leave_token_sha256 char(64) UNIQUE CHECK (leave_token_sha256 ~ '^[0-9a-f]{64}$'),
  ADD COLUMN leave_token_sealed text CHECK (leave_token_sealed LIKE 'enc2:%');

ALTER TABLE class_waitlist DROP CONSTRAINT class_waitlist_status_check;
ALTER TABLE class_waitlist ADD CONSTRAINT class_waitlist_status_check
  CHECK (status IN ('waiting', 'offered', 'claimed', 'lapsed', 'closed', 'spam', 'left'));
