-- Third-party withdrawal recipients (spec: Recipient; DESIGN.md §5): one row per account and
-- document, reviewed by the service team. The id is derived from the document with the server
-- secret, so two merchants registering one document share the id but not the row.

CREATE TABLE recipients (
  account_id uuid NOT NULL REFERENCES accounts (id),
  id text NOT NULL CHECK (id ~ '^[0-9a-f]{24}$'),
  status text NOT NULL CHECK (status IN ('pending_review', 'active', 'rejected', 'removed', 'deactivated')),
  legal_name text NOT NULL,
  document text NOT NULL,
  document_type text NOT NULL CHECK (document_type IN ('cpf', 'cnpj')),
  pix_key text NOT NULL,
  pix_key_type text NOT NULL CHECK (pix_key_type IN ('cpf', 'cnpj', 'email', 'phone', 'evp')),
  label text,
  approved_label text,
  approved_at timestamptz,
  status_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, id),
  CHECK (status <> 'active' OR approved_at IS NOT NULL)
);

-- GET /v1/recipients: an account's active recipients, newest approval first.
CREATE INDEX recipients_account_active ON recipients (account_id, approved_at DESC, id DESC) WHERE status = 'active';
-- The operator's queue: recipients of every account by status, oldest change first.
CREATE INDEX recipients_status_queue ON recipients (status, updated_at, account_id, id);
