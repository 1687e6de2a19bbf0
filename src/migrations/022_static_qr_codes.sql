-- Static QR codes (DESIGN.md §17): a merchant's reusable BR Code on the provider's receiving key.
-- Every PIX paid to one is a new pix_in transaction that names it. The txid is unique across the
-- gateway, because every merchant's static codes share the provider's key and the txid alone says
-- whose a PIX is.
CREATE TABLE static_qr_codes (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  txid text NOT NULL,
  amount_cents bigint CHECK (amount_cents IS NULL OR amount_cents > 0),
  description text,
  pix_payload text NOT NULL,
  provider_id text NOT NULL,
  external_ref text,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  deactivated_at timestamptz
);
-- Whatever its case: bank statements upper-case txids (src/pix/txid.ts), so loja1 and LOJA1 are one.
CREATE UNIQUE INDEX static_qr_codes_txid ON static_qr_codes (upper(txid));
CREATE INDEX static_qr_codes_account ON static_qr_codes (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX static_qr_codes_external_ref ON static_qr_codes (account_id, external_ref) WHERE external_ref IS NOT NULL;

ALTER TABLE transactions ADD COLUMN static_qr_id uuid REFERENCES static_qr_codes (id);
