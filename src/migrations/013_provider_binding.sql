-- Every transaction records the provider that issued its BR Code or sent it (DESIGN.md §14): it is
-- paid, cancelled, refunded, queried and reconciled there, whatever the routing says later. The
-- rows before several providers existed all belong to the one PIX_PROVIDER configured, `default`.
ALTER TABLE transactions ADD COLUMN provider_id text NOT NULL DEFAULT 'default';
-- From here every insert names its provider: no row falls back to one silently.
ALTER TABLE transactions ALTER COLUMN provider_id DROP DEFAULT;
