-- One name for one thing: a person's booking in a class is a "place" on every screen and in every
-- mail, so it is one in the tables too (it was a "seat" here and a "class" in payments). The
-- queue's order of the waitlist, which was also called "place", is its "position".
ALTER TABLE class_seats RENAME TO class_places;
ALTER TABLE class_places RENAME COLUMN seat_no TO place_no;
ALTER TABLE class_waitlist RENAME COLUMN seat_id TO place_id;
ALTER TABLE class_waitlist RENAME COLUMN place TO position;

-- The constraints and indexes keep their names through a rename: the code tells a place taken
-- by another person from one taken by the same person by these names.
DO $$
DECLARE
  item record;
BEGIN
  FOR item IN
    SELECT conname AS name FROM pg_constraint
     WHERE conrelid IN ('class_places'::regclass, 'class_waitlist'::regclass)
       AND conname LIKE '%seat%'
  LOOP
    EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I',
      CASE WHEN item.name LIKE 'class_waitlist%' THEN 'class_waitlist' ELSE 'class_places' END,
      item.name, replace(replace(item.name, 'class_seats', 'class_places'), 'seat', 'place'));
  END LOOP;
  FOR item IN
    SELECT indexname AS name FROM pg_indexes
     WHERE tablename = 'class_places' AND indexname LIKE 'class_seats%'
  LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I',
      item.name, replace(replace(item.name, 'class_seats', 'class_places'), 'seat', 'place'));
  END LOOP;
END
$$;

-- A payment for a place says so.
ALTER TABLE payments DROP CONSTRAINT payments_booking_kind_check;
UPDATE payments SET booking_kind = 'place' WHERE booking_kind = 'class';
ALTER TABLE payments ADD CONSTRAINT payments_booking_kind_check
  CHECK (booking_kind IN ('session', 'place'));
