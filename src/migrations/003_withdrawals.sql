-- Withdrawals: destination on the transaction, internal alerts, and the simulated provider's state.

ALTER TABLE transactions
  ADD COLUMN pix_key text,
  ADD COLUMN pix_key_type text,
  ADD COLUMN recipient_id text;

-- Withdrawals waiting for the provider (settlement, reconciliation).
CREATE INDEX transactions_withdrawals_open ON transactions (updated_at)
  WHERE type = 'withdrawal' AND status IN ('processing', 'failed_unknown');

-- Internal alerts for the service team (e.g. every third-party withdrawal).
CREATE TABLE alerts (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  kind text NOT NULL,
  transaction_id uuid REFERENCES transactions (id),
  details jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX alerts_account ON alerts (account_id, created_at DESC);
CREATE INDEX alerts_recent ON alerts (created_at DESC);

-- Simulated DICT: who holds an email/phone/evp key, registered by the merchant through the sandbox.
CREATE TABLE sandbox_dict_keys (
  account_id uuid NOT NULL REFERENCES accounts (id),
  key_type text NOT NULL,
  key text NOT NULL,
  owner jsonb NOT NULL,
  PRIMARY KEY (account_id, key_type, key)
);

-- Simulated provider's side of each withdrawal: what it will answer and when.
CREATE TABLE sandbox_withdrawals (
  transaction_id uuid PRIMARY KEY REFERENCES transactions (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  beneficiary jsonb NOT NULL,
  outcome text,
  settle_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX sandbox_withdrawals_due ON sandbox_withdrawals (settle_at) WHERE outcome IS NULL AND settle_at IS NOT NULL;
