-- How many uses the latest count of a window let through. New charges of many requests are written
-- in one statement (charges/repository.ts, insertChargesWithinRateLimit): it counts all of an
-- account's at once, and this column tells it how many fit, as the update sees the count before it.
ALTER TABLE rate_counters ADD COLUMN granted bigint NOT NULL DEFAULT 0;
