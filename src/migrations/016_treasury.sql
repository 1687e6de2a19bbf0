-- Treasury per PSP (DESIGN.md §14): what each provider holds for the gateway, as the ledger and the
-- PSP itself tell, read by the worker every minute.
CREATE TABLE provider_balances (
  provider_id text PRIMARY KEY,
  -- Money in and out through the PSP as the ledger's settlement book has it (reversals count as money back in).
  ledger_in_cents bigint NOT NULL,
  ledger_out_cents bigint NOT NULL,
  -- The PSP's own figure (Efí: GET /gn/saldo); null when it has none or could not be read.
  reported_cents bigint,
  read_error text,
  -- Below the provider's low-cover mark at the latest reading (the alert is raised when it becomes so).
  low boolean NOT NULL,
  read_at timestamptz NOT NULL
);
