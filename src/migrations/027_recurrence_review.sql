-- Pix Automático review fixes (docs/recurrences.md).
-- A recurrence left `created` (its provider failed, no externalRef to retry with) expires as a request does: the sweep reads both.
DROP INDEX recurrences_awaiting;
CREATE INDEX recurrences_awaiting ON recurrences (authorization_expires_at) WHERE status IN ('created', 'awaiting_authorization');
