-- Pix Automático (DESIGN.md §17, docs/recurrences.md): a merchant's recurrence (BCB's rec, with the
-- payer's authorization request, solicrec) and one charge per cycle (BCB's cobr), each a pix_in
-- transaction that names its recurrence and cycle. Days are AAAA-MM-DD text in America/Sao_Paulo
-- (read back as text: a `date` would become a local-midnight Date).
CREATE TABLE recurrences (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  provider_id text NOT NULL,
  -- BCB's idRec, once the provider registered it.
  provider_recurrence_id text,
  external_ref text,
  contract text NOT NULL,
  debtor jsonb NOT NULL,
  object text,
  frequency text NOT NULL CHECK (frequency IN ('weekly', 'monthly', 'quarterly', 'semiannual', 'annual')),
  amount_cents bigint CHECK (amount_cents IS NULL OR amount_cents > 0),
  max_amount_cents bigint CHECK (max_amount_cents IS NULL OR max_amount_cents > 0),
  start_date text NOT NULL,
  end_date text,
  retry_policy text NOT NULL CHECK (retry_policy IN ('none', 'three_in_seven_days')),
  status text NOT NULL CHECK (status IN ('created', 'awaiting_authorization', 'authorized', 'refused', 'cancelled', 'expired')),
  authorization_expires_at timestamptz NOT NULL,
  cancelled_by text CHECK (cancelled_by IN ('merchant', 'payer')),
  -- The next cycle to charge (1 = the start date) and its day; NULL once past the end date or closed.
  next_cycle integer NOT NULL DEFAULT 1,
  next_cycle_date text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (amount_cents IS NOT NULL OR max_amount_cents IS NOT NULL)
);
CREATE INDEX recurrences_account ON recurrences (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX recurrences_external_ref ON recurrences (account_id, external_ref) WHERE external_ref IS NOT NULL;
-- The worker's sweeps: authorized recurrences by their next cycle's day, requests awaiting the payer by their expiry.
CREATE INDEX recurrences_next_cycle ON recurrences (next_cycle_date) WHERE status = 'authorized' AND next_cycle_date IS NOT NULL;
CREATE INDEX recurrences_awaiting ON recurrences (authorization_expires_at) WHERE status = 'awaiting_authorization';

ALTER TABLE transactions ADD COLUMN recurrence_id uuid REFERENCES recurrences (id);
ALTER TABLE transactions ADD COLUMN recurrence_cycle integer;
-- A recurrence's cycle charges, read under its lock when it is cancelled. Partial: every other transaction stays out of it.
CREATE INDEX transactions_recurrence ON transactions (recurrence_id) WHERE recurrence_id IS NOT NULL;

-- One charge per cycle (BCB: one cobr per cycle of a rec): its due day, the day of its next debit
-- attempt (the due day, then each retry's) and how many attempts failed.
CREATE TABLE recurrence_cycles (
  transaction_id uuid PRIMARY KEY REFERENCES transactions (id),
  recurrence_id uuid NOT NULL REFERENCES recurrences (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  cycle integer NOT NULL CHECK (cycle > 0),
  due_date text NOT NULL,
  attempt_date text NOT NULL,
  failed_attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  UNIQUE (recurrence_id, cycle)
);
