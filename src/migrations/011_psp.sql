-- A real PSP (DESIGN.md §12) reports the same PIX more than once (notifications, batches, the
-- poller): a payment returned because its charge was no longer payable is recorded once per
-- end-to-end id, as a credited payment already is (transactions.end_to_end_id is unique).
CREATE UNIQUE INDEX refunds_one_return_per_payment ON refunds (payment_end_to_end_id) WHERE kind = 'returned_payment';

-- Where the API Pix poller stopped reading the PSP's received PIX (`GET /pix?inicio&fim`).
CREATE TABLE psp_cursors (
  name text PRIMARY KEY,
  position timestamptz NOT NULL
);
