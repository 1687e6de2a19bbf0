import { sql } from 'kysely';
import type { Executor } from '../../platform/database.js';
import { precompiled } from '../../platform/precompiled.js';
import type { Party, SimulatedOutage } from '../../platform/schema.js';

/** The simulated network's own state: armed failures, its DICT and the withdrawals it was sent. */

export type DirectiveOperation = 'charge' | 'withdrawal' | 'refund';

/** Arms a one-shot outcome for the account's next call of that operation. */
export async function armDirective(db: Executor, accountId: string, operation: DirectiveOperation, outcome: string): Promise<void> {
  await db.insertInto('sandboxDirectives').values({ accountId, operation, outcome }).execute();
}

const oldestDirective = precompiled((db, accountId: string, operation: DirectiveOperation) =>
  db
    .deleteFrom('sandboxDirectives')
    .where('id', '=', (eb) =>
      eb
        .selectFrom('sandboxDirectives')
        .select('id')
        .where('accountId', '=', accountId)
        .where('operation', '=', operation)
        .orderBy('id')
        .limit(1)
        .forUpdate()
        .skipLocked(),
    )
    .returning('outcome'),
);

/**
 * Which of `accountIds` have an outcome armed for `operation`, in one statement for the calls of
 * many requests (platform/grouped.ts): almost none has, and only those need `takeDirective`.
 */
export async function armedAmong(db: Executor, operation: DirectiveOperation, accountIds: string[]): Promise<Set<string>> {
  const { rows } = await sql<{ accountId: string }>`
    SELECT DISTINCT account_id FROM sandbox_directives WHERE operation = ${operation} AND account_id = ANY (${accountIds}::uuid[])`.execute(db);
  return new Set(rows.map((row) => row.accountId));
}

/** Consumes the oldest armed outcome, if any: exactly one call sees it, even across processes. */
export async function takeDirective(db: Executor, accountId: string, operation: DirectiveOperation): Promise<string | undefined> {
  const [row] = await oldestDirective(db, accountId, operation);
  return row?.outcome;
}

/** Registers (or replaces) who holds an email/phone/evp key for this merchant, and whether it is fraud-marked. */
export async function upsertDictKey(
  db: Executor,
  entry: { accountId: string; keyType: string; key: string; owner: Party; fraudMarked: boolean },
): Promise<void> {
  const owner = JSON.stringify(entry.owner);
  await db
    .insertInto('sandboxDictKeys')
    .values({ ...entry, owner })
    .onConflict((conflict) => conflict.columns(['accountId', 'keyType', 'key']).doUpdateSet({ owner, fraudMarked: entry.fraudMarked }))
    .execute();
}

/** Who holds a key of the merchant's DICT, and whether the DICT marks it for fraud. */
export function findDictKey(db: Executor, accountId: string, keyType: string, key: string): Promise<{ owner: Party; fraudMarked: boolean } | undefined> {
  return db
    .selectFrom('sandboxDictKeys')
    .select(['owner', 'fraudMarked'])
    .where('accountId', '=', accountId)
    .where('keyType', '=', keyType)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function insertSubmittedWithdrawal(
  db: Executor,
  withdrawal: { providerId: string; transactionId: string; accountId: string; amountCents: number; beneficiary: Party; settleAt: Date | null; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('sandboxWithdrawals')
    .values({ ...withdrawal, beneficiary: JSON.stringify(withdrawal.beneficiary), outcome: null, endToEndId: null })
    // Two attempts of one send racing: the network keeps the first.
    .onConflict((conflict) => conflict.columns(['providerId', 'transactionId']).doNothing())
    .execute();
}

/** A withdrawal as the network records it on arrival. */
export type ArrivingWithdrawal = {
  providerId: string;
  transactionId: string;
  accountId: string;
  amountCents: number;
  beneficiary: Party;
  settleAt: Date | null;
  createdAt: Date;
};

/**
 * The usual arrival of many sends in one statement (platform/grouped.ts): each is recorded, or
 * found already received (an earlier attempt of the same transaction id), unless its account has a
 * withdrawal outcome armed: for those (false) the caller runs `receiveWithdrawal`, which decides
 * the directive as for a lone send.
 */
export async function receiveUsualWithdrawals(db: Executor, withdrawals: ArrivingWithdrawal[]): Promise<boolean[]> {
  const column = <K extends keyof ArrivingWithdrawal>(key: K) => withdrawals.map((withdrawal) => withdrawal[key]);
  const { rows } = await sql<{ armed: boolean }>`
    WITH item AS (
      SELECT * FROM unnest(${column('providerId')}::text[], ${column('transactionId')}::uuid[], ${column('accountId')}::uuid[],
                           ${column('amountCents')}::int8[], ${withdrawals.map((withdrawal) => JSON.stringify(withdrawal.beneficiary))}::jsonb[],
                           ${column('settleAt')}::timestamptz[], ${column('createdAt')}::timestamptz[])
             WITH ORDINALITY AS i(provider_id, transaction_id, account_id, amount_cents, beneficiary, settle_at, created_at, position)
    ), armed AS (
      SELECT DISTINCT account_id FROM sandbox_directives WHERE operation = 'withdrawal' AND account_id IN (SELECT account_id FROM item)
    ), recorded AS (
      INSERT INTO sandbox_withdrawals (provider_id, transaction_id, account_id, amount_cents, beneficiary, settle_at, created_at, outcome, end_to_end_id)
      SELECT provider_id, transaction_id, account_id, amount_cents, beneficiary, settle_at, created_at, NULL, NULL
      FROM item WHERE account_id NOT IN (SELECT account_id FROM armed)
      ORDER BY position
      -- Received already (an earlier attempt, or two attempts of one send racing): the network keeps the first.
      ON CONFLICT (provider_id, transaction_id) DO NOTHING
    )
    SELECT item.account_id IN (SELECT account_id FROM armed) AS armed FROM item ORDER BY position`.execute(db);
  return rows.map((row) => !row.armed);
}

/** What a send found at the network: a receipt from an earlier attempt, the directive it consumed, or its own new record. */
export type WithdrawalReceipt = { existing: boolean; directive: string | null; recorded: boolean };

/**
 * A send's arrival at the network in one statement: an earlier receipt of the same transaction id
 * answers alone; otherwise the oldest armed directive is consumed; with none, and when `record`
 * is given (a key that needs no DICT lookup), the withdrawal is recorded. What was not decided
 * here (a directive, a DICT key) the caller decides with the other functions of this module.
 */
export async function receiveWithdrawal(
  db: Executor,
  withdrawal: { providerId: string; transactionId: string; accountId: string; amountCents: number; createdAt: Date },
  record: { beneficiary: Party; settleAt: Date | null } | null,
): Promise<WithdrawalReceipt> {
  const { rows } = await sql<WithdrawalReceipt>`
    WITH existing AS (
      SELECT 1 FROM sandbox_withdrawals WHERE provider_id = ${withdrawal.providerId} AND transaction_id = ${withdrawal.transactionId}
    ), taken AS (
      DELETE FROM sandbox_directives
      WHERE id = (SELECT id FROM sandbox_directives WHERE account_id = ${withdrawal.accountId} AND operation = 'withdrawal' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND NOT EXISTS (SELECT 1 FROM existing)
      RETURNING outcome
    ), recorded AS (
      INSERT INTO sandbox_withdrawals (provider_id, transaction_id, account_id, amount_cents, beneficiary, settle_at, created_at, outcome, end_to_end_id)
      SELECT ${withdrawal.providerId}, ${withdrawal.transactionId}::uuid, ${withdrawal.accountId}::uuid, ${withdrawal.amountCents}::int8,
             ${record ? JSON.stringify(record.beneficiary) : null}::jsonb, ${record?.settleAt ?? null}::timestamptz, ${withdrawal.createdAt}::timestamptz, NULL, NULL
      WHERE ${record !== null}::boolean AND NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM taken)
      -- Two attempts of one send racing: the network keeps the first.
      ON CONFLICT (provider_id, transaction_id) DO NOTHING
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM existing) AS existing, (SELECT outcome FROM taken) AS directive, EXISTS (SELECT 1 FROM recorded) AS recorded`.execute(db);
  const [receipt] = rows;
  if (!receipt) throw new Error('withdrawal receipt returned no row');
  return receipt;
}

export function findSubmittedWithdrawal(db: Executor, providerId: string, transactionId: string) {
  return db
    .selectFrom('sandboxWithdrawals')
    .select(['outcome', 'beneficiary', 'endToEndId'])
    .where('providerId', '=', providerId)
    .where('transactionId', '=', transactionId)
    .executeTakeFirst();
}

/** The network's final answer; a paid one keeps the end-to-end id it was paid under. Undefined when the network never received the withdrawal. */
export function decideSubmittedWithdrawal(
  db: Executor,
  providerId: string,
  transactionId: string,
  decision: { outcome: 'paid' | 'failed'; endToEndId: string | null },
) {
  return db
    .updateTable('sandboxWithdrawals')
    .set(decision)
    .where('providerId', '=', providerId)
    .where('transactionId', '=', transactionId)
    .returning('beneficiary')
    .executeTakeFirst();
}

/** Undecided withdrawals whose automatic settlement time has come, oldest first. */
export function findDueSettlements(db: Executor, providerId: string, now: Date, limit: number) {
  return db
    .selectFrom('sandboxWithdrawals')
    .select(['transactionId', 'accountId'])
    .where('providerId', '=', providerId)
    .where('outcome', 'is', null)
    .where('settleAt', '<=', now)
    .orderBy('settleAt')
    .limit(limit)
    .execute();
}

export async function insertSentRefund(
  db: Executor,
  refund: {
    providerId: string;
    refundId: string;
    accountId: string;
    amountCents: number;
    outcome: 'refunded' | null;
    refundEndToEndId: string | null;
    settleAt: Date | null;
    createdAt: Date;
  },
) {
  await db
    .insertInto('sandboxRefunds')
    .values(refund)
    .onConflict((conflict) => conflict.columns(['providerId', 'refundId']).doNothing())
    .execute();
}

export function findSentRefund(db: Executor, providerId: string, refundId: string) {
  return db
    .selectFrom('sandboxRefunds')
    .select(['outcome', 'refundEndToEndId'])
    .where('providerId', '=', providerId)
    .where('refundId', '=', refundId)
    .executeTakeFirst();
}

/** The network's final answer for an undecided refund; undefined when it never received it or decided it already. */
export function decideSentRefund(
  db: Executor,
  providerId: string,
  refundId: string,
  decision: { outcome: 'refunded' | 'failed'; refundEndToEndId: string | null },
) {
  return db
    .updateTable('sandboxRefunds')
    .set(decision)
    .where('providerId', '=', providerId)
    .where('refundId', '=', refundId)
    .where('outcome', 'is', null)
    .returning('refundId')
    .executeTakeFirst();
}

/** Undecided refunds whose automatic settlement time has come, oldest first. */
export function findDueRefunds(db: Executor, providerId: string, now: Date, limit: number) {
  return db
    .selectFrom('sandboxRefunds')
    .select(['refundId', 'accountId'])
    .where('providerId', '=', providerId)
    .where('outcome', 'is', null)
    .where('settleAt', '<=', now)
    .orderBy('settleAt')
    .limit(limit)
    .execute();
}

/** A charge registered although the caller never heard back (outage `timeout`). */
export async function insertLostCharge(db: Executor, charge: { providerId: string; transactionId: string; accountId: string; createdAt: Date }) {
  await db
    .insertInto('sandboxCharges')
    .values({ ...charge, status: 'active' })
    .onConflict((conflict) => conflict.columns(['providerId', 'transactionId']).doNothing())
    .execute();
}

export async function removeCharge(db: Executor, providerId: string, transactionId: string): Promise<void> {
  await db.updateTable('sandboxCharges').set({ status: 'removed' }).where('providerId', '=', providerId).where('transactionId', '=', transactionId).execute();
}

export async function findOutage(db: Executor, providerId: string): Promise<SimulatedOutage | undefined> {
  return (await db.selectFrom('sandboxProviderOutages').select('mode').where('providerId', '=', providerId).executeTakeFirst())?.mode;
}

/** Sets (or, with `up`, ends) the provider's outage. */
export async function setOutage(db: Executor, providerId: string, mode: SimulatedOutage | 'up', since: Date): Promise<void> {
  if (mode === 'up') {
    await db.deleteFrom('sandboxProviderOutages').where('providerId', '=', providerId).execute();
    return;
  }
  await db
    .insertInto('sandboxProviderOutages')
    .values({ providerId, mode, since })
    .onConflict((conflict) => conflict.column('providerId').doUpdateSet({ mode, since }))
    .execute();
}

export async function insertPayment(
  db: Executor,
  payment: { providerId: string; endToEndId: string; transactionId: string; accountId: string; amountCents: number; paidAt: Date },
): Promise<void> {
  await db
    .insertInto('sandboxPayments')
    .values(payment)
    .onConflict((conflict) => conflict.column('endToEndId').doNothing())
    .execute();
}

/** The provider's records of a period, as reconciliation reads them. */
export async function listRecords(db: Executor, providerId: string, from: Date, to: Date) {
  const [payments, withdrawals, refunds] = await Promise.all([
    db
      .selectFrom('sandboxPayments')
      .select(['endToEndId', 'amountCents', 'paidAt'])
      .where('providerId', '=', providerId)
      .where('paidAt', '>=', from)
      .where('paidAt', '<', to)
      .execute(),
    db
      .selectFrom('sandboxWithdrawals')
      .select(['transactionId', 'amountCents', 'outcome', 'createdAt'])
      .where('providerId', '=', providerId)
      .where('createdAt', '>=', from)
      .where('createdAt', '<', to)
      .execute(),
    db
      .selectFrom('sandboxRefunds')
      .select(['refundId', 'amountCents', 'outcome', 'createdAt'])
      .where('providerId', '=', providerId)
      .where('createdAt', '>=', from)
      .where('createdAt', '<', to)
      .execute(),
  ]);
  return { payments, withdrawals, refunds };
}

/** What the simulated provider received minus what it paid out (withdrawals paid, refunds made). */
export async function movedCents(db: Executor, providerId: string): Promise<number> {
  const { rows } = await sql<{ cents: string | null }>`
    SELECT (SELECT coalesce(sum(amount_cents), 0) FROM sandbox_payments WHERE provider_id = ${providerId})
         - (SELECT coalesce(sum(amount_cents), 0) FROM sandbox_withdrawals WHERE provider_id = ${providerId} AND outcome = 'paid')
         - (SELECT coalesce(sum(amount_cents), 0) FROM sandbox_refunds WHERE provider_id = ${providerId} AND outcome = 'refunded') AS cents`.execute(db);
  return Number(rows[0]?.cents ?? 0);
}

/**
 * A cycle's charge (cobr) arrives at the simulated network: recorded, or false when its txid is in
 * use (BCB refuses such a PUT: the caller reads the one there with findCycleCharge).
 */
export async function insertCycleCharge(
  db: Executor,
  charge: { providerId: string; txid: string; providerRecurrenceId: string; dueDate: string; amountCents: number; createdAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('sandboxCycleCharges')
    .values(charge)
    .onConflict((conflict) => conflict.doNothing())
    .returning('txid')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The cobr the simulated network holds under a txid. */
export function findCycleCharge(
  db: Executor,
  providerId: string,
  txid: string,
): Promise<{ providerRecurrenceId: string; dueDate: string; amountCents: number; cancelledAt: Date | null } | undefined> {
  return db
    .selectFrom('sandboxCycleCharges')
    .select(['providerRecurrenceId', 'dueDate', 'amountCents', 'cancelledAt'])
    .where('providerId', '=', providerId)
    .where('txid', '=', txid)
    .executeTakeFirst();
}

export async function cancelCycleCharge(db: Executor, providerId: string, txid: string, at: Date): Promise<void> {
  await db.updateTable('sandboxCycleCharges').set({ cancelledAt: at }).where('providerId', '=', providerId).where('txid', '=', txid).execute();
}

/** A recurrence (rec) the simulated network registered. */
export async function insertRecurrence(
  db: Executor,
  recurrence: { providerId: string; recurrenceId: string; providerRecurrenceId: string; createdAt: Date },
): Promise<void> {
  await db.insertInto('sandboxRecurrences').values(recurrence).execute();
}

export async function cancelRecurrence(db: Executor, providerId: string, providerRecurrenceId: string, at: Date): Promise<void> {
  await db
    .updateTable('sandboxRecurrences')
    .set({ cancelledAt: at })
    .where('providerId', '=', providerId)
    .where('providerRecurrenceId', '=', providerRecurrenceId)
    .where('cancelledAt', 'is', null)
    .execute();
}
