-- Every send to a PSP that moves money — a withdrawal, a refund — is a durable intent committed
-- with its debit (DESIGN.md §12, docs/providers.md "Unknown outcomes"): sent until the PSP
-- acknowledges it, asked about on a schedule until its outcome is known, and watched after a
-- failure for a late completion. Its id is the one the PSP deduplicates (idEnvio, devolução id).
CREATE TABLE provider_sends (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('withdrawal', 'refund')),
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- unsent: no attempt acknowledged, the worker sends it once its lease lapses; sent: the PSP
  -- acknowledged it or may have received it, asked at next_check_at; watching: failed because the
  -- PSP never received it, asked a while longer; owed: completed at the PSP after its reversal,
  -- the debit waits for the balance to cover it; closed: nothing left to do.
  state text NOT NULL CHECK (state IN ('unsent', 'sent', 'watching', 'owed', 'closed')),
  acknowledged boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL,
  -- An attempt begun whose result is not recorded (it may have reached the PSP).
  attempt_started_at timestamptz,
  -- Start of the latest attempt that may have reached the PSP: a "not found" proves nothing until
  -- the provider's settling window from here has passed.
  reached_maybe_at timestamptz,
  lease_until timestamptz,
  next_check_at timestamptz,
  checks integer NOT NULL DEFAULT 0,
  -- sent: the spec's 24 hours for an outcome (the operator is told past it); watching: the end of
  -- the watch for a late completion.
  deadline_at timestamptz NOT NULL,
  -- When the operator was told that the outcome is still unknown past 24 hours.
  escalated_at timestamptz,
  -- The block holding a late completion's debit until the balance covers it.
  block_id uuid,
  history jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX provider_sends_unsent ON provider_sends (lease_until) WHERE state = 'unsent';
CREATE INDEX provider_sends_due ON provider_sends (next_check_at) WHERE state IN ('sent', 'watching', 'owed');
CREATE INDEX provider_sends_open ON provider_sends (kind, state, created_at) WHERE state <> 'closed';

-- What was open before this migration is asked about from now on; a withdrawal or refund that was
-- never sent is then failed once the settling window has passed (its debit returned).
INSERT INTO provider_sends (id, kind, account_id, state, attempts, reached_maybe_at, next_check_at, deadline_at, created_at, updated_at)
SELECT id, 'withdrawal', account_id, 'sent', 1, updated_at, now(), created_at + interval '24 hours', created_at, now()
FROM transactions WHERE type = 'withdrawal' AND status IN ('processing', 'failed_unknown');
INSERT INTO provider_sends (id, kind, account_id, state, attempts, reached_maybe_at, next_check_at, deadline_at, created_at, updated_at)
SELECT id, 'refund', account_id, 'sent', 1, updated_at, now(), created_at + interval '24 hours', created_at, now()
FROM refunds WHERE status = 'processing';

-- A high alert asks the operator to act (a completion after a reversal the balance cannot cover).
ALTER TABLE alerts ADD COLUMN severity text NOT NULL DEFAULT 'normal' CHECK (severity IN ('normal', 'high'));
