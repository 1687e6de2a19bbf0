-- A rec its provider registered or approved for a recurrence that is over here (cancelled or
-- expired while the provider registered it, approved after it expired, or a second registration
-- another request's claim outran): it must be cancelled there, so that the payer's bank shows no
-- live authorization nothing here will ever charge. Written in the transaction that decides it,
-- removed from the backlog once the provider confirms; the worker tries again with backoff.
CREATE TABLE orphan_recurrences (
  provider_id text NOT NULL,
  provider_recurrence_id text NOT NULL,
  recurrence_id uuid NOT NULL REFERENCES recurrences (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  cancelled_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, provider_recurrence_id)
);
CREATE INDEX orphan_recurrences_due ON orphan_recurrences (next_attempt_at) WHERE cancelled_at IS NULL;
