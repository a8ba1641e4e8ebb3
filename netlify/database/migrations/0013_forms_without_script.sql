-- Forms posted by a browser without JavaScript (plain HTML form posts).

-- The form's time trap needs a script; a post without one is delivered unverified (the honeypot
-- and the rate limit still apply). `timed` says whether the time trap ran, for the instructor.
ALTER TABLE contact_messages ADD COLUMN timed boolean NOT NULL DEFAULT true;
ALTER TABLE waivers ADD COLUMN timed boolean NOT NULL DEFAULT true;

-- How the signature was made, for the audit trail: 'drawn' on the pad, 'typed' (a typed name the
-- pad drew) or 'typed-server' (a typed name the server drew: the form was sent without script).
-- Waivers signed before this column existed were made on the pad.
ALTER TABLE waivers ADD COLUMN signature_kind text NOT NULL DEFAULT 'drawn'
  CHECK (signature_kind IN ('drawn', 'typed', 'typed-server'));
-- The name typed to sign, when the signature is a typed one.
ALTER TABLE waivers ADD COLUMN signature_name text;
