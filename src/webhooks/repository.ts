import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor, Tx } from '../platform/database.js';
import type { WebhookDeliveryStatus, WebhookEndpointRow } from '../platform/schema.js';

/** An event to write; `transactionId` null for one about no transaction (a recurrence's). */
export type NewEvent = { id: string; accountId: string; transactionId: string | null; name: string; payload: string };

/**
 * Events (in the given order), each written at its own time, and one pending delivery per live
 * endpoint of each event's account whose filter selects it (an empty filter selects every event),
 * as the CTEs `new_event`, `event` and `delivery` of a caller's statement: a change and its events
 * commit in one round trip, and the events of many changes in one statement.
 */
export function eventsWithDeliveries(events: readonly TimedEvent[]): RawBuilder<unknown> {
  const column = <K extends keyof TimedEvent>(key: K) => events.map((event) => event[key]);
  return sql`new_event AS (
      SELECT * FROM unnest(${column('id')}::uuid[], ${column('accountId')}::uuid[], ${column('transactionId')}::uuid[],
                           ${column('name')}::text[], ${column('payload')}::text[], ${column('at')}::timestamptz[])
             WITH ORDINALITY AS e(id, account_id, transaction_id, name, payload, at, position)
    ), event AS (
      INSERT INTO events (id, account_id, transaction_id, name, payload, created_at)
      SELECT id, account_id, transaction_id, name, payload, at FROM new_event ORDER BY position
    ), delivery AS (
      INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, transaction_id, status, next_attempt_at, created_at, updated_at)
      SELECT uuid_v7(), e.account_id, endpoint.id, e.id, e.transaction_id, 'pending', e.at, e.at, e.at
      FROM new_event e
      JOIN webhook_endpoints endpoint ON endpoint.account_id = e.account_id AND endpoint.deleted_at IS NULL
      WHERE cardinality(endpoint.filters) = 0 OR e.name = ANY (endpoint.event_names)
      ORDER BY e.position, endpoint.id
    )`;
}

/** An event with the time it is written at. */
export type TimedEvent = NewEvent & { at: Date };

/** Inserts events with their deliveries (eventsWithDeliveries) in one statement of the caller's transaction. */
export async function insertEventsWithDeliveries(tx: Tx, events: readonly NewEvent[], at: Date): Promise<void> {
  if (events.length === 0) return;
  await sql`WITH ${eventsWithDeliveries(events.map((event) => ({ ...event, at })))} SELECT 1`.execute(tx);
}

// Endpoints

export type NewEndpoint = Pick<WebhookEndpointRow, 'id' | 'accountId' | 'url' | 'filters' | 'eventNames' | 'secretEncrypted' | 'createdAt'>;

export async function insertEndpoint(tx: Tx, endpoint: NewEndpoint): Promise<WebhookEndpointRow> {
  return tx
    .insertInto('webhookEndpoints')
    .values({ ...endpoint, previousSecretEncrypted: null, previousSecretExpiresAt: null, deletedAt: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Live endpoints of an account, oldest first. */
export async function listEndpoints(db: Executor, accountId: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhookEndpoints')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

export async function findEndpoint(db: Executor, endpointId: string, options: { lock?: boolean } = {}): Promise<WebhookEndpointRow | undefined> {
  let query = db.selectFrom('webhookEndpoints').selectAll().where('id', '=', endpointId).where('deletedAt', 'is', null);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Soft delete (its deliveries stay in the history); pending deliveries to it stop (the claim skips deleted endpoints). */
export async function deleteEndpoint(tx: Tx, accountId: string, endpointId: string, at: Date): Promise<boolean> {
  const result = await tx
    .updateTable('webhookEndpoints')
    .set({ deletedAt: at })
    .where('id', '=', endpointId)
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await tx
    .updateTable('webhookDeliveries')
    .set({ status: 'failed', leaseId: null, updatedAt: at })
    .where('accountId', '=', accountId)
    .where('endpointId', '=', endpointId)
    .where('status', '=', 'pending')
    // An attempt in flight is recorded by its worker; the claim never picks this endpoint again.
    .where('leaseId', 'is', null)
    .execute();
  return true;
}

export async function rotateEndpointSecret(
  tx: Tx,
  endpointId: string,
  secretEncrypted: string,
  previous: { secretEncrypted: string; expiresAt: Date } | null,
): Promise<void> {
  await tx
    .updateTable('webhookEndpoints')
    .set({ secretEncrypted, previousSecretEncrypted: previous?.secretEncrypted ?? null, previousSecretExpiresAt: previous?.expiresAt ?? null })
    .where('id', '=', endpointId)
    .execute();
}

// Dispatch

export type ClaimedDelivery = {
  id: string;
  accountId: string;
  eventId: string;
  eventName: string;
  payload: string;
  attemptCount: number;
  url: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
};

/**
 * Claims due deliveries for one worker: rows locked with SKIP LOCKED (other workers take other
 * rows) and leased by pushing `next_attempt_at` to the lease's end, so a worker that dies
 * mid-attempt gives its deliveries back when the lease runs out. One round trip.
 */
export async function claimDueDeliveries(db: Db, leaseId: string, now: Date, leaseEnd: Date, limit: number): Promise<ClaimedDelivery[]> {
  const result = await sql<ClaimedDelivery>`
    WITH claimed AS (
      UPDATE webhook_deliveries delivery SET lease_id = ${leaseId}, next_attempt_at = ${leaseEnd}
      FROM (
        SELECT due.id FROM webhook_deliveries due
        JOIN webhook_endpoints live ON live.id = due.endpoint_id AND live.deleted_at IS NULL
        WHERE due.status = 'pending' AND due.next_attempt_at <= ${now}
        ORDER BY due.next_attempt_at
        LIMIT ${limit}
        FOR UPDATE OF due SKIP LOCKED
      ) due
      WHERE delivery.id = due.id
      RETURNING delivery.id, delivery.account_id, delivery.event_id, delivery.endpoint_id, delivery.attempt_count
    )
    SELECT claimed.id, claimed.account_id, claimed.event_id, event.name AS event_name, event.payload, claimed.attempt_count,
      endpoint.url, endpoint.secret_encrypted, endpoint.previous_secret_encrypted, endpoint.previous_secret_expires_at
    FROM claimed
    JOIN events event ON event.id = claimed.event_id
    JOIN webhook_endpoints endpoint ON endpoint.id = claimed.endpoint_id
  `.execute(db);
  return result.rows;
}

export type AttemptOutcome = {
  deliveryId: string;
  /** The lease under which the attempt was made. */
  leaseId: string;
  attemptId: string;
  url: string;
  attemptedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  /** The delivery's state after this attempt, and when the next attempt is due if still pending. */
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date;
};

/**
 * Records attempts and moves their deliveries on, in one statement (one commit for a batch of
 * finished attempts), each only if its worker still holds the lease: a worker whose lease ran
 * out and was taken over writes nothing. Returns the deliveries recorded.
 */
export async function recordAttempts(db: Db, outcomes: readonly AttemptOutcome[], now: Date): Promise<Set<string>> {
  const column = <K extends keyof AttemptOutcome>(key: K) => outcomes.map((outcome) => outcome[key]);
  const result = await sql<{ deliveryId: string }>`
    WITH input AS (
      SELECT * FROM unnest(
        ${column('deliveryId')}::uuid[], ${column('leaseId')}::uuid[], ${column('attemptId')}::uuid[], ${column('status')}::text[],
        ${column('nextAttemptAt')}::timestamptz[], ${column('url')}::text[], ${column('attemptedAt')}::timestamptz[],
        ${column('durationMs')}::integer[], ${column('httpStatus')}::integer[], ${column('error')}::text[]
      ) AS attempt (delivery_id, lease_id, attempt_id, status, next_attempt_at, url, attempted_at, duration_ms, http_status, error)
    ),
    delivery AS (
      UPDATE webhook_deliveries
      SET status = input.status, attempt_count = webhook_deliveries.attempt_count + 1, next_attempt_at = input.next_attempt_at, lease_id = NULL, updated_at = ${now}
      FROM input
      WHERE webhook_deliveries.id = input.delivery_id AND webhook_deliveries.lease_id = input.lease_id
      RETURNING webhook_deliveries.id, webhook_deliveries.account_id, webhook_deliveries.attempt_count
    )
    INSERT INTO webhook_attempts (id, account_id, delivery_id, attempt_number, url, attempted_at, duration_ms, http_status, error)
    SELECT input.attempt_id, delivery.account_id, delivery.id, delivery.attempt_count, input.url, input.attempted_at, input.duration_ms, input.http_status, input.error
    FROM delivery JOIN input ON input.delivery_id = delivery.id
    RETURNING delivery_id
  `.execute(db);
  return new Set(result.rows.map((row) => row.deliveryId));
}

// History

export async function listAttempts(db: Db, accountId: string, filter: { eventId?: string; transactionId?: string; limit: number }) {
  let query = db
    .selectFrom('webhookAttempts as attempt')
    .innerJoin('webhookDeliveries as delivery', 'delivery.id', 'attempt.deliveryId')
    .innerJoin('events as event', 'event.id', 'delivery.eventId')
    .select([
      'attempt.id as attemptId',
      'delivery.id as deliveryId',
      'delivery.endpointId',
      'delivery.eventId',
      'event.name as eventName',
      'delivery.transactionId',
      'delivery.resendOf',
      'delivery.status as deliveryStatus',
      'attempt.attemptNumber',
      'attempt.url',
      'attempt.attemptedAt',
      'attempt.durationMs',
      'attempt.httpStatus',
      'attempt.error',
      'event.payload',
    ])
    .where('attempt.accountId', '=', accountId)
    .where('delivery.accountId', '=', accountId);
  if (filter.eventId) query = query.where('delivery.eventId', '=', filter.eventId);
  if (filter.transactionId) query = query.where('delivery.transactionId', '=', filter.transactionId);
  return query.orderBy('attempt.attemptedAt', 'desc').orderBy('attempt.id', 'desc').limit(filter.limit).execute();
}

/** One row of the attempt history, as listAttempts selects it. */
export type AttemptRecord = Awaited<ReturnType<typeof listAttempts>>[number];

export async function findDelivery(db: Executor, deliveryId: string) {
  return db.selectFrom('webhookDeliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
}

/** A new delivery of the same event to the same endpoint, due now. */
export async function insertResend(
  tx: Tx,
  original: { id: string; accountId: string; endpointId: string; eventId: string; transactionId: string | null },
  id: string,
  at: Date,
): Promise<void> {
  await tx
    .insertInto('webhookDeliveries')
    .values({
      id,
      accountId: original.accountId,
      endpointId: original.endpointId,
      eventId: original.eventId,
      transactionId: original.transactionId,
      resendOf: original.id,
      status: 'pending',
      nextAttemptAt: at,
      leaseId: null,
      createdAt: at,
      updatedAt: at,
    })
    .execute();
}

/** Drops history older than the retention: finished deliveries (their attempts cascade), then events nothing refers to. */
export async function purgeHistory(db: Db, before: Date): Promise<number> {
  const deliveries = await db.deleteFrom('webhookDeliveries').where('createdAt', '<', before).where('status', '!=', 'pending').executeTakeFirst();
  await db
    .deleteFrom('events')
    .where('createdAt', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhookDeliveries').select('id').whereRef('webhookDeliveries.eventId', '=', 'events.id'))))
    .execute();
  return Number(deliveries.numDeletedRows);
}

/** The outbox backlog: deliveries due now that no worker holds, and how long the oldest has waited. */
export async function dueDeliveryBacklog(db: Db, now: Date): Promise<{ due: number; oldestDueSeconds: number }> {
  const { rows } = await sql<{ due: number; oldestDueSeconds: number }>`
    SELECT count(*)::int8 AS due, coalesce(floor(extract(epoch FROM ${now}::timestamptz - min(next_attempt_at))), 0)::int8 AS oldest_due_seconds
    FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now}`.execute(db);
  return rows[0] ?? { due: 0, oldestDueSeconds: 0 };
}

/** Locks the account row so concurrent registrations count its endpoints one at a time; false if there is no such account. */
export async function lockAccountForEndpoints(tx: Tx, accountId: string): Promise<boolean> {
  const row = await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate().executeTakeFirst();
  return row !== undefined;
}

/** An endpoint whose latest attempts failed: how many in a row, and when the last one was. */
export type FailingEndpoint = { endpointId: string; url: string; failures: number; lastFailedAt: Date };

/**
 * The account's endpoints (not deleted) whose latest attempt, among its latest `window` attempts
 * since `since`, failed (no 2xx answer), with the failed attempts after its last success: one range
 * scan of webhook_attempts_account, bounded whatever the history's size.
 */
export async function failingEndpoints(db: Executor, accountId: string, since: Date, window: number): Promise<FailingEndpoint[]> {
  const { rows } = await sql<FailingEndpoint>`
    WITH recent AS (
      SELECT d.endpoint_id, a.attempted_at, coalesce(a.http_status BETWEEN 200 AND 299, false) AS ok
      FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE a.account_id = ${accountId} AND a.attempted_at >= ${since}
      ORDER BY a.attempted_at DESC LIMIT ${window}
    ), marked AS (
      SELECT endpoint_id, attempted_at,
             bool_or(ok) OVER (PARTITION BY endpoint_id ORDER BY attempted_at DESC ROWS UNBOUNDED PRECEDING) AS succeeded_since
      FROM recent
    )
    SELECT e.id AS endpoint_id, e.url, count(*)::int8 AS failures, max(m.attempted_at) AS last_failed_at
    FROM marked m JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.deleted_at IS NULL
    WHERE NOT m.succeeded_since
    GROUP BY e.id, e.url
    ORDER BY last_failed_at DESC, e.id`.execute(db);
  return rows;
}
