-- The cautionary block (DESIGN.md §19, Res. BCB 506): the PSP holds a received PIX for up to 72 h.
-- The charge is paid and credited; a `cautionary` block, linked to the charge, holds its net
-- amount until the PSP releases it or returns the PIX to the payer (a refund of kind
-- `cautionary_return`). At most one cautionary block per charge.
ALTER TABLE blocks DROP CONSTRAINT blocks_kind_check;
ALTER TABLE blocks ADD CONSTRAINT blocks_kind_check CHECK (kind IN ('precautionary', 'fraud_mark', 'cautionary'));
ALTER TABLE blocks ADD COLUMN transaction_id uuid REFERENCES transactions (id);
ALTER TABLE blocks ADD CONSTRAINT blocks_cautionary_transaction CHECK (kind <> 'cautionary' OR transaction_id IS NOT NULL);
CREATE UNIQUE INDEX blocks_cautionary ON blocks (transaction_id) WHERE kind = 'cautionary';

-- The charge's side: whether it is held (`held`), was released (`released`) or returned
-- (`returned`), and until when the hold lasts; both null for a charge never held.
ALTER TABLE transactions ADD COLUMN hold_status text CHECK (hold_status IN ('held', 'released', 'returned'));
ALTER TABLE transactions ADD COLUMN held_until timestamptz;
ALTER TABLE transactions ADD CONSTRAINT transactions_hold CHECK ((hold_status IS NULL) = (held_until IS NULL));
-- The worker's sweep of holds whose time ran out.
CREATE INDEX transactions_held_until ON transactions (held_until) WHERE hold_status = 'held';

-- The PSP's return of a held PIX: a refund of its own kind, settled when recorded.
ALTER TABLE refunds DROP CONSTRAINT refunds_kind_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_kind_check CHECK (kind IN ('merchant', 'med', 'returned_payment', 'cautionary_return'));
