-- MED 2.0 (DESIGN.md §19): several partial cases on one received PIX, each part of a funds
-- recovery traced through the accounts the money passed; a case's block holds what the merchant
-- had when it opened and is topped up by later credits; a case closes with what was recovered.

-- Several cases may run on one charge now; their sum stays within the charge's remainder (checked
-- under the charge's lock).
DROP INDEX infractions_one_open_per_charge;
CREATE INDEX infractions_running_of_charge ON infractions (transaction_id) WHERE status IN ('open', 'in_defense', 'under_analysis');

ALTER TABLE infractions ADD COLUMN recovery_id text CHECK (char_length(recovery_id) BETWEEN 1 AND 100);
ALTER TABLE infractions ADD COLUMN hop smallint NOT NULL DEFAULT 1 CHECK (hop BETWEEN 1 AND 10);
ALTER TABLE infractions ADD COLUMN situation text NOT NULL DEFAULT 'unknown'
  CHECK (situation IN ('scam', 'account_takeover', 'coercion', 'fraudulent_access', 'other', 'unknown'));
-- What the PSP actually returned to the victim when the case closed against the merchant.
ALTER TABLE infractions ADD COLUMN recovered_cents bigint CHECK (recovered_cents > 0 AND recovered_cents <= amount_cents);
ALTER TABLE infractions ADD CONSTRAINT infractions_recovered_only_accepted CHECK (recovered_cents IS NULL OR status = 'accepted');

-- A case's block may start short (even empty) when the money was already withdrawn.
ALTER TABLE blocks DROP CONSTRAINT blocks_amount_cents_check;
ALTER TABLE blocks ADD CONSTRAINT blocks_amount_cents_check CHECK (amount_cents > 0 OR (amount_cents = 0 AND infraction_id IS NOT NULL));

-- What the account's running cases' blocks still lack (case amount minus what the block holds):
-- a credit tops them up, in the statement that moves the balance, while this is above zero.
ALTER TABLE balances ADD COLUMN shortfall_cents bigint NOT NULL DEFAULT 0 CHECK (shortfall_cents >= 0);

-- The PSP's MED return that opened and settled a case it never told us of first: one case per return,
-- however many times (and from however many readers) the return is reported.
ALTER TABLE infractions ADD COLUMN return_end_to_end_id text;
CREATE UNIQUE INDEX infractions_return ON infractions (return_end_to_end_id) WHERE return_end_to_end_id IS NOT NULL;
