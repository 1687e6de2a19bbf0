-- Daily statements (DESIGN.md §15): one per account and America/Sao_Paulo day, produced by the
-- worker once the day is over and never rewritten. `body` is the exact JSON text served by
-- GET /v1/statements/{date}; `digest` is the SHA-256 (hex) of that text, and the next day's body
-- carries it as previousDigest: a rewritten day breaks the chain a merchant can check.
CREATE TABLE statements (
  account_id uuid NOT NULL REFERENCES accounts (id),
  day date NOT NULL,
  opening_balance_cents bigint NOT NULL,
  closing_balance_cents bigint NOT NULL,
  opening_blocked_cents bigint NOT NULL,
  closing_blocked_cents bigint NOT NULL,
  movement_count integer NOT NULL,
  previous_digest text,
  digest text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, day)
);

CREATE FUNCTION statements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'statements are never rewritten';
END;
$$;
CREATE TRIGGER statements_append_only BEFORE UPDATE OR DELETE ON statements
  FOR EACH ROW EXECUTE FUNCTION statements_append_only();
CREATE TRIGGER statements_no_truncate BEFORE TRUNCATE ON statements
  FOR EACH STATEMENT EXECUTE FUNCTION statements_append_only();

-- A day's merchant movements and a balance at an instant are one range scan of this index; it
-- replaces (account_id, book), which it serves as well.
CREATE INDEX ledger_entries_account_book_time ON ledger_entries (account_id, book, created_at, id);
DROP INDEX ledger_entries_account;
