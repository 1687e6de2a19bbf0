import pg from 'pg';

/** What the history scenario seeded: one account's transactions over `days` days up to `endMs`, and their ledger entries. */
export type HistorySeed = {
  rows: number;
  entries: number;
  startMs: number;
  endMs: number;
  seconds: number;
  /** Seconds per step: transactions, ledger, indexes, vacuum. */
  steps: Record<string, number>;
};

const DAY_MS = 86_400_000;

/**
 * `rows` transactions of one account, spread evenly (with jitter) over the `days` days before now,
 * in one set-based INSERT … SELECT generate_series, then VACUUM ANALYZE (what autovacuum would have
 * done to a table that grew over a month: statistics and the visibility map).
 *
 * Every value is derived from the row number by hashint8 (deterministic, not random()): the same
 * row count gives the same mix on every run. Ids are UUID v7 built in SQL: the 48-bit millisecond
 * time of created_at in hex, version nibble 7, variant nibble 8–b, the rest from md5(row). Rows are
 * inserted in creation order, as a month of traffic appends them.
 *
 * The mix: 80% charges (paid 70%, expired 20%, cancelled 4%, refunded 2%, partially refunded 2%,
 * failed 2%), 20% withdrawals (paid 86%, failed 6%, cancelled 3%, refunded 2%, partially refunded
 * 1%, pending approval 1%, failed_unknown 1%), the same at every age (no charge left pending: the
 * newest page carries as much as an old one, so pages compare by their depth alone); 30% carry an
 * externalRef, settled ones an endToEndId, payers and customers drawn from 200,000 CPFs.
 *
 * The ledger follows (the OFX export reads the merchant book's movements): a paid charge's credit,
 * a refund's debit an hour after the payment, a withdrawal's debit (all but those awaiting approval
 * or cancelled before being sent) and a failed one's reversal a minute later, each movement with its
 * merchant, fees and settlement entries as the services post them, in time order; the balance row
 * gets the merchant book's sum, the daily summary (ledger_days) its sums per São Paulo day.
 */
export async function seedHistory(databaseUrl: string, accountId: string, rows: number, days = 30): Promise<HistorySeed> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  const steps: Record<string, number> = {};
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    const result = await work();
    steps[name] = Math.round((performance.now() - at) / 100) / 10;
    return result;
  };
  try {
    const endMs = Date.now();
    const startMs = endMs - days * DAY_MS;
    // The seed's own session: no WAL flush wait per commit (one commit anyway), room to sort.
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query(`SET work_mem = '256MB'`);
    // Bulk load: the secondary indexes are built after the rows (a sort each, instead of a million
    // scattered inserts), from their own definitions, so they end up exactly as the migrations made
    // them; the rows reference what exists by construction, so the foreign-key triggers are off.
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(SECONDARY_INDEXES_SQL);
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    await client.query(`SET session_replication_role = replica`);
    await step('transactions', () => client.query(SEED_SQL, [accountId, rows, startMs, endMs - startMs]));
    const ledger = await step('ledger', () => client.query(LEDGER_SQL, [accountId]));
    // The ledger's daily summary (migration 040), as the statements that post movements keep it.
    await step('days', () => client.query(DAYS_SQL, [accountId]));
    await client.query(`SET session_replication_role = DEFAULT`);
    await step('indexes', async () => {
      for (const index of indexes) await client.query(index.definition);
    });
    await client.query(
      `UPDATE balances SET available_cents = (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries WHERE account_id = $1 AND book = 'merchant'), updated_at = now() WHERE account_id = $1`,
      [accountId],
    );
    await step('vacuum', () => client.query(`VACUUM (ANALYZE) transactions, ledger_entries`));
    return { rows, entries: ledger.rowCount ?? 0, startMs, endMs, seconds: (performance.now() - started) / 1000, steps };
  } finally {
    await client.end();
  }
}

/** The indexes of the seeded tables that no constraint owns (those stay: primary keys, unique columns). */
const SECONDARY_INDEXES_SQL = `
SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
FROM pg_index i
WHERE i.indrelid IN ('transactions'::regclass, 'ledger_entries'::regclass)
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)
ORDER BY 1`;

/**
 * $1 account, $2 rows, $3 first millisecond, $4 span in ms. Layered subqueries: `base` (row number,
 * time, draws u1…u6), `typed` (type, status), then the columns.
 */
const SEED_SQL = `
INSERT INTO transactions (
  id, account_id, type, status, amount_cents, fee_cents, net_cents, external_ref, description, customer,
  pix_payload, location, expires_at, paid_at, end_to_end_id, payer, beneficiary, expected_holder,
  refund_end_to_end_id, refunded_cents, pix_key, pix_key_type, provider_id, created_at, updated_at
)
SELECT
  (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-' || substr('89ab', 1 + (i % 4)::int, 1) || substr(r, 4, 3) || '-' || substr(r, 7, 12))::uuid,
  $1::uuid,
  type,
  status,
  amount,
  fee,
  CASE WHEN type = 'pix_in' THEN amount - fee ELSE amount END,
  CASE WHEN u4 < 0.3 THEN (CASE WHEN type = 'pix_in' THEN 'pedido-' ELSE 'saque-' END) || i END,
  CASE WHEN u5 < 0.5 THEN 'Pedido ' || i || ' da loja' END,
  CASE WHEN type = 'pix_in' AND u5 < 0.7 THEN jsonb_build_object(
    'name', 'Cliente ' || doc_n, 'email', 'cliente' || doc_n || '@example.com', 'phone', '11987654321',
    'document', jsonb_build_object('number', substr(doc, 1, 3) || '.' || substr(doc, 4, 3) || '.' || substr(doc, 7, 3) || '-' || substr(doc, 10, 2), 'type', 'cpf')) END,
  CASE WHEN type = 'pix_in' THEN '00020101021226890014br.gov.bcb.pix2567pix.example.com/qr/v3/' || r || '5204000053039865802BR5915Loja Bench 00016009Sao Paulo62070503***6304' || upper(substr(r, 20, 4)) END,
  CASE WHEN type = 'pix_in' THEN 'pix.example.com/qr/v3/' || r END,
  CASE WHEN type = 'pix_in' THEN created + interval '1 hour' END,
  paid,
  CASE WHEN settled THEN 'E' || CASE WHEN type = 'pix_in' THEN '60701190' ELSE '13935893' END || to_char(paid AT TIME ZONE 'UTC', 'YYYYMMDDHH24MI') || upper(substr(r, 20, 4)) || lpad(i::text, 7, '0') END,
  CASE WHEN type = 'pix_in' AND settled THEN jsonb_build_object('name', 'Pagador ' || doc_n, 'document', doc, 'documentType', 'cpf', 'bankAccount', jsonb_build_object('ispb', '60701190', 'branch', '0001', 'account', lpad((doc_n * 7)::text, 8, '0'))) END,
  CASE WHEN type = 'withdrawal' AND settled THEN jsonb_build_object('name', 'Favorecido ' || doc_n, 'document', doc, 'documentType', 'cpf', 'bankAccount', jsonb_build_object('ispb', '00000000', 'branch', '1234', 'account', lpad((doc_n * 3)::text, 8, '0'))) END,
  CASE WHEN type = 'withdrawal' THEN jsonb_build_object('name', 'Favorecido ' || doc_n, 'document', doc, 'documentType', 'cpf') END,
  CASE WHEN type = 'pix_in' AND status IN ('refunded', 'partially_refunded') THEN 'D60701190' || to_char(paid AT TIME ZONE 'UTC', 'YYYYMMDDHH24MI') || upper(substr(r, 24, 4)) || lpad(i::text, 7, '0') END,
  CASE WHEN type = 'pix_in' AND status = 'refunded' THEN amount WHEN type = 'pix_in' AND status = 'partially_refunded' THEN amount / 2 ELSE 0 END,
  CASE WHEN type = 'withdrawal' THEN doc END,
  CASE WHEN type = 'withdrawal' THEN 'cpf' END,
  'default',
  created,
  CASE WHEN status = 'expired' THEN created + interval '1 hour' ELSE coalesce(paid, created) END
FROM (
  SELECT typed.*,
    status IN ('paid', 'refunded', 'partially_refunded') AS settled,
    CASE WHEN status IN ('paid', 'refunded', 'partially_refunded') THEN created + make_interval(secs => CASE WHEN type = 'pix_in' THEN 5 + floor(u6 * 600) ELSE 2 END) END AS paid,
    CASE WHEN type = 'pix_in' THEN 100 + floor(u3 * u3 * u3 * 500000)::bigint ELSE 1000 + floor(u3 * u3 * 900000)::bigint END AS amount,
    CASE WHEN type = 'pix_in' THEN greatest(1, floor((100 + floor(u3 * u3 * u3 * 500000)) * 99 / 10000))::bigint ELSE 100 END AS fee
  FROM (
    SELECT base.*,
      CASE WHEN u1 < 0.8 THEN 'pix_in' ELSE 'withdrawal' END AS type,
      CASE WHEN u1 < 0.8 THEN
        CASE WHEN u2 < 0.70 THEN 'paid' WHEN u2 < 0.90 THEN 'expired' WHEN u2 < 0.94 THEN 'cancelled'
             WHEN u2 < 0.96 THEN 'refunded' WHEN u2 < 0.98 THEN 'partially_refunded' ELSE 'failed' END
      ELSE
        CASE WHEN u2 < 0.86 THEN 'paid' WHEN u2 < 0.92 THEN 'failed' WHEN u2 < 0.95 THEN 'cancelled'
             WHEN u2 < 0.97 THEN 'refunded' WHEN u2 < 0.98 THEN 'partially_refunded' WHEN u2 < 0.99 THEN 'pending_approval' ELSE 'failed_unknown' END
      END AS status
    FROM (
      SELECT i, ms, lpad(to_hex(ms), 12, '0') AS h, md5(i::text) AS r,
        timestamptz 'epoch' + ms * interval '1 millisecond' AS created,
        doc_n, (10000000000 + doc_n::bigint * 44449)::text AS doc,
        u1, u2, u3, u4, u5, u6
      FROM (
        SELECT i,
          $3::bigint + floor((i - 1 + ((hashint8(i * 8) & 2147483647) / 2147483648.0)) * $4::bigint / $2::bigint)::bigint AS ms,
          (hashint8(i * 8 + 7) & 2147483647) % 200000 AS doc_n,
          (hashint8(i * 8 + 1) & 2147483647) / 2147483648.0 AS u1,
          (hashint8(i * 8 + 2) & 2147483647) / 2147483648.0 AS u2,
          (hashint8(i * 8 + 3) & 2147483647) / 2147483648.0 AS u3,
          (hashint8(i * 8 + 4) & 2147483647) / 2147483648.0 AS u4,
          (hashint8(i * 8 + 5) & 2147483647) / 2147483648.0 AS u5,
          (hashint8(i * 8 + 6) & 2147483647) / 2147483648.0 AS u6
        FROM generate_series(1, $2::bigint) AS i
      ) draws
    ) base
  ) typed
) rows
`;

/** $1 account: the movements of its seeded transactions, three entries each (a zero fee entry left out). */
const LEDGER_SQL = `
WITH movements AS (
  SELECT id, account_id, 'charge_paid' AS kind, paid_at AS at, net_cents AS merchant, fee_cents AS fees, -amount_cents AS settlement, 1 AS n
    FROM transactions WHERE account_id = $1 AND type = 'pix_in' AND status IN ('paid', 'refunded', 'partially_refunded')
  UNION ALL
  SELECT id, account_id, 'refund_reserve', paid_at + interval '1 hour', -refunded_cents, 0, refunded_cents, 2
    FROM transactions WHERE account_id = $1 AND type = 'pix_in' AND status IN ('refunded', 'partially_refunded')
  UNION ALL
  SELECT id, account_id, 'withdrawal_debit', created_at, -(amount_cents + fee_cents), fee_cents, amount_cents, 1
    FROM transactions WHERE account_id = $1 AND type = 'withdrawal' AND status NOT IN ('pending_approval', 'cancelled')
  UNION ALL
  SELECT id, account_id, 'withdrawal_reversal', created_at + interval '1 minute', amount_cents + fee_cents, -fee_cents, -amount_cents, 2
    FROM transactions WHERE account_id = $1 AND type = 'withdrawal' AND status = 'failed'
)
INSERT INTO ledger_entries (account_id, movement_id, book, kind, transaction_id, amount_cents, created_at)
SELECT account_id, md5(id::text || '/' || n)::uuid, entry.book, kind, id, entry.amount, at
FROM movements CROSS JOIN LATERAL (VALUES (1, 'merchant', merchant), (2, 'fees', fees), (3, 'settlement', settlement)) AS entry (position, book, amount)
WHERE entry.amount <> 0 OR entry.book = 'merchant'
ORDER BY at, id, n, entry.position
`;

/** $1 account: its merchant entries summed per America/Sao_Paulo day (migration 040's backfill). */
const DAYS_SQL = `
INSERT INTO ledger_days (account_id, day, credited_cents, debited_cents)
SELECT account_id, (created_at AT TIME ZONE 'America/Sao_Paulo')::date,
       coalesce(sum(amount_cents) FILTER (WHERE amount_cents > 0), 0),
       coalesce(-sum(amount_cents) FILTER (WHERE amount_cents < 0), 0)
FROM ledger_entries WHERE account_id = $1 AND book = 'merchant' AND amount_cents <> 0
GROUP BY 1, 2`;
