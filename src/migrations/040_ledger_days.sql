-- The ledger's daily summary (DESIGN.md §24): per account and America/Sao_Paulo day, what its
-- merchant entries credited (positive entries) and debited (negative entries, as a positive sum).
-- The dashboard's Início reads its 30 days here: ~30 rows whatever the number of entries
-- (docs/performance.md, "Início on 1,000,000 transactions"). The ledger keeps it in the statement
-- that writes the entries (src/ledger/repository.ts, entriesInsert's sibling dailyUpsert), after
-- the balance row's lock, so the summary's row of a day is only ever updated under that lock; the
-- doctor checks that it equals the ledger.
CREATE TABLE ledger_days (
  account_id uuid NOT NULL REFERENCES accounts (id),
  day date NOT NULL,
  credited_cents bigint NOT NULL DEFAULT 0 CHECK (credited_cents >= 0),
  debited_cents bigint NOT NULL DEFAULT 0 CHECK (debited_cents >= 0),
  PRIMARY KEY (account_id, day)
);

-- The days of the entries written before this migration.
INSERT INTO ledger_days (account_id, day, credited_cents, debited_cents)
SELECT account_id, (created_at AT TIME ZONE 'America/Sao_Paulo')::date,
       coalesce(sum(amount_cents) FILTER (WHERE amount_cents > 0), 0),
       coalesce(-sum(amount_cents) FILTER (WHERE amount_cents < 0), 0)
FROM ledger_entries WHERE book = 'merchant' AND amount_cents <> 0
GROUP BY 1, 2;
