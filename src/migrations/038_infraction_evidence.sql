-- Evidence files of a MED case's defense (DESIGN.md §19): at most 5 per case, PDF, PNG or JPEG by
-- their bytes, up to 10 MB each, stored in the database. The bytes are written as the upload is
-- read, 256 KB a row, in the upload's transaction; the metadata row is written last, with the size
-- counted, so the chunks' foreign key is checked at commit (DEFERRABLE). Nothing is ever updated or
-- deleted. Every row carries its account, and every query filters by it.
CREATE TABLE infraction_evidence (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  infraction_id uuid NOT NULL REFERENCES infractions (id),
  file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 200),
  content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size_bytes integer NOT NULL CHECK (size_bytes BETWEEN 1 AND 10485760),
  created_at timestamptz NOT NULL
);
CREATE INDEX infraction_evidence_of_case ON infraction_evidence (infraction_id, created_at, id);

CREATE TABLE infraction_evidence_chunks (
  evidence_id uuid NOT NULL REFERENCES infraction_evidence (id) DEFERRABLE INITIALLY DEFERRED,
  account_id uuid NOT NULL REFERENCES accounts (id),
  position integer NOT NULL CHECK (position >= 0),
  bytes bytea NOT NULL,
  PRIMARY KEY (evidence_id, position)
);
