-- BCB's ajusteDiaUtil for Pix Automático: a recurrence whose cycles falling on a weekend or a
-- national or bank holiday are debited on the next business day (recurrences/service.ts, dateOfCycle).
ALTER TABLE recurrences ADD COLUMN business_day_adjustment boolean NOT NULL DEFAULT false;
