-- A refusal raised from inside a statement (DESIGN.md §16, issue 27): a write made of several CTEs
-- (a withdrawal's reservation, its transaction, events, send and idempotency claim) commits as one
-- statement without BEGIN and COMMIT, so a refusal decided halfway (a rate window, a cap, the
-- balance) must undo what the other CTEs wrote. Raising an error does: SQLSTATE GW001, the message
-- the reason the caller reads (ledger/repository.ts).
CREATE FUNCTION gateway_refusal(reason text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'GW001', MESSAGE = reason;
END
$$;
