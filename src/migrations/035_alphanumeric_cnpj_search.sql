-- Alphanumeric CNPJs (DESIGN.md §19): the counterpart's document keeps its letters. A charge's
-- customer number is stored normalised (punctuation stripped, upper case); the expression strips
-- anything else, as 017's did with digits only, which dropped the letters of an alphanumeric CNPJ.
-- transactions/repository.ts filters on this exact expression.
DROP INDEX IF EXISTS transactions_counterpart_document;
CREATE INDEX IF NOT EXISTS transactions_counterpart_document ON transactions (
  (coalesce(payer->>'document', beneficiary->>'document', expected_holder->>'document', regexp_replace(customer->'document'->>'number', '[^0-9A-Z]', '', 'g'))),
  created_at DESC,
  id DESC
);
