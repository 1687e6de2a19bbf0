-- A withdrawal's rate windows (1/s, 2/min, 10/UTC hour by default) kept on the balance row
-- (DESIGN.md §16, issue 27), as its withdrawn sums are since 019: the statement that locks the
-- row to check the caps and debit it counts the windows too, where it upserted three
-- rate_counters rows per withdrawal, and it writes nothing at all when it refuses. Each window is
-- the fixed, epoch-aligned window of the latest count (`*_start`), that count, and the count of
-- the window before it (`*_prev_count`): a withdrawal stamped just before a boundary that takes
-- the lock after one stamped just after it still counts in its own window. A withdrawal of a later
-- window starts it again at 1. Other rate limits stay in rate_counters.
--
-- Deploy with the withdrawals of the old and the new code not running side by side: the old code
-- counts in rate_counters, the new on the balance row, and while both run each counts only its own.
ALTER TABLE balances
  ADD COLUMN withdraw_second_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_second_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_minute_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_minute_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_hour_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_hour_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_second_prev_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_minute_prev_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_hour_prev_count integer NOT NULL DEFAULT 0;

-- The windows open at the upgrade keep their counts: a deploy mid-hour does not reset the hour.
UPDATE balances b SET withdraw_second_start = r.window_start, withdraw_second_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:second' AND r.expires_at > now();
UPDATE balances b SET withdraw_minute_start = r.window_start, withdraw_minute_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:minute' AND r.expires_at > now();
UPDATE balances b SET withdraw_hour_start = r.window_start, withdraw_hour_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:hour' AND r.expires_at > now();
UPDATE balances b SET withdraw_minute_prev_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:minute' AND r.window_start = b.withdraw_minute_start - interval '1 minute';
UPDATE balances b SET withdraw_hour_prev_count = r.count
FROM rate_counters r WHERE r.account_id = b.account_id AND r.bucket = 'withdraw:hour' AND r.window_start = b.withdraw_hour_start - interval '1 hour';
DELETE FROM rate_counters WHERE bucket LIKE 'withdraw:%';
