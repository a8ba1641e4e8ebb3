-- What a stored submission said: a keyed hash (HMAC-SHA-256, base64url) of its fields as the
-- form's schema read them, made by the form pipeline (src/server/request/pipeline.ts). A repeat
-- of a submission id is answered like the first only when it says the same; another request
-- under a known id (a replayed id with other fields) is refused and learns nothing of the row.
-- Null for a row stored before this column: a repeat of it is refused, never answered with it.
ALTER TABLE contact_messages ADD COLUMN request_sha256 text;
ALTER TABLE waivers ADD COLUMN request_sha256 text;
ALTER TABLE consultation_bookings ADD COLUMN request_sha256 text;
