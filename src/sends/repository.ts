import { sql, type RawBuilder } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import { grouped } from '../platform/grouped.js';
import type { ProviderSendKind, ProviderSendNote, ProviderSendRow, ProviderSendState } from '../platform/schema.js';

/** The history grows by one note (an attempt, a check, a decision), in the statement that changes the send. */
const appended = (note: ProviderSendNote): RawBuilder<string> => sql<string>`history || ${JSON.stringify([note])}::jsonb`;

/** What a new send is made of. */
export type NewSend = { id: string; kind: ProviderSendKind; accountId: string; at: Date; leaseUntil: Date | null; deadlineAt: Date };

/**
 * A new send as it is written with its debit (sendsInsert). With `leaseUntil`, its first attempt
 * starts now under that lease (the request that created it sends it); without, it waits to be
 * claimed (`claimUnsent`). Either way the worker takes it over when no result is recorded by the
 * lease's end.
 */
export function newSendRow(send: NewSend): ProviderSendRow {
  return {
    id: send.id,
    kind: send.kind,
    accountId: send.accountId,
    state: 'unsent',
    acknowledged: false,
    attempts: send.leaseUntil ? 1 : 0,
    attemptStartedAt: send.leaseUntil ? send.at : null,
    reachedMaybeAt: null,
    leaseUntil: send.leaseUntil ?? send.at,
    nextCheckAt: null,
    checks: 0,
    deadlineAt: send.deadlineAt,
    escalatedAt: null,
    blockId: null,
    history: [],
    createdAt: send.at,
    updatedAt: send.at,
  };
}

/** New sends (newSendRow) as one insert for a caller's statement (a CTE of the write that makes them owed: one round trip). */
export function sendsInsert(sends: readonly NewSend[]): RawBuilder<unknown> {
  const rows = sends.map(newSendRow);
  const column = <T>(value: (row: ProviderSendRow) => T) => rows.map(value);
  return sql`
    INSERT INTO provider_sends (id, kind, account_id, state, acknowledged, attempts, attempt_started_at, reached_maybe_at, lease_until,
                                next_check_at, checks, deadline_at, escalated_at, block_id, history, created_at, updated_at)
    SELECT s.id, s.kind, s.account_id, 'unsent', false, s.attempts, s.attempt_started_at, NULL, s.lease_until,
           NULL, 0, s.deadline_at, NULL, NULL, '[]', s.created_at, s.created_at
    FROM unnest(${column((row) => row.id)}::uuid[], ${column((row) => row.kind)}::text[], ${column((row) => row.accountId)}::uuid[],
                ${column((row) => row.attempts)}::int4[], ${column((row) => row.attemptStartedAt)}::timestamptz[], ${column((row) => row.leaseUntil)}::timestamptz[],
                ${column((row) => row.deadlineAt)}::timestamptz[], ${column((row) => row.createdAt)}::timestamptz[])
         AS s(id, kind, account_id, attempts, attempt_started_at, lease_until, deadline_at, created_at)`;
}

/** Writes a new send in the caller's transaction. */
export async function insertSend(tx: Tx, send: NewSend): Promise<ProviderSendRow> {
  await sendsInsert([send]).execute(tx);
  return newSendRow(send);
}

/**
 * Takes unsent sends whose lease lapsed (all of `kind`, or the one `id`) for a new attempt: an
 * earlier attempt with no recorded result counts from now on as one that may have reached the PSP.
 */
export async function claimUnsent(
  db: Executor,
  which: { kind: ProviderSendKind; limit: number } | { id: string },
  now: Date,
  leaseUntil: Date,
): Promise<ProviderSendRow[]> {
  const filter = 'id' in which ? sql`id = ${which.id}` : sql`kind = ${which.kind}`;
  const limit = 'id' in which ? 1 : which.limit;
  const unrecorded = sql`jsonb_build_array(jsonb_build_object('at', to_json(attempt_started_at), 'step', 'send', 'answer', 'no_result_recorded'))`;
  const { rows } = await sql<ProviderSendRow>`
    UPDATE provider_sends SET
      attempts = attempts + 1,
      reached_maybe_at = greatest(reached_maybe_at, attempt_started_at),
      history = CASE WHEN attempt_started_at IS NULL THEN history ELSE history || ${unrecorded} END,
      attempt_started_at = ${now}, lease_until = ${leaseUntil}, updated_at = ${now}
    WHERE id IN (
      SELECT id FROM provider_sends WHERE state = 'unsent' AND ${filter} AND lease_until <= ${now}
      ORDER BY lease_until LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return rows;
}

/** Takes sends whose check is due, holding each until `holdUntil` (another worker does not ask at the same time). */
export async function claimDueChecks(db: Executor, kind: ProviderSendKind, now: Date, holdUntil: Date, limit: number): Promise<ProviderSendRow[]> {
  const { rows } = await sql<ProviderSendRow>`
    UPDATE provider_sends SET next_check_at = ${holdUntil}
    WHERE id IN (
      SELECT id FROM provider_sends WHERE state IN ('sent', 'watching', 'owed') AND kind = ${kind} AND next_check_at <= ${now}
      ORDER BY next_check_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return rows;
}

export type SendChange = {
  state: ProviderSendState;
  note: ProviderSendNote;
  /** The attempt in progress ended with this result: `reached` when it may have reached the PSP. */
  attemptEnded?: { reached: boolean };
  acknowledged?: true;
  /** A check was made (the schedule moves on), or a decision resets it (a new phase starts). */
  checks?: 'counted' | 'reset';
  nextCheckAt?: Date | null;
  deadlineAt?: Date;
  escalatedAt?: Date;
  blockId?: string | null;
  /** Change it only from these states (an attempt's result is recorded only while it is unsent). */
  onlyFrom?: ProviderSendState[];
};

/** Changes a send and adds its note to the history; false when `onlyFrom` did not match. */
export async function changeSend(db: Executor, id: string, change: SendChange, at: Date): Promise<boolean> {
  let query = db
    .updateTable('providerSends')
    .set({ state: change.state, history: appended(change.note), updatedAt: at })
    .where('id', '=', id);
  if (change.attemptEnded) {
    query = query.set({ attemptStartedAt: null, leaseUntil: null });
    if (change.attemptEnded.reached) query = query.set({ reachedMaybeAt: sql`greatest(reached_maybe_at, attempt_started_at)` });
  }
  if (change.acknowledged) query = query.set({ acknowledged: true });
  if (change.checks === 'counted') query = query.set({ checks: sql`checks + 1` });
  if (change.checks === 'reset') query = query.set({ checks: 0 });
  if (change.nextCheckAt !== undefined) query = query.set({ nextCheckAt: change.nextCheckAt });
  if (change.deadlineAt) query = query.set({ deadlineAt: change.deadlineAt });
  if (change.escalatedAt) query = query.set({ escalatedAt: change.escalatedAt });
  if (change.blockId !== undefined) query = query.set({ blockId: change.blockId });
  if (change.onlyFrom) query = query.where('state', 'in', change.onlyFrom);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A PSP's acceptance of a send's attempt: its note and when it is first asked about (sends/changes.ts, acknowledged). */
export type Acknowledgement = { id: string; note: ProviderSendNote; at: Date; nextCheckAt: Date | null };

/**
 * Records the PSP's acceptance of several unsent sends in one statement (the change `acknowledged`
 * describes, for each): their attempts end as ones that reached the PSP, and they are asked about
 * from their `nextCheckAt`. Answers, per acknowledgement and in order, whether it was recorded
 * (false when the send was no longer unsent).
 */
async function acknowledgeSends(db: Executor, acknowledgements: Acknowledgement[]): Promise<boolean[]> {
  const { rows } = await sql<{ id: string }>`
    UPDATE provider_sends AS s SET
      state = 'sent', acknowledged = true, history = s.history || jsonb_build_array(a.note),
      reached_maybe_at = greatest(s.reached_maybe_at, s.attempt_started_at), attempt_started_at = NULL, lease_until = NULL,
      next_check_at = a.next_check_at, updated_at = a.at
    FROM unnest(${acknowledgements.map((ack) => ack.id)}::uuid[], ${acknowledgements.map((ack) => JSON.stringify(ack.note))}::jsonb[],
                ${acknowledgements.map((ack) => ack.at)}::timestamptz[], ${acknowledgements.map((ack) => ack.nextCheckAt)}::timestamptz[])
         AS a(id, note, at, next_check_at)
    WHERE s.id = a.id AND s.state = 'unsent'
    RETURNING s.id`.execute(db);
  const recorded = new Set(rows.map((row) => row.id));
  return acknowledgements.map((ack) => recorded.has(ack.id));
}

/** Acknowledgements written together with those of concurrent requests (platform/grouped.ts): one statement and one commit for many. */
export function acknowledgementWriter(db: Executor): (acknowledgement: Acknowledgement) => Promise<boolean> {
  return grouped((acknowledgements: Acknowledgement[]) => acknowledgeSends(db, acknowledgements));
}

export function findSend(db: Executor, id: string): Promise<ProviderSendRow | undefined> {
  return db.selectFrom('providerSends').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Open sends by kind, state and age (metrics): under a minute, an hour, 24 hours, or older. */
export async function countOpenByAge(db: Executor, now: Date): Promise<{ kind: ProviderSendKind; state: ProviderSendState; age: string; count: number }[]> {
  const { rows } = await sql<{ kind: ProviderSendKind; state: ProviderSendState; age: string; count: number }>`
    SELECT kind, state,
      CASE WHEN created_at > ${now}::timestamptz - interval '1 minute' THEN 'under_1m'
           WHEN created_at > ${now}::timestamptz - interval '1 hour' THEN 'under_1h'
           WHEN created_at > ${now}::timestamptz - interval '24 hours' THEN 'under_24h'
           ELSE 'over_24h' END AS age,
      count(*)::int8 AS count
    FROM provider_sends WHERE state <> 'closed'
    GROUP BY 1, 2, 3`.execute(db);
  return rows;
}

/** Sends still without an outcome past their deadline, or owing a debit: the operator's queue. */
const needingOperator = (db: Executor, now: Date) =>
  db
    .selectFrom('providerSends')
    .where((where) => where.or([where.and([where('state', '=', 'sent'), where('deadlineAt', '<=', now)]), where('state', '=', 'owed')]));

/** The operator's queue, oldest first. */
export function listNeedingOperator(db: Executor, now: Date, limit: number): Promise<ProviderSendRow[]> {
  return needingOperator(db, now).selectAll().orderBy('createdAt').limit(limit).execute();
}

export async function countNeedingOperator(db: Executor, now: Date): Promise<number> {
  const row = await needingOperator(db, now)
    .select(sql<number>`count(*)::int8`.as('count'))
    .executeTakeFirstOrThrow();
  return row.count;
}

/**
 * Ends an attempt that provably reached nobody and starts the next one, at another provider, under
 * a new lease: only while the send is unsent and no attempt may have reached a provider. False
 * otherwise (then it must not move).
 */
export async function restartUnreached(tx: Tx, id: string, note: ProviderSendNote, at: Date, leaseUntil: Date): Promise<boolean> {
  const result = await tx
    .updateTable('providerSends')
    .set({
      history: appended(note),
      attempts: sql`attempts + 1`,
      attemptStartedAt: at,
      leaseUntil,
      updatedAt: at,
    })
    .where('id', '=', id)
    .where('state', '=', 'unsent')
    .where('reachedMaybeAt', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
