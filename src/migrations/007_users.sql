-- Merchant dashboard users (DESIGN.md §10): one account each, a role, a scrypt password, TOTP,
-- one-time invitations and server-side sessions (only hashes of the random tokens are stored).

CREATE TABLE users (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'developer', 'finance', 'viewer')),
  -- scrypt$N$r$p$<salt>$<key> (base64); null until the invitation is accepted.
  password_hash text,
  -- AES-256-GCM under the server secret (as webhook secrets); enrolled once confirmed with a code.
  totp_secret_encrypted text,
  totp_enrolled_at timestamptz,
  -- The last TOTP time step accepted: a code is good once.
  totp_last_step bigint,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  removed_at timestamptz
);
-- Sign-in is by e-mail: one live user per address across accounts.
CREATE UNIQUE INDEX users_email_live ON users (lower(email)) WHERE removed_at IS NULL;
CREATE INDEX users_account ON users (account_id) WHERE removed_at IS NULL;

CREATE TABLE user_invites (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX user_invites_user ON user_invites (user_id);

CREATE TABLE sessions (
  id_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- 'password': the password was right, the TOTP code is still to come; 'full': signed in.
  stage text NOT NULL CHECK (stage IN ('password', 'full')),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX sessions_user_live ON sessions (user_id) WHERE ended_at IS NULL;
