import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, countBy, fund, registerEndpoint, registerRecipient, reviewRecipient } from '../helpers/api.js';
import { startReceiver } from '../helpers/receiver.js';
import { backend, callAt, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Withdrawals of concurrent requests are committed together (withdrawals/repository.ts,
 * withdrawalWriter): each still answers for itself, a refusal in a batch undoes nobody else's
 * withdrawal, and an account held by another transaction does not hold up the others. Requests
 * are split across two servers with their own pools; the waits are proved on the PostgreSQL server.
 */
let gateway: Gateway;
let peerUrl: string;
beforeAll(async () => {
  // Private addresses allowed: one test's webhook receiver listens on this machine.
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  peerUrl = (await gateway.startPeer()).url;
});
afterAll(() => gateway.close());

const UNLIMITED = {
  limits: { withdrawPerSecond: 10_000, withdrawPerMinute: 10_000, withdrawPerHour: 10_000, withdrawDailyCents: 100_000_000, withdrawMonthlyCents: 100_000_000 },
};
/** R$ 10,00 with its R$ 1,00 fee. */
const WITHDRAWAL_CENTS = 1_100;

async function fundedMerchants(count: number, withdrawals: number): Promise<Merchant[]> {
  const merchants: Merchant[] = [];
  for (let index = 0; index < count; index++) {
    const merchant = await gateway.createMerchant(UNLIMITED);
    await fund(gateway, merchant, withdrawals * WITHDRAWAL_CENTS);
    merchants.push(merchant);
  }
  return merchants;
}
const withdraw = (merchant: Merchant, index: number) =>
  callAt(index % 2 ? peerUrl : gateway.url, 'POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 1_000 }) });

describe(`withdrawals committed together (${backend})`, () => {
  it('10 accounts × 4 concurrent withdrawals, each funded for 2: exactly 2 each, the others refused for their own balance; events and ledger exact', async () => {
    const merchants = await fundedMerchants(10, 2);
    const requests = merchants.flatMap((merchant) => [0, 1, 2, 3].map(() => merchant));
    const replies = await Promise.all(requests.map((merchant, index) => withdraw(merchant, index)));
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 20, 422: 20 });
    for (const reply of replies.filter((answer) => answer.status === 422)) expect(reply.body).toEqual({ error: messages.insufficientBalance });
    for (const merchant of merchants) {
      const mine = replies.filter((_, index) => requests[index] === merchant);
      expect(mine.filter((reply) => reply.status === 201)).toHaveLength(2);
      expect(await balanceOf(gateway, merchant)).toBe(0);
      const events = await gateway.database.db.selectFrom('events').select('name').where('accountId', '=', merchant.accountId).execute();
      expect(countBy(events.map((event) => event.name))).toMatchObject({ 'transfer.created': 2, 'transfer.processing': 2 });
    }
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it("one batch of different withdrawals writes each one's own records: entries and a send when debited, an alert for a third party, its events and their deliveries, its externalRef", async () => {
    const THIRD_PARTY_CPF = '39053344705';
    const automatic = await fundedMerchants(3, 4);
    const manual = await fundedMerchants(2, 4);
    for (const merchant of manual)
      expect((await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { withdrawalMode: 'manual' })).status).toBe(200);
    const [listening] = automatic;
    if (!listening) throw new Error('no merchant');
    const receiver = await startReceiver();
    onTestFinished(() => receiver.close());
    await registerEndpoint(gateway, listening, { url: receiver.url('/batched') });
    const recipient = await registerRecipient(gateway, listening, {
      legalName: 'Fornecedor Terceiro',
      document: THIRD_PARTY_CPF,
      documentType: 'cpf',
      pixKey: THIRD_PARTY_CPF,
      pixKeyType: 'cpf',
    });
    expect((await reviewRecipient(gateway, listening, recipient.body.recipientId, 'approve', { label: 'Fornecedor' })).status).toBe(200);
    // Four of each merchant at once to one server: its writer takes them in batches.
    const requests = [...automatic, ...manual].flatMap((merchant) =>
      [0, 1, 2, 3].map((index) => ({
        merchant,
        externalRef: `batch-${merchant.accountId}-${index}`,
        body: {
          ...withdrawalToHolder({ amountCents: 1_000, externalRef: `batch-${merchant.accountId}-${index}` }),
          ...(merchant === listening && index % 2 === 1 ? { pixKey: THIRD_PARTY_CPF, recipientId: recipient.body.recipientId } : {}),
        },
      })),
    );
    const replies = await Promise.all(requests.map(({ merchant, body }) => gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body })));
    expect(replies.map((reply) => reply.status)).toEqual(requests.map(() => 201));

    const db = gateway.database.db;
    const ids = replies.map((reply) => reply.body.transactionId as string);
    const rowsOf = async <T extends { transactionId: string | null }>(rows: Promise<T[]>) => {
      const byTransaction = new Map<string, T[]>();
      for (const row of await rows) byTransaction.set(row.transactionId ?? '', [...(byTransaction.get(row.transactionId ?? '') ?? []), row]);
      return byTransaction;
    };
    const entries = await rowsOf(
      db.selectFrom('ledgerEntries').select(['transactionId', 'accountId', 'book', 'amountCents', 'movementId']).where('transactionId', 'in', ids).execute(),
    );
    const sends = await rowsOf(db.selectFrom('providerSends').select(['id as transactionId', 'accountId', 'kind']).where('id', 'in', ids).execute());
    const alerts = await rowsOf(db.selectFrom('alerts').select(['transactionId', 'accountId', 'kind']).where('transactionId', 'in', ids).execute());
    const events = await rowsOf(db.selectFrom('events').select(['transactionId', 'accountId', 'name', 'id']).where('transactionId', 'in', ids).execute());
    const deliveries = await rowsOf(
      db.selectFrom('webhookDeliveries').select(['transactionId', 'accountId', 'eventId']).where('transactionId', 'in', ids).execute(),
    );
    const keys = await db.selectFrom('idempotencyKeys').select(['externalRef', 'transactionId', 'accountId']).where('transactionId', 'in', ids).execute();

    for (const [index, { merchant, externalRef, body }] of requests.entries()) {
      const id = ids[index] ?? '';
      const debited = automatic.includes(merchant);
      const thirdParty = 'recipientId' in body;
      expect(replies[index]?.body).toMatchObject({ status: debited ? 'processing' : 'pending_approval' });
      const own = (rows: { accountId: string | null }[] | undefined) => (rows ?? []).every((row) => row.accountId === merchant.accountId);
      const movement = entries.get(id) ?? [];
      expect(own(movement) && own(sends.get(id)) && own(alerts.get(id)) && own(events.get(id))).toBe(true);
      if (debited) {
        expect(movement.map(({ book, amountCents }) => ({ book, amountCents }))).toEqual(
          expect.arrayContaining([{ book: 'merchant', amountCents: -WITHDRAWAL_CENTS }]),
        );
        expect(movement.reduce((sum, entry) => sum + entry.amountCents, 0)).toBe(0);
        expect(new Set(movement.map((entry) => entry.movementId)).size).toBe(1);
      } else {
        expect(movement).toEqual([]);
      }
      expect(sends.get(id)?.map((send) => send.kind)).toEqual(debited ? ['withdrawal'] : undefined);
      expect(alerts.get(id)?.map((alert) => alert.kind)).toEqual(thirdParty ? ['third_party_withdrawal'] : undefined);
      expect(
        events
          .get(id)
          ?.map((event) => event.name)
          .sort(),
      ).toEqual(debited ? ['transfer.created', 'transfer.processing'] : ['transfer.created', 'transfer.pending_approval']);
      const delivered = (deliveries.get(id) ?? []).map((delivery) => delivery.eventId).sort();
      expect(delivered).toEqual(merchant === listening ? (events.get(id) ?? []).map((event) => event.id).sort() : []);
      expect(keys.filter((key) => key.transactionId === id)).toEqual([{ externalRef, transactionId: id, accountId: merchant.accountId }]);
    }
    for (const merchant of automatic) expect(await balanceOf(gateway, merchant)).toBe(0);
    for (const merchant of manual) expect(await balanceOf(gateway, merchant)).toBe(4 * WITHDRAWAL_CENTS);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it.runIf(backend === 'postgres')(
    "an account whose balance row another transaction holds waits alone: the others' withdrawals are answered meanwhile",
    async () => {
      const [held, ...others] = await fundedMerchants(9, 1);
      if (!held) throw new Error('no merchant');
      await gateway.database.db.connection().execute(async (connection) => {
        await sql`BEGIN`.execute(connection);
        await sql`SELECT 1 FROM balances WHERE account_id = ${held.accountId} FOR UPDATE`.execute(connection);
        const waiting = withdraw(held, 0);
        // Sent with the held one, so that some share its batch.
        const answered = await Promise.race([
          Promise.all(others.map((merchant, index) => withdraw(merchant, index))),
          new Promise<'held up'>((resolve) => setTimeout(() => resolve('held up'), 10_000)),
        ]);
        expect(answered).not.toBe('held up');
        if (answered === 'held up') return;
        expect(answered.map((reply) => reply.status)).toEqual(others.map(() => 201));
        for (const merchant of others) expect(await balanceOf(gateway, merchant)).toBe(0);
        // Still waiting for the row; released, it is written.
        expect(await balanceOf(gateway, held)).toBe(WITHDRAWAL_CENTS);
        await sql`COMMIT`.execute(connection);
        expect((await waiting).status).toBe(201);
      });
      expect(await balanceOf(gateway, held)).toBe(0);
      expect(await gateway.ledgerProblems()).toEqual([]);
    },
  );
});
