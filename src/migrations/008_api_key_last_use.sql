-- A key's last use (DESIGN.md §10: the Chaves de API page lists it). Written at most once a minute
-- per key and process, so the API's hot path stays read-only.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
