-- A withdrawal's three rate windows (a second, a minute, a UTC hour, aligned to the epoch) kept on
-- the balance row its reservation locks anyway (DESIGN.md §16, issue 27: CPU per request): the
-- start of each window and the withdrawals counted in it. They replace the account's
-- 'withdraw:*' rows of rate_counters, three upserts per withdrawal. As before, a refused
-- withdrawal counts in none (its transaction rolls back).
ALTER TABLE balances
  ADD COLUMN withdraw_second_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_second_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_minute_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_minute_count integer NOT NULL DEFAULT 0,
  ADD COLUMN withdraw_hour_start timestamptz NOT NULL DEFAULT 'epoch',
  ADD COLUMN withdraw_hour_count integer NOT NULL DEFAULT 0;

UPDATE balances b SET withdraw_second_start = r.window_start, withdraw_second_count = r.count
FROM (SELECT DISTINCT ON (account_id) account_id, window_start, count FROM rate_counters
      WHERE bucket = 'withdraw:second' ORDER BY account_id, window_start DESC) r
WHERE r.account_id = b.account_id;
UPDATE balances b SET withdraw_minute_start = r.window_start, withdraw_minute_count = r.count
FROM (SELECT DISTINCT ON (account_id) account_id, window_start, count FROM rate_counters
      WHERE bucket = 'withdraw:minute' ORDER BY account_id, window_start DESC) r
WHERE r.account_id = b.account_id;
UPDATE balances b SET withdraw_hour_start = r.window_start, withdraw_hour_count = r.count
FROM (SELECT DISTINCT ON (account_id) account_id, window_start, count FROM rate_counters
      WHERE bucket = 'withdraw:hour' ORDER BY account_id, window_start DESC) r
WHERE r.account_id = b.account_id;
DELETE FROM rate_counters WHERE bucket LIKE 'withdraw:%';
