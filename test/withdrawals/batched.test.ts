import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, countBy, fund, registerEndpoint, registerRecipient, reviewRecipient } from '../helpers/api.js';
import { startReceiver } from '../helpers/receiver.js';
import { backend, callAt, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Withdrawals of concurrent requests are committed together (the payout engine,
 * payouts/engine.ts): each still answers for itself, a refusal in a batch undoes nobody else's
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

  describe("one batch of different withdrawals writes each one's own records", () => {
    const THIRD_PARTY_CPF = '39053344705';
    type Request = { merchant: Merchant; externalRef: string; thirdParty: boolean; body: Record<string, unknown> };
    type Written = { id: string; request: Request; status: number; body: { status?: string } };
    let automatic: Merchant[];
    let manual: Merchant[];
    let listening: Merchant;
    let written: Written[];
    /** Each table's rows of the batch's withdrawals, by transaction. */
    const rowsOf = async <T extends { transactionId: string | null }>(rows: Promise<T[]>) => {
      const byTransaction = new Map<string, T[]>();
      for (const row of await rows) if (row.transactionId) byTransaction.set(row.transactionId, [...(byTransaction.get(row.transactionId) ?? []), row]);
      return byTransaction;
    };
    const ids = () => written.map((withdrawal) => withdrawal.id);
    const debited = (withdrawal: Written) => automatic.includes(withdrawal.request.merchant);

    beforeAll(async () => {
      automatic = await fundedMerchants(3, 4);
      manual = await fundedMerchants(2, 4);
      for (const merchant of manual)
        expect((await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { withdrawalMode: 'manual' })).status).toBe(200);
      const [first] = automatic;
      if (!first) throw new Error('no merchant');
      listening = first;
      const receiver = await startReceiver();
      await registerEndpoint(gateway, listening, { url: receiver.url('/batched') });
      const recipient = await registerRecipient(gateway, listening, {
        legalName: 'Fornecedor Terceiro',
        document: THIRD_PARTY_CPF,
        documentType: 'cpf',
        pixKey: THIRD_PARTY_CPF,
        pixKeyType: 'cpf',
      });
      const recipientId = String(recipient.body.recipientId);
      expect((await reviewRecipient(gateway, listening, recipientId, 'approve', { label: 'Fornecedor' })).status).toBe(200);
      // Four of each merchant at once to one server: its writer takes them in batches.
      const requests = [...automatic, ...manual].flatMap((merchant) =>
        [0, 1, 2, 3].map((index): Request => {
          const externalRef = `batch-${merchant.accountId}-${index}`;
          const thirdParty = merchant === listening && index % 2 === 1;
          const body = { ...withdrawalToHolder({ amountCents: 1_000, externalRef }), ...(thirdParty ? { pixKey: THIRD_PARTY_CPF, recipientId } : {}) };
          return { merchant, externalRef, thirdParty, body };
        }),
      );
      const replies = await Promise.all(requests.map(({ merchant, body }) => gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body })));
      written = requests.map((request, index) => {
        const reply = replies[index];
        if (!reply) throw new Error('a request without its reply');
        return { id: String(reply.body.transactionId), request, status: reply.status, body: { status: String(reply.body.status) } };
      });
      await receiver.close();
    });

    it('each is answered 201 with its own status: processing when debited, pending_approval when it waits for an operator', () => {
      for (const withdrawal of written) {
        expect(withdrawal.status).toBe(201);
        expect(withdrawal.body.status).toBe(debited(withdrawal) ? 'processing' : 'pending_approval');
      }
    });

    it('a debited one has one balanced movement of its own account with its debit; one waiting for approval has none', async () => {
      const entries = await rowsOf(
        gateway.database.db
          .selectFrom('ledgerEntries')
          .select(['transactionId', 'accountId', 'book', 'amountCents', 'movementId'])
          .where('transactionId', 'in', ids())
          .execute(),
      );
      for (const withdrawal of written) {
        const movement = entries.get(withdrawal.id) ?? [];
        if (!debited(withdrawal)) {
          expect(movement).toEqual([]);
          continue;
        }
        expect(movement.every((entry) => entry.accountId === withdrawal.request.merchant.accountId)).toBe(true);
        expect(movement).toEqual(expect.arrayContaining([expect.objectContaining({ book: 'merchant', amountCents: -WITHDRAWAL_CENTS })]));
        expect(movement.reduce((sum, entry) => sum + entry.amountCents, 0)).toBe(0);
        expect(new Set(movement.map((entry) => entry.movementId)).size).toBe(1);
      }
    });

    it('a debited one has its intent to send; an alert is raised only for the third-party one, in its account', async () => {
      const db = gateway.database.db;
      const sends = await rowsOf(db.selectFrom('providerSends').select(['id as transactionId', 'accountId', 'kind']).where('id', 'in', ids()).execute());
      const alerts = await rowsOf(db.selectFrom('alerts').select(['transactionId', 'accountId', 'kind']).where('transactionId', 'in', ids()).execute());
      for (const withdrawal of written) {
        const { accountId } = withdrawal.request.merchant;
        expect(sends.get(withdrawal.id)).toEqual(debited(withdrawal) ? [{ transactionId: withdrawal.id, accountId, kind: 'withdrawal' }] : undefined);
        expect(alerts.get(withdrawal.id)).toEqual(
          withdrawal.request.thirdParty ? [{ transactionId: withdrawal.id, accountId, kind: 'third_party_withdrawal' }] : undefined,
        );
      }
      expect(written.filter((withdrawal) => withdrawal.request.thirdParty)).toHaveLength(2);
    });

    it("each has its creation's events, delivered to its own account's endpoint only", async () => {
      const db = gateway.database.db;
      const events = await rowsOf(db.selectFrom('events').select(['transactionId', 'accountId', 'name', 'id']).where('transactionId', 'in', ids()).execute());
      const deliveries = await rowsOf(db.selectFrom('webhookDeliveries').select(['transactionId', 'eventId']).where('transactionId', 'in', ids()).execute());
      for (const withdrawal of written) {
        const own = events.get(withdrawal.id) ?? [];
        expect(own.every((event) => event.accountId === withdrawal.request.merchant.accountId)).toBe(true);
        expect(own.map((event) => event.name).sort()).toEqual(
          debited(withdrawal) ? ['transfer.created', 'transfer.processing'] : ['transfer.created', 'transfer.pending_approval'],
        );
        const delivered = (deliveries.get(withdrawal.id) ?? []).map((delivery) => delivery.eventId).sort();
        expect(delivered).toEqual(withdrawal.request.merchant === listening ? own.map((event) => event.id).sort() : []);
      }
    });

    it('each claims its own externalRef for itself', async () => {
      const keys = await gateway.database.db
        .selectFrom('idempotencyKeys')
        .select(['externalRef', 'transactionId', 'accountId'])
        .where('transactionId', 'in', ids())
        .execute();
      for (const withdrawal of written) {
        const { externalRef, merchant } = withdrawal.request;
        expect(keys.filter((key) => key.transactionId === withdrawal.id)).toEqual([
          { externalRef, transactionId: withdrawal.id, accountId: merchant.accountId },
        ]);
      }
    });

    it('the debited accounts are at zero, the waiting ones untouched, and the ledger holds', async () => {
      for (const merchant of automatic) expect(await balanceOf(gateway, merchant)).toBe(0);
      for (const merchant of manual) expect(await balanceOf(gateway, merchant)).toBe(4 * WITHDRAWAL_CENTS);
      expect(await gateway.ledgerProblems()).toEqual([]);
    });
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
