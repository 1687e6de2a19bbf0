-- A PSP reports a recurrence by its idRec (Pix Automático through API Pix, docs/recurrences.md): found by provider and idRec.
CREATE INDEX recurrences_provider_rec ON recurrences (provider_id, provider_recurrence_id) WHERE provider_recurrence_id IS NOT NULL;
