-- The operators' audit log (DESIGN.md §11): every operator action, from the operator API or the
-- back-office — who, what, on which account and object, when, and what changed (documents masked,
-- secrets redacted). Append-only: the code has no path that changes or deletes a row, and the
-- database refuses it too.
CREATE TABLE audit_log (
  id uuid PRIMARY KEY,
  at timestamptz NOT NULL,
  -- 'admin-token', or 'operator:<operator user id>'.
  actor text NOT NULL,
  -- The route acted on, e.g. 'POST /admin/v1/accounts/:accountId/recipients/:recipientId/approve'.
  action text NOT NULL,
  account_id uuid,
  object_id text,
  -- { "input": request body, "before": the object before (when the action changes one), "after": the answer }
  changes jsonb NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_account ON audit_log (account_id, at DESC, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor, at DESC, id DESC);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
