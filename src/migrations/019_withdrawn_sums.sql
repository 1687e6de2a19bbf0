-- The day's and month's withdrawn sums kept on the balance row (DESIGN.md §16, issue 27): the
-- daily and monthly caps are then checked by the same statement that locks the row and debits it,
-- instead of a sum over the transactions read after the lock. A withdrawal counts from its
-- creation (debited or awaiting approval) until it fails or is cancelled, in the UTC day and month
-- of its created_at, as the sum it replaces did. `withdrawn_day` is the UTC day the day's sum
-- belongs to and `withdrawn_month` the first day of the UTC month; a withdrawal of a later day
-- starts the sum again. `npm run doctor` checks both sums against the transactions.
ALTER TABLE balances
  ADD COLUMN withdrawn_day date NOT NULL DEFAULT DATE '1970-01-01',
  ADD COLUMN withdrawn_day_cents bigint NOT NULL DEFAULT 0,
  ADD COLUMN withdrawn_month date NOT NULL DEFAULT DATE '1970-01-01',
  ADD COLUMN withdrawn_month_cents bigint NOT NULL DEFAULT 0;

UPDATE balances b SET
  withdrawn_day = (now() AT TIME ZONE 'UTC')::date,
  withdrawn_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  withdrawn_day_cents = coalesce(s.day_cents, 0),
  withdrawn_month_cents = coalesce(s.month_cents, 0)
FROM (
  SELECT a.id AS account_id,
         sum(t.amount_cents) FILTER (WHERE (t.created_at AT TIME ZONE 'UTC')::date = (now() AT TIME ZONE 'UTC')::date) AS day_cents,
         sum(t.amount_cents) AS month_cents
  FROM accounts a
  LEFT JOIN transactions t ON t.account_id = a.id AND t.type = 'withdrawal' AND t.status NOT IN ('failed', 'cancelled')
    AND t.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
  GROUP BY a.id
) s
WHERE s.account_id = b.account_id;
