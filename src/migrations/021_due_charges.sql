-- Charges with a due date (BCB's cobv, DESIGN.md §17): their terms (due date, validity, fine,
-- interest, abatement, discounts) and, once paid, what the payment was made of. NULL for every
-- other transaction, so the rows of immediate charges and withdrawals do not grow.
ALTER TABLE transactions ADD COLUMN due jsonb;
