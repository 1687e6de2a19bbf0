-- Several PSPs at once (DESIGN.md §14).

-- A refund goes to the provider that received the PIX it returns: its charge's.
ALTER TABLE refunds ADD COLUMN provider_id text;
UPDATE refunds SET provider_id = transactions.provider_id FROM transactions WHERE transactions.id = refunds.transaction_id;
ALTER TABLE refunds ALTER COLUMN provider_id SET NOT NULL;

-- Each simulated provider keeps its own side of the network: a withdrawal or refund one of them
-- received is unknown to the others, as at two real PSPs.
ALTER TABLE sandbox_withdrawals ADD COLUMN provider_id text NOT NULL DEFAULT 'default';
ALTER TABLE sandbox_withdrawals ALTER COLUMN provider_id DROP DEFAULT;
ALTER TABLE sandbox_withdrawals DROP CONSTRAINT sandbox_withdrawals_pkey;
ALTER TABLE sandbox_withdrawals ADD PRIMARY KEY (provider_id, transaction_id);
ALTER TABLE sandbox_refunds ADD COLUMN provider_id text NOT NULL DEFAULT 'default';
ALTER TABLE sandbox_refunds ALTER COLUMN provider_id DROP DEFAULT;
ALTER TABLE sandbox_refunds DROP CONSTRAINT sandbox_refunds_pkey;
ALTER TABLE sandbox_refunds ADD PRIMARY KEY (provider_id, refund_id);

-- A charge a simulated provider registered although its answer was lost (the outage switch's
-- `timeout`): the orphan the gateway removes when the provider recovers.
CREATE TABLE sandbox_charges (
  provider_id text NOT NULL,
  transaction_id uuid NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  status text NOT NULL CHECK (status IN ('active', 'removed')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, transaction_id)
);

-- The simulator's outage switch (POST /sandbox/v1/providers/{providerId}/outage): shared by every
-- process on the database. No row: the provider is up.
CREATE TABLE sandbox_provider_outages (
  provider_id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('down', 'timeout')),
  since timestamptz NOT NULL
);

-- Each API Pix provider's poller keeps its own cursors: `<providerId>:<name>`.
UPDATE psp_cursors SET name = 'default:' || name;

-- Routing rules (GET/PUT /admin/v1/routing): one document, replaced whole; no row = every
-- configured provider with weight 1.
CREATE TABLE routing_rules (
  id integer PRIMARY KEY CHECK (id = 1),
  rules jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);

-- A charge registration whose answer was lost at a provider, the charge then made at another one
-- (or not at all): the `cob` that may exist there was never shown, and is removed when the
-- provider answers again.
CREATE TABLE orphan_charges (
  provider_id text NOT NULL,
  transaction_id uuid NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  removed_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, transaction_id)
);
CREATE INDEX orphan_charges_due ON orphan_charges (next_attempt_at) WHERE removed_at IS NULL;
