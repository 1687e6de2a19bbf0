-- Reconciliation per PSP (DESIGN.md §14): the ledger compared with each provider's own records.

-- What each simulated provider knows of amounts (a PSP's records carry them).
ALTER TABLE sandbox_withdrawals ADD COLUMN amount_cents bigint;
UPDATE sandbox_withdrawals SET amount_cents = transactions.amount_cents FROM transactions WHERE transactions.id = sandbox_withdrawals.transaction_id;
ALTER TABLE sandbox_refunds ADD COLUMN amount_cents bigint;
UPDATE sandbox_refunds SET amount_cents = refunds.amount_cents FROM refunds WHERE refunds.id = sandbox_refunds.refund_id;
-- The PIX a simulated provider received (a PSP's GET /pix): from now on; earlier ones were not kept.
CREATE TABLE sandbox_payments (
  end_to_end_id text PRIMARY KEY,
  provider_id text NOT NULL,
  transaction_id uuid NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  amount_cents bigint NOT NULL,
  paid_at timestamptz NOT NULL
);
CREATE INDEX sandbox_payments_period ON sandbox_payments (provider_id, paid_at);

-- One comparison of a provider's records with the ledger over a period.
CREATE TABLE reconciliation_runs (
  id uuid PRIMARY KEY,
  provider_id text NOT NULL,
  period_from timestamptz NOT NULL,
  period_to timestamptz NOT NULL,
  -- 'schedule' (the daily job), 'admin-token' or 'operator:<id>'.
  requested_by text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  matched integer NOT NULL DEFAULT 0,
  differences integer NOT NULL DEFAULT 0,
  ledger_in_cents bigint NOT NULL DEFAULT 0,
  ledger_out_cents bigint NOT NULL DEFAULT 0,
  psp_in_cents bigint NOT NULL DEFAULT 0,
  psp_out_cents bigint NOT NULL DEFAULT 0,
  error text,
  started_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX reconciliation_runs_recent ON reconciliation_runs (started_at DESC);
-- The daily job runs each provider's day once, whatever the number of workers; a failed run (the
-- PSP could not list its records) is tried again at the job's next look.
CREATE UNIQUE INDEX reconciliation_runs_daily ON reconciliation_runs (provider_id, period_from) WHERE requested_by = 'schedule' AND status <> 'failed';

CREATE TABLE reconciliation_differences (
  run_id uuid NOT NULL REFERENCES reconciliation_runs (id),
  position integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('missing_at_psp', 'missing_in_ledger', 'amount', 'status')),
  movement text NOT NULL CHECK (movement IN ('payment', 'withdrawal', 'refund')),
  -- Our id (withdrawal, refund) or the PIX's end-to-end id (payment).
  reference text NOT NULL,
  account_id uuid,
  transaction_id uuid,
  ledger_cents bigint,
  psp_cents bigint,
  ledger_status text,
  psp_status text,
  PRIMARY KEY (run_id, position)
);

-- Alerts of the platform itself (a reconciliation difference) belong to no account.
ALTER TABLE alerts ALTER COLUMN account_id DROP NOT NULL;
