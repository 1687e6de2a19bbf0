-- Fraud-marked destinations (DESIGN.md §19, Res. BCB 501): the keys and documents operators mark.
-- A removed mark stays, with who removed it and when (the list's history); at most one active
-- mark per kind and value. Every change bumps fraud_marks_version in its transaction, so that a
-- process's in-memory copy of the list is refreshed by one primary-key read (docs/fraud-marks.md).
CREATE TABLE fraud_marks (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('key', 'document')),
  key_type text CHECK (key_type IN ('cpf', 'cnpj', 'email', 'phone', 'evp')),
  value text NOT NULL,
  reason text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  removed_by text,
  removed_at timestamptz,
  CHECK ((kind = 'key') = (key_type IS NOT NULL)),
  CHECK ((removed_at IS NULL) = (removed_by IS NULL))
);
CREATE UNIQUE INDEX fraud_marks_active ON fraud_marks (kind, value) WHERE removed_at IS NULL;
CREATE INDEX fraud_marks_newest ON fraud_marks (created_at DESC, id DESC);

CREATE TABLE fraud_marks_version (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version bigint NOT NULL
);
INSERT INTO fraud_marks_version (singleton, version) VALUES (true, 0);

-- A key the simulated DICT reports as fraud-marked (POST /sandbox/v1/dict/keys { fraudMarked: true }).
ALTER TABLE sandbox_dict_keys ADD COLUMN fraud_marked boolean NOT NULL DEFAULT false;

-- Why a block holds money: `precautionary` (an operator's, a MED case's, an owed debit's) or
-- `fraud_mark` (a PIX received from a marked payer, held until an operator releases it).
ALTER TABLE blocks ADD COLUMN kind text NOT NULL DEFAULT 'precautionary' CHECK (kind IN ('precautionary', 'fraud_mark'));
