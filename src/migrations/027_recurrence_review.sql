-- Pix Automático review fixes (docs/recurrences.md).
-- A recurrence left `created` (its provider failed, no externalRef to retry with) expires as a request does: the sweep reads both.
DROP INDEX recurrences_awaiting;
CREATE INDEX recurrences_awaiting ON recurrences (authorization_expires_at) WHERE status IN ('created', 'awaiting_authorization');

-- A cycle the worker reached too late for BCB's cobr (less than 2 days before its date) is recorded
-- as skipped, without a charge: the cycles are keyed by recurrence and number, a charge optional.
ALTER TABLE recurrence_cycles DROP CONSTRAINT recurrence_cycles_pkey;
ALTER TABLE recurrence_cycles ALTER COLUMN transaction_id DROP NOT NULL;
ALTER TABLE recurrence_cycles ADD CONSTRAINT recurrence_cycles_transaction UNIQUE (transaction_id);
ALTER TABLE recurrence_cycles ADD COLUMN status text NOT NULL DEFAULT 'charged' CHECK (status IN ('charged', 'skipped'));
ALTER TABLE recurrence_cycles ADD CHECK ((status = 'skipped') = (transaction_id IS NULL));

-- A cycle whose charge keeps failing at its provider waits (backing off) rather than stay at the head of the worker's sweep.
ALTER TABLE recurrences ADD COLUMN cycle_failures integer NOT NULL DEFAULT 0;
ALTER TABLE recurrences ADD COLUMN cycle_retry_at timestamptz;

-- The simulator keeps the cycles' charges (cobr) it registered, by txid: sent again after an answer
-- that was lost, the same txid is the same cobr (as a PSP's PUT /cobr/{txid}); BCB takes one cobr per cycle.
CREATE TABLE sandbox_cycle_charges (
  provider_id text NOT NULL,
  txid text NOT NULL,
  provider_recurrence_id text NOT NULL,
  due_date text NOT NULL,
  amount_cents bigint NOT NULL,
  created_at timestamptz NOT NULL,
  cancelled_at timestamptz,
  PRIMARY KEY (provider_id, txid),
  UNIQUE (provider_id, provider_recurrence_id, due_date)
);

-- Registering a recurrence at its provider is claimed: the request that wrote it (or a retry once the
-- claim lapsed or was released by a failure) asks the provider; a concurrent one answers it as it is.
ALTER TABLE recurrences ADD COLUMN registration_claimed_until timestamptz;

-- The recurrences (rec) the simulator registered, one row per registration, and their cancellation there.
CREATE TABLE sandbox_recurrences (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  provider_id text NOT NULL,
  recurrence_id uuid NOT NULL,
  provider_recurrence_id text NOT NULL,
  created_at timestamptz NOT NULL,
  cancelled_at timestamptz
);
CREATE INDEX sandbox_recurrences_rec ON sandbox_recurrences (provider_id, provider_recurrence_id);
