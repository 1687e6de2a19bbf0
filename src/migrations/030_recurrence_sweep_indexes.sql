-- Where a provider's sweep of its recurrences and cycle charges starts (recurrences/repository.ts,
-- oldestOpenAtProvider), read at every poll: the oldest open recurrence registered there, and the
-- oldest pending cycle charge. Without these, each poll read every recurrence and every cycle ever made.
CREATE INDEX recurrences_open_at_provider ON recurrences (provider_id, created_at)
  WHERE status IN ('awaiting_authorization', 'authorized') AND provider_recurrence_id IS NOT NULL;
CREATE INDEX transactions_pending_cycles ON transactions (provider_id, created_at)
  WHERE recurrence_id IS NOT NULL AND status = 'pending';
