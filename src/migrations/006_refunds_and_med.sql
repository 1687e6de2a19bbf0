-- After the payment (DESIGN.md §9): refunds of charges, MED cases and the blocks they hold.

-- The sum of a charge's settled refunds (merchant refunds and MED chargebacks), kept with the
-- status it decides (refunded when it reaches amount_cents).
ALTER TABLE transactions ADD COLUMN refunded_cents bigint NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents <= amount_cents);

-- A MED case (infraction): at most one open per charge.
CREATE TABLE infractions (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  transaction_id uuid NOT NULL REFERENCES transactions (id),
  status text NOT NULL CHECK (status IN ('open', 'in_defense', 'under_analysis', 'accepted', 'rejected')),
  reason text NOT NULL CHECK (reason IN ('fraud', 'operational_flaw')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  opened_at timestamptz NOT NULL,
  defense_deadline timestamptz NOT NULL,
  defense text,
  closed_at timestamptz,
  updated_at timestamptz NOT NULL,
  CHECK ((status IN ('accepted', 'rejected')) = (closed_at IS NOT NULL))
);
CREATE UNIQUE INDEX infractions_one_open_per_charge ON infractions (transaction_id) WHERE status IN ('open', 'in_defense', 'under_analysis');
CREATE INDEX infractions_account_recent ON infractions (account_id, opened_at DESC, id DESC);
-- The worker's sweep: cases whose defense deadline passed.
CREATE INDEX infractions_defense_due ON infractions (defense_deadline) WHERE status IN ('open', 'in_defense');

-- The sum of an account's active blocks, kept on its balance row by the statements that create and
-- release blocks: the balance (available, blocked, withdrawable) is one primary-key read.
ALTER TABLE balances ADD COLUMN blocked_cents bigint NOT NULL DEFAULT 0 CHECK (blocked_cents >= 0);
UPDATE balances SET blocked_cents = active.cents
FROM (SELECT account_id, sum(amount_cents) AS cents FROM blocks WHERE status = 'active' GROUP BY account_id) active
WHERE balances.account_id = active.account_id;

-- A block held by a MED case is released when the case closes.
ALTER TABLE blocks ADD COLUMN infraction_id uuid REFERENCES infractions (id);
CREATE UNIQUE INDEX blocks_infraction ON blocks (infraction_id) WHERE infraction_id IS NOT NULL;

-- Money sent back to the payer of a charge: a merchant's refund, a MED chargeback, or a payment
-- that arrived for a charge no longer pending (returned in full, never credited).
CREATE TABLE refunds (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  transaction_id uuid NOT NULL REFERENCES transactions (id),
  kind text NOT NULL CHECK (kind IN ('merchant', 'med', 'returned_payment')),
  status text NOT NULL CHECK (status IN ('processing', 'refunded', 'failed')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  reason text,
  external_ref text,
  -- The PIX being returned (the charge's payment, or the late payment).
  payment_end_to_end_id text NOT NULL,
  refund_end_to_end_id text UNIQUE,
  infraction_id uuid REFERENCES infractions (id),
  created_at timestamptz NOT NULL,
  settled_at timestamptz,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'refunded') = (refund_end_to_end_id IS NOT NULL)),
  CHECK ((status = 'processing') = (settled_at IS NULL))
);
CREATE INDEX refunds_transaction_recent ON refunds (transaction_id, created_at DESC, id DESC);
CREATE INDEX refunds_processing ON refunds (created_at) WHERE status = 'processing';

-- The simulated network's side of each refund: what it will answer and when.
CREATE TABLE sandbox_refunds (
  refund_id uuid PRIMARY KEY REFERENCES refunds (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  outcome text CHECK (outcome IN ('refunded', 'failed')),
  refund_end_to_end_id text,
  settle_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX sandbox_refunds_due ON sandbox_refunds (settle_at) WHERE outcome IS NULL AND settle_at IS NOT NULL;
