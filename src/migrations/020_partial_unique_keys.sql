-- A transaction's location and end-to-end id are unique when present; most rows have neither when
-- written (a withdrawal has no location and gets its end-to-end id when paid), and a full unique
-- index stored an entry for every NULL: two index insertions per new withdrawal, one per new
-- charge, for nothing (DESIGN.md §16, issue 27: CPU per request). Same names, same lookups.
ALTER TABLE transactions DROP CONSTRAINT transactions_location_key;
CREATE UNIQUE INDEX transactions_location_key ON transactions (location) WHERE location IS NOT NULL;
ALTER TABLE transactions DROP CONSTRAINT transactions_end_to_end_id_key;
CREATE UNIQUE INDEX transactions_end_to_end_id_key ON transactions (end_to_end_id) WHERE end_to_end_id IS NOT NULL;
