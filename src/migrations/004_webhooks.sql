-- Webhooks: endpoints, one delivery per (event, endpoint) with its retry state, and every attempt.

-- The body of an event is sent byte for byte as stored, so it is kept as text (jsonb would
-- reorder keys and the history must show the exact payload).
ALTER TABLE events ALTER COLUMN payload TYPE text USING payload::text;

-- UUID v7 (48-bit Unix milliseconds, version 7, RFC 9562 variant) for rows created by SQL itself,
-- such as the deliveries of a fan-out: same shape as the ids the application makes.
CREATE FUNCTION uuid_v7() RETURNS uuid AS $$
  SELECT encode(
    set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1),
    'hex')::uuid
$$ LANGUAGE sql VOLATILE;

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  url text NOT NULL,
  -- The filter as registered (canonical names and categories); empty = every event.
  filters text[] NOT NULL,
  -- The filter expanded to canonical names, matched when an event is written.
  event_names text[] NOT NULL,
  -- Signing secrets, encrypted with the server secret (AES-256-GCM).
  secret_encrypted text NOT NULL,
  previous_secret_encrypted text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id),
  event_id uuid NOT NULL REFERENCES events (id),
  transaction_id uuid,
  -- The delivery this one re-fires (manual resend).
  resend_of uuid REFERENCES webhook_deliveries (id) ON DELETE SET NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  -- When the next attempt is due; while a worker holds the delivery, when its lease ends.
  next_attempt_at timestamptz NOT NULL,
  lease_id uuid,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_account_event ON webhook_deliveries (account_id, event_id);
CREATE INDEX webhook_deliveries_account_transaction ON webhook_deliveries (account_id, transaction_id);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
-- The purge deletes events and deliveries: their references must be found by index.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_resend_of ON webhook_deliveries (resend_of) WHERE resend_of IS NOT NULL;

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_number integer NOT NULL,
  url text NOT NULL,
  attempted_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  http_status integer,
  error text,
  UNIQUE (delivery_id, attempt_number)
);
CREATE INDEX webhook_attempts_account ON webhook_attempts (account_id, attempted_at DESC);
