-- Transaction statuses are the ones of the transition tables (src/transactions/states.ts).
ALTER TABLE transactions ADD CONSTRAINT transactions_status_valid CHECK (
  (type = 'pix_in' AND status IN ('pending', 'paid', 'expired', 'cancelled', 'failed', 'refunded', 'partially_refunded'))
  OR (type = 'withdrawal' AND status IN ('pending_approval', 'processing', 'failed_unknown', 'paid', 'failed', 'cancelled', 'refunded', 'partially_refunded'))
);

-- A withdrawal's expected holder (name and document, no bank data) is ours; its beneficiary is the
-- provider's answer once paid. Until now the expected holder was kept in `beneficiary`.
ALTER TABLE transactions ADD COLUMN expected_holder jsonb;
UPDATE transactions SET expected_holder = beneficiary - 'bankAccount' WHERE type = 'withdrawal' AND beneficiary IS NOT NULL;
UPDATE transactions SET beneficiary = NULL WHERE type = 'withdrawal' AND status NOT IN ('paid', 'refunded', 'partially_refunded');

-- The simulated network mints the end-to-end id of a withdrawal it pays.
ALTER TABLE sandbox_withdrawals ADD COLUMN end_to_end_id text;
ALTER TABLE sandbox_withdrawals ADD CONSTRAINT sandbox_withdrawals_outcome_valid CHECK (outcome IN ('paid', 'failed'));
