-- Back-office operator users (DESIGN.md §11): their own table, a role, a scrypt password, TOTP
-- (mandatory: enrolled at the first sign-in), one-time invitations and server-side sessions, as the
-- dashboard's users (migration 007); the same code signs both in (src/users/credentials.ts).

CREATE TABLE operators (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'compliance', 'support')),
  password_hash text,
  totp_secret_encrypted text,
  totp_enrolled_at timestamptz,
  totp_last_step bigint,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  removed_at timestamptz
);
CREATE UNIQUE INDEX operators_email_live ON operators (lower(email)) WHERE removed_at IS NULL;

CREATE TABLE operator_invites (
  token_hash bytea PRIMARY KEY,
  operator_id uuid NOT NULL REFERENCES operators (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX operator_invites_operator ON operator_invites (operator_id);

CREATE TABLE operator_sessions (
  id_hash bytea PRIMARY KEY,
  operator_id uuid NOT NULL REFERENCES operators (id),
  stage text NOT NULL CHECK (stage IN ('password', 'full')),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX operator_sessions_operator_live ON operator_sessions (operator_id) WHERE ended_at IS NULL;

-- A dashboard session's account is its user's: one place for it, as for operators (who have none).
ALTER TABLE sessions DROP COLUMN account_id;
