-- The PIX paid to a static QR code (DESIGN.md §17), read by the dashboard's page of the code and
-- counted on its list. Partial: every other transaction has no static_qr_id and stays out of it.
CREATE INDEX transactions_static_qr ON transactions (account_id, static_qr_id, created_at DESC, id DESC) WHERE static_qr_id IS NOT NULL;
