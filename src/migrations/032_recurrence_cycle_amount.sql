-- The amount a cycle's charge was sent with while its provider has not confirmed it (an error, or
-- an answer lost): the PSP may hold it with that amount, so the worker's retries send the same,
-- whatever the merchant changed since (PATCH /v1/recurrences/{id}); cleared when the cycle moves on.
ALTER TABLE recurrences ADD COLUMN cycle_amount_cents bigint;
