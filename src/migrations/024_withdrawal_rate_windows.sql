-- A withdrawal's rate windows (1/s, 2/min, 10/UTC hour by default) kept on the balance row
-- (DESIGN.md §16, issue 27), as its withdrawn sums are since 019: the statement that locks the
-- row to check the caps and debit it counts the windows too, where it upserted three
-- rate_counters rows per withdrawal, and it writes nothing at all when it refuses. Each window is
-- the fixed, epoch-aligned window its count belongs to (`*_start`) and that count; a withdrawal of
-- a later window starts it again at 1. Other rate limits stay in rate_counters.
ALTER TABLE balances
  ADD COLUMN withdraw_second_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_second_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_minute_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_minute_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_hour_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_hour_count integer NOT NULL DEFAULT 0;

-- The windows open at the upgrade keep their counts: a deploy mid-hour does not reset the hour.
UPDATE balances b SET withdraw_second_start = r.window_start, withdraw_second_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:second' AND r.expires_at > now();
UPDATE balances b SET withdraw_minute_start = r.window_start, withdraw_minute_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:minute' AND r.expires_at > now();
UPDATE balances b SET withdraw_hour_start = r.window_start, withdraw_hour_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:hour' AND r.expires_at > now();
DELETE FROM rate_counters WHERE bucket LIKE 'withdraw:%';
