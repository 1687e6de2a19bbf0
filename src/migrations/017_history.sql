-- History at scale (DESIGN.md §15): every filter of the transaction lists is served by an index,
-- each ordered as the lists are (created_at DESC, id DESC) so that a page at any depth is one
-- index range scan after its cursor. docs/performance.md shows the plans (EXPLAIN ANALYZE).
-- On a large existing table, create these beforehand with CREATE INDEX CONCURRENTLY under the
-- same names (docs/history.md): this file then only finds them.

-- One status of an account (transactions_account_recent serves no filter and the date range;
-- transactions_account_type_recent the type).
CREATE INDEX IF NOT EXISTS transactions_account_status_recent ON transactions (account_id, status, created_at DESC, id DESC);

-- An externalRef of an account (at most one charge and one withdrawal each; the endToEndId has its unique index).
CREATE INDEX IF NOT EXISTS transactions_account_external_ref ON transactions (account_id, external_ref) WHERE external_ref IS NOT NULL;

-- The back-office, across accounts: everything, newest first, and the counterpart's document
-- (payer of a charge, beneficiary or expected holder of a withdrawal, else the charge's customer),
-- the exact expression transactions/repository.ts filters on.
CREATE INDEX IF NOT EXISTS transactions_recent ON transactions (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS transactions_counterpart_document ON transactions (
  (coalesce(payer->>'document', beneficiary->>'document', expected_holder->>'document', regexp_replace(customer->'document'->>'number', '[^0-9]', '', 'g'))),
  created_at DESC,
  id DESC
);
