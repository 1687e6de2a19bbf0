-- MED defense deadline reminders (DESIGN.md §19): 48, 24 and 6 hours before a running case's
-- deadline the worker writes transaction.dispute_deadline and an operator alert, once per stage.
-- reminded_stage is the latest stage written (hours before the deadline); a stage is due while the
-- case was never reminded or last at a larger one. The worker claims cases through
-- infractions_defense_due (migration 006) with SKIP LOCKED and moves this column in the same
-- transaction as the event, so two workers never remind a case twice at one stage.
ALTER TABLE infractions ADD COLUMN reminded_stage smallint CHECK (reminded_stage IN (48, 24, 6));
