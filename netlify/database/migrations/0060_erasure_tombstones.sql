-- What each erasure deleted, by record id only: nothing of what the records held, nor the
-- address they were about. Kept for good (no retention rule: it holds no personal data), so that
-- `npm run restore` of a backup made before an erasure can read them from the database it
-- replaces and delete the same records again (src/server/records/after-restore.ts).
CREATE TABLE erasure_tombstones (
  id uuid PRIMARY KEY,
  erased_at timestamptz NOT NULL DEFAULT now(),
  waiver_ids uuid[] NOT NULL,
  message_ids bigint[] NOT NULL,
  booking_ids uuid[] NOT NULL,
  subscriber_ids bigint[] NOT NULL
);
