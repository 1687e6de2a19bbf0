-- Gateway core: accounts, API keys, transactions, idempotency, rate counters, ledger, blocks, events.
-- Money and configurable limits are bigint (cents); every table carries account_id.

CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  email_verified boolean NOT NULL DEFAULT false,
  city text NOT NULL,
  responsible_name text NOT NULL,
  responsible_cpf text NOT NULL,
  company_legal_name text,
  company_cnpj text,
  kyc_status text NOT NULL CHECK (kyc_status IN ('approved', 'pending', 'rejected')),
  blocked boolean NOT NULL DEFAULT false,
  withdrawal_mode text NOT NULL CHECK (withdrawal_mode IN ('automatic', 'manual')),
  ip_allowlist text[] NOT NULL DEFAULT '{}',
  allowed_pix_key_types text[] NOT NULL,
  recipient_limit bigint NOT NULL,
  pix_per_hour bigint NOT NULL,
  withdraw_per_second bigint NOT NULL,
  withdraw_per_minute bigint NOT NULL,
  withdraw_per_hour bigint NOT NULL,
  recipients_per_hour bigint NOT NULL,
  charge_min_cents bigint NOT NULL,
  charge_max_cents bigint NOT NULL,
  withdraw_min_cents bigint NOT NULL,
  withdraw_max_cents bigint NOT NULL,
  withdraw_daily_cents bigint NOT NULL,
  withdraw_monthly_cents bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE fee_plans (
  account_id uuid NOT NULL REFERENCES accounts (id),
  transaction_type text NOT NULL CHECK (transaction_type IN ('pix_in', 'withdrawal')),
  fixed_cents bigint NOT NULL CHECK (fixed_cents >= 0),
  bps bigint NOT NULL CHECK (bps >= 0),
  min_cents bigint NOT NULL CHECK (min_cents >= 0),
  max_cents bigint NOT NULL CHECK (max_cents >= min_cents),
  PRIMARY KEY (account_id, transaction_type)
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  prefix text NOT NULL UNIQUE,
  key_hash bytea NOT NULL,
  ip_allowlist text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE transactions (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  type text NOT NULL CHECK (type IN ('pix_in', 'withdrawal')),
  status text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
  net_cents bigint NOT NULL,
  external_ref text,
  description text,
  customer jsonb,
  pix_payload text,
  location text UNIQUE,
  expires_at timestamptz,
  paid_at timestamptz,
  end_to_end_id text UNIQUE,
  payer jsonb,
  beneficiary jsonb,
  refund_end_to_end_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX transactions_account_recent ON transactions (account_id, created_at DESC, id DESC);
CREATE INDEX transactions_account_type_recent ON transactions (account_id, type, created_at DESC, id DESC);
CREATE INDEX transactions_pending_charges_expiry ON transactions (expires_at) WHERE type = 'pix_in' AND status = 'pending';

-- externalRef -> transaction, per account and operation; a row past expires_at may be taken over.
CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL,
  scope text NOT NULL,
  external_ref text NOT NULL,
  transaction_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, scope, external_ref)
);

-- Fixed-window counters, updated in the same transaction as the write they guard.
CREATE TABLE rate_counters (
  account_id uuid NOT NULL,
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  count bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, bucket, window_start)
);
CREATE INDEX rate_counters_expiry ON rate_counters (expires_at);

-- Double entry: each movement's entries sum to zero across the books.
CREATE TABLE ledger_entries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  movement_id uuid NOT NULL,
  book text NOT NULL CHECK (book IN ('merchant', 'fees', 'settlement', 'adjustments')),
  kind text NOT NULL,
  transaction_id uuid REFERENCES transactions (id),
  amount_cents bigint NOT NULL,
  memo text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, book);
CREATE INDEX ledger_entries_movement ON ledger_entries (movement_id);

CREATE TABLE balances (
  account_id uuid PRIMARY KEY REFERENCES accounts (id),
  available_cents bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE blocks (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  reason text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'released')),
  created_at timestamptz NOT NULL DEFAULT now(),
  released_at timestamptz
);
CREATE INDEX blocks_account_active ON blocks (account_id) WHERE status = 'active';

-- Outbox: one row per status change, written in the same transaction as the change.
CREATE TABLE events (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  transaction_id uuid REFERENCES transactions (id),
  name text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_account ON events (account_id, created_at DESC);
CREATE INDEX events_transaction ON events (transaction_id);

-- Simulated provider: one-shot outcomes a merchant arms through the sandbox (consumed by the next call).
CREATE TABLE sandbox_directives (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  operation text NOT NULL,
  outcome text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_directives_account ON sandbox_directives (account_id, operation, id);
