import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Executor, Tx } from '../platform/database.js';
import type { NewTransaction, TransactionRow, TransactionStatus, TransactionType } from '../platform/schema.js';
import { grouped } from '../platform/grouped.js';
import { isId } from '../platform/ids.js';
import { precompiled } from '../platform/precompiled.js';
import { eventsWithDeliveries, type TimedEvent } from '../webhooks/repository.js';
import { PRESENTED_COLUMNS, type PresentedRow } from './presenter.js';
import type { Transition } from './states.js';

/** A transaction of the account (of any account only where the caller is the operator or the provider: `undefined`). */
export function findTransaction(db: Executor, accountId: string | undefined, transactionId: string) {
  const query = db.selectFrom('transactions').selectAll().where('id', '=', transactionId);
  return (accountId === undefined ? query : query.where('accountId', '=', accountId)).executeTakeFirst();
}

/** The charge a received PIX paid, by the network's end-to-end id. */
export function findChargeByEndToEndId(db: Executor, endToEndId: string) {
  return db.selectFrom('transactions').selectAll().where('endToEndId', '=', endToEndId).where('type', '=', 'pix_in').executeTakeFirst();
}

/** The account a transaction belongs to (the audit log's account of an operator action on it). */
export async function findTransactionAccountId(db: Executor, transactionId: string): Promise<string | undefined> {
  return (await db.selectFrom('transactions').select('accountId').where('id', '=', transactionId).executeTakeFirst())?.accountId;
}

const recentPresented = precompiled((db, accountId: string, limit: number) =>
  db.selectFrom('transactions').select(PRESENTED_COLUMNS).where('accountId', '=', accountId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit),
);
const recentPresentedOfType = precompiled((db, accountId: string, type: TransactionType, limit: number) =>
  db
    .selectFrom('transactions')
    .select(PRESENTED_COLUMNS)
    .where('accountId', '=', accountId)
    .where('type', '=', type)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);

/** The cursor's place, read in the same statement as the page (one round trip); no rows when it is not the account's. */
const afterCursor = (accountId: string, cursorId: string) =>
  sql<boolean>`(created_at, id) < (SELECT cursor.created_at, cursor.id FROM transactions cursor WHERE cursor.id = ${cursorId} AND cursor.account_id = ${accountId})`;
const presentedAfter = precompiled((db, accountId: string, cursorId: string, limit: number) =>
  db
    .selectFrom('transactions')
    .select(PRESENTED_COLUMNS)
    .where('accountId', '=', accountId)
    .where(afterCursor(accountId, cursorId))
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);
const presentedOfTypeAfter = precompiled((db, accountId: string, type: TransactionType, cursorId: string, limit: number) =>
  db
    .selectFrom('transactions')
    .select(PRESENTED_COLUMNS)
    .where('accountId', '=', accountId)
    .where('type', '=', type)
    .where(afterCursor(accountId, cursorId))
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);

/** How long the reads of one statement wait for it before they answer 503 and the next reads run (grouped's deadline). */
const READ_DEADLINE_MS = 10_000;

/** A read of one transaction: whose it must be, and its id. */
type PresentedWanted = { accountId: string; transactionId: string };

const presentedByIds = precompiled((db, accountIds: string[], transactionIds: string[]) =>
  db
    .selectFrom('transactions')
    .select([...PRESENTED_COLUMNS, 'accountId'])
    .where(sql<boolean>`(account_id, id) IN (SELECT * FROM unnest(${accountIds}::uuid[], ${transactionIds}::uuid[]))`),
);

/**
 * One transaction of the account, with the columns the API shows; the reads of concurrent
 * requests in one statement (platform/grouped.ts): one round trip and one row description for
 * many, where each read was both. Each read names its account in the statement, and gets a row
 * only when the row is that account's. An id that is none is not read at all: a value the
 * statement's uuid[] refuses would fail the others' reads with it.
 */
export function presentedReader(db: Executor): (wanted: PresentedWanted) => Promise<PresentedRow | undefined> {
  const read = grouped(
    async (wanted: PresentedWanted[]) => {
      const rows = await presentedByIds(
        db,
        wanted.map((read) => read.accountId),
        wanted.map((read) => read.transactionId),
      );
      const found = new Map(rows.map(({ accountId, ...row }) => [`${accountId} ${row.id}`, row]));
      return wanted.map((read) => found.get(`${read.accountId} ${read.transactionId}`));
    },
    { deadlineMs: READ_DEADLINE_MS },
  );
  return async (wanted) => (isId(wanted.transactionId) ? read(wanted) : undefined);
}

/**
 * The first page of the spec's list (no filter but the type), most recent first, with the columns the
 * API shows and one row more to tell whether more follow; ids are time-ordered, so they break ties
 * within one millisecond. Precompiled: the list's hot path.
 */
export async function firstPage(db: Executor, accountId: string, type: TransactionType | undefined, limit: number) {
  const rows = await (type ? recentPresentedOfType(db, accountId, type, limit + 1) : recentPresented(db, accountId, limit + 1));
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * What a history read selects (DESIGN.md §15): an account (or every account, for operators), optional
 * filters, and the position after which the page starts. Every filter is served by an index of
 * migration 017 (docs/performance.md).
 */
export type TransactionFilter = {
  accountId?: string | undefined;
  type?: TransactionType | undefined;
  status?: TransactionStatus | undefined;
  /** Inclusive. */
  createdFrom?: Date | undefined;
  /** Exclusive. */
  createdTo?: Date | undefined;
  externalRef?: string | undefined;
  endToEndId?: string | undefined;
  /** The payer's, beneficiary's, expected holder's or customer's document, normalised (operators). */
  document?: string | undefined;
  /** The page starts after this row, in the list's order (createdAt desc, id desc). */
  after?: TransactionPosition | undefined;
};

/** A row's place in the history's order. */
export type TransactionPosition = { createdAt: Date; id: string };

/** The counterpart's document, as migration 035's index computes it: the index serves only this exact expression. */
const counterpartDocument = sql<string>`coalesce(payer->>'document', beneficiary->>'document', expected_holder->>'document', regexp_replace(customer->'document'->>'number', '[^0-9A-Z]', '', 'g'))`;

function filtered(db: Executor, filter: TransactionFilter) {
  let query = db.selectFrom('transactions');
  if (filter.accountId !== undefined) query = query.where('accountId', '=', filter.accountId);
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.createdFrom) query = query.where('createdAt', '>=', filter.createdFrom);
  if (filter.createdTo) query = query.where('createdAt', '<', filter.createdTo);
  if (filter.externalRef !== undefined) query = query.where('externalRef', '=', filter.externalRef);
  if (filter.endToEndId !== undefined) query = query.where('endToEndId', '=', filter.endToEndId);
  if (filter.document !== undefined) query = query.where(counterpartDocument, '=', filter.document);
  const after = filter.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.createdAt, after.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc');
}

/**
 * The spec's list after a cursor, with no filter but the type: the page and the cursor's place in
 * one precompiled statement (the paging hot path). Undefined when the page is empty and the cursor
 * is not the account's (the caller refuses it).
 */
export async function pageAfter(db: Executor, accountId: string, type: TransactionType | undefined, cursorId: string, limit: number) {
  const rows = await (type ? presentedOfTypeAfter(db, accountId, type, cursorId, limit + 1) : presentedAfter(db, accountId, cursorId, limit + 1));
  if (rows.length === 0 && !(await findPosition(db, accountId, cursorId))) return undefined;
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** One page of the history, most recent first: `limit` rows, and whether more follow. */
export async function pageTransactions(db: Executor, filter: TransactionFilter, limit: number) {
  const rows = await filtered(db, filter)
    .select([...PRESENTED_COLUMNS, 'accountId'])
    .limit(limit + 1)
    .execute();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * What an export writes of a transaction: the list's columns but the charge payload and the
 * validity, with the counterpart (a charge's payer, a withdrawal's beneficiary) picked in SQL, so
 * the gateway parses no JSON and builds a third less per row (docs/performance.md).
 */
export type ExportedRow = Pick<
  TransactionRow,
  'id' | 'type' | 'status' | 'amountCents' | 'feeCents' | 'netCents' | 'externalRef' | 'endToEndId' | 'createdAt' | 'paidAt'
> & {
  counterpartName: string | null;
  counterpartDocument: string | null;
};

const counterpart = (field: 'name' | 'document') => sql<string | null>`(CASE WHEN type = 'pix_in' THEN payer ELSE beneficiary END) ->> ${sql.lit(field)}`;

/**
 * Every row of the filter, in order, in chunks of `chunkSize`: each chunk is one index range scan
 * that starts after the last row of the one before (a keyset cursor). Memory stays one chunk, and
 * no connection or snapshot is held between chunks, so a slow download never holds a pooled
 * connection or, on the embedded database, every other request (docs/history.md).
 */
export async function* streamTransactions(db: Executor, filter: TransactionFilter, chunkSize: number): AsyncGenerator<ExportedRow[]> {
  for (let after = filter.after; ;) {
    const rows = await filtered(db, { ...filter, after })
      .select(['id', 'type', 'status', 'amountCents', 'feeCents', 'netCents', 'externalRef', 'endToEndId', 'createdAt', 'paidAt'])
      .select([counterpart('name').as('counterpartName'), counterpart('document').as('counterpartDocument')])
      .limit(chunkSize)
      .execute();
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (rows.length < chunkSize || !last) return;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** A row's position in the history, when it is the account's (of any account: `accountId` undefined). */
export function findPosition(db: Executor, accountId: string | undefined, transactionId: string): Promise<TransactionPosition | undefined> {
  const query = db.selectFrom('transactions').select(['createdAt', 'id']).where('id', '=', transactionId);
  return (accountId === undefined ? query : query.where('accountId', '=', accountId)).executeTakeFirst();
}

export type NewTransactionValues = Omit<NewTransaction, 'type' | 'status'>;

/**
 * The column of each property a new transaction is written with, and its type (all but
 * refunded_cents, which starts at its default, 0, and a charge's due terms, written by the charge's
 * own insert, and a received PIX's hold, set after its credit: setHold).
 */
const NEW_TRANSACTION_COLUMNS = {
  id: ['id', 'uuid'],
  accountId: ['account_id', 'uuid'],
  type: ['type', 'text'],
  status: ['status', 'text'],
  amountCents: ['amount_cents', 'int8'],
  feeCents: ['fee_cents', 'int8'],
  netCents: ['net_cents', 'int8'],
  externalRef: ['external_ref', 'text'],
  description: ['description', 'text'],
  customer: ['customer', 'jsonb'],
  pixPayload: ['pix_payload', 'text'],
  location: ['location', 'text'],
  expiresAt: ['expires_at', 'timestamptz'],
  paidAt: ['paid_at', 'timestamptz'],
  endToEndId: ['end_to_end_id', 'text'],
  payer: ['payer', 'jsonb'],
  beneficiary: ['beneficiary', 'jsonb'],
  expectedHolder: ['expected_holder', 'jsonb'],
  refundEndToEndId: ['refund_end_to_end_id', 'text'],
  pixKey: ['pix_key', 'text'],
  pixKeyType: ['pix_key_type', 'text'],
  recipientId: ['recipient_id', 'text'],
  staticQrId: ['static_qr_id', 'uuid'],
  recurrenceId: ['recurrence_id', 'uuid'],
  recurrenceCycle: ['recurrence_cycle', 'int4'],
  providerId: ['provider_id', 'text'],
  createdAt: ['created_at', 'timestamptz'],
  updatedAt: ['updated_at', 'timestamptz'],
} as const satisfies Record<Exclude<keyof NewTransaction, 'refundedCents' | 'due' | 'holdStatus' | 'heldUntil'>, readonly [string, string]>;
const isNewTransactionProperty = (key: string): key is keyof typeof NEW_TRANSACTION_COLUMNS => key in NEW_TRANSACTION_COLUMNS;
const newTransactionProperties = Object.keys(NEW_TRANSACTION_COLUMNS).filter(isNewTransactionProperty);
const NEW_TRANSACTION_HEAD = `INSERT INTO transactions (${newTransactionProperties.map((property) => NEW_TRANSACTION_COLUMNS[property][0]).join(', ')})`;
// One SQL text for every new transaction, written once: building the 25-value insert per request was ~5% of a withdrawal's CPU.
const INSERT_TRANSACTION = `${NEW_TRANSACTION_HEAD} VALUES (${newTransactionProperties.map((_, index) => `$${index + 1}`).join(', ')}) RETURNING *`;

function newTransactionParameters(transition: Transition, transaction: NewTransactionValues): unknown[] {
  if (transition.from.length > 0) throw new Error(`${transition.to} is not a creating transition`);
  const row: NewTransaction = { ...transaction, type: transition.type, status: transition.to };
  return newTransactionProperties.map((property) => row[property] ?? null);
}

/** A new transaction, in the status its creating transition leads to. */
export async function insertTransaction(tx: Tx, transition: Transition, transaction: NewTransactionValues): Promise<TransactionRow> {
  const { rows } = await tx.executeQuery<TransactionRow>(CompiledQuery.raw(INSERT_TRANSACTION, newTransactionParameters(transition, transaction)));
  const [inserted] = rows;
  if (!inserted) throw new Error('transaction insert returned no row');
  return inserted;
}

/** A new transaction through one of its type's creating transitions, and its events: what creationsWithEvents writes. */
export type TransactionCreation = { transition: Transition; values: NewTransactionValues; events: readonly TimedEvent[] };

/**
 * New transactions and their events (with the events' deliveries) as CTEs of a caller's
 * statement: `created`, RETURNING the new ids (the caller has the rows it wrote), then the
 * events'. Each column is one array, so one statement writes the creations of many requests.
 */
export function creationsWithEvents(creations: readonly TransactionCreation[]): RawBuilder<unknown> {
  const rows = creations.map(({ transition, values }) => newTransactionParameters(transition, values));
  const columns = newTransactionProperties.map((property, index) => sql`${rows.map((row) => row[index])}::${sql.raw(NEW_TRANSACTION_COLUMNS[property][1])}[]`);
  const events = creations.flatMap((creation) => creation.events);
  return sql`created AS (${sql.raw(NEW_TRANSACTION_HEAD)} SELECT * FROM unnest(${sql.join(columns)}) RETURNING id), ${eventsWithDeliveries(events)}`;
}

/**
 * What a transaction is written with, from the row it will be read back as (its JSON columns as
 * text); refunded_cents and due start empty. A new withdrawal answers that row as it was written,
 * not as read back (payouts/engine.ts): no column of `transactions` may gain a default, a
 * trigger or a type that changes a value on its way in.
 */
export function insertValuesOf(row: TransactionRow): NewTransactionValues {
  if (row.refundedCents !== 0 || row.due !== null || row.holdStatus !== null) {
    throw new Error(`transaction ${row.id}: a new transaction starts unrefunded, unheld and without due terms`);
  }
  const {
    type: _type,
    status: _status,
    refundedCents: _refunded,
    due: _due,
    holdStatus: _hold,
    heldUntil: _heldUntil,
    customer,
    payer,
    beneficiary,
    expectedHolder,
    ...plain
  } = row;
  const json = (value: object | null) => (value === null ? null : JSON.stringify(value));
  return { ...plain, customer: json(customer), payer: json(payer), beneficiary: json(beneficiary), expectedHolder: json(expectedHolder) };
}

/** Locks a transaction of one type for a status change; of one account when `accountId` is given. */
export function lockTransaction(tx: Tx, type: TransactionType, transactionId: string, accountId?: string) {
  let query = tx.selectFrom('transactions').selectAll().where('id', '=', transactionId).where('type', '=', type);
  if (accountId) query = query.where('accountId', '=', accountId);
  return query.forUpdate().executeTakeFirst();
}

/** The fields a status change may set besides the status. */
/** What a status change may write beside the status: settlement fields, and a due-date charge's amount as paid. */
export type StatusChanges = Partial<
  Pick<
    NewTransaction,
    | 'paidAt'
    | 'endToEndId'
    | 'payer'
    | 'beneficiary'
    | 'refundEndToEndId'
    | 'refundedCents'
    | 'amountCents'
    | 'feeCents'
    | 'netCents'
    | 'due'
    // A held withdrawal approved when its provider's cap no longer takes it goes to one that does.
    | 'providerId'
  >
>;

/**
 * With updateStatusOfDue, the only writers of `status` after creation: the transition's `to`, and only from one of its
 * `from` statuses (undefined when the row is not in one of them).
 */
export function updateStatus(
  tx: Tx,
  transactionId: string,
  transition: Transition,
  at: Date,
  changes: StatusChanges = {},
): Promise<TransactionRow | undefined> {
  return tx
    .updateTable('transactions')
    .set({ ...changes, status: transition.to, updatedAt: at })
    .where('id', '=', transactionId)
    .where('type', '=', transition.type)
    .where('status', 'in', transition.from)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Applies a transition to up to `batch` transactions of its type that are in one of its `from`
 * statuses and match `due` (a worker's sweep); other workers skip the locked ones.
 */
export function updateStatusOfDue(tx: Tx, transition: Transition, due: { expiresAtUpTo: Date }, at: Date, batch: number) {
  return tx
    .updateTable('transactions')
    .set({ status: transition.to, updatedAt: at })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('transactions')
        .select('id')
        // Literals, not parameters: the partial index on due charges matches them in every plan.
        .where('type', '=', sql.lit(transition.type))
        .where(
          'status',
          'in',
          transition.from.map((status) => sql.lit(status)),
        )
        .where('expiresAt', '<=', due.expiresAtUpTo)
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', 'in', transition.from)
    .returningAll()
    .execute();
}

/**
 * A received PIX's hold (cautionary block) changes: placed (`held`, with its end) on receipt, then
 * `released` or `returned` (from `held` only). The row as it now is; undefined when it was not in
 * the state the change starts from. Its status moves, when it does, by a transition of its own.
 */
export function setHold(
  tx: Tx,
  transactionId: string,
  change: { to: 'held'; heldUntil: Date } | { to: 'released' | 'returned' },
  at: Date,
): Promise<TransactionRow | undefined> {
  const query = tx
    .updateTable('transactions')
    .set(change.to === 'held' ? { holdStatus: 'held', heldUntil: change.heldUntil, updatedAt: at } : { holdStatus: change.to, updatedAt: at })
    .where('id', '=', transactionId)
    .where('type', '=', 'pix_in');
  return (change.to === 'held' ? query.where('holdStatus', 'is', null) : query.where('holdStatus', '=', 'held')).returningAll().executeTakeFirst();
}

/** Up to `limit` held charges whose hold ran out by `now` (a worker's sweep); other workers skip the locked ones. */
export function lockExpiredHolds(tx: Tx, now: Date, limit: number): Promise<TransactionRow[]> {
  return tx
    .selectFrom('transactions')
    .selectAll()
    .where('holdStatus', '=', sql.lit('held'))
    .where('heldUntil', '<=', now)
    .orderBy('heldUntil')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/**
 * Binds a withdrawal still `processing` to another provider (DESIGN.md §14: only when the first
 * provably never received it); false when it is not processing any more.
 */
export async function rebindProcessingWithdrawal(tx: Tx, transactionId: string, providerId: string, at: Date): Promise<boolean> {
  const result = await tx
    .updateTable('transactions')
    .set({ providerId, updatedAt: at })
    .where('id', '=', transactionId)
    .where('type', '=', 'withdrawal')
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
