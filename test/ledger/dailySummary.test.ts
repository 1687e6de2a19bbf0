import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import fc from 'fast-check';
import { createCharge, fund, settleWithdrawal, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

/** The ledger's daily summary (migration 040) against the ledger itself, after random movements on random days. */
let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const HOUR = 3_600_000;
const saoPauloDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' });

type Step =
  | { kind: 'charge'; amountCents: number }
  | { kind: 'withdrawal'; amountCents: number; outcome: 'paid' | 'failed' }
  | { kind: 'refund'; share: number }
  | { kind: 'adjustment'; amountCents: number };

const step: fc.Arbitrary<{ step: Step; hours: number }> = fc.record({
  hours: fc.integer({ min: 0, max: 30 }),
  step: fc.oneof(
    fc.record({ kind: fc.constant('charge' as const), amountCents: fc.integer({ min: 100, max: 50_000 }) }),
    fc.record({
      kind: fc.constant('withdrawal' as const),
      amountCents: fc.integer({ min: 100, max: 20_000 }),
      outcome: fc.constantFrom('paid' as const, 'failed' as const),
    }),
    fc.record({ kind: fc.constant('refund' as const), share: fc.double({ min: 0.1, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('adjustment' as const), amountCents: fc.integer({ min: -5_000, max: 5_000 }).filter((cents) => cents !== 0) }),
  ),
});

async function apply(merchant: Merchant, paid: string[], { step }: { step: Step }): Promise<void> {
  if (step.kind === 'charge') {
    const id = await createCharge(gateway, merchant, { amountCents: step.amountCents });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey })).status).toBe(200);
    paid.push(id);
  } else if (step.kind === 'withdrawal') {
    const created = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: step.amountCents }));
    // Refused when the balance does not cover it: then nothing moved, which the summary must say too.
    if (created.status === 201) await settleWithdrawal(gateway, merchant, created.body.transactionId, { outcome: step.outcome });
  } else if (step.kind === 'refund') {
    const id = paid.shift();
    if (!id) return;
    const charge = await gateway.call('GET', `/v1/transactions/${id}`, { key: merchant.apiKey });
    const amountCents = Math.max(1, Math.floor(charge.body.amountCents * step.share));
    await gateway.call('POST', `/v1/transactions/${id}/refunds`, { key: merchant.apiKey, body: { amountCents } });
  } else {
    // A negative adjustment is refused when it would take the balance below zero.
    await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: step.amountCents, reason: 'ajuste de teste' });
  }
}

/** The summary's rows, and the merchant entries summed per São Paulo day in TypeScript. */
async function bothSides(accountId: string) {
  const summary = await gateway.database.db
    .selectFrom('ledgerDays')
    .select(['creditedCents', 'debitedCents'])
    .select((eb) => eb.cast<string>('day', 'text').as('day'))
    .where('accountId', '=', accountId)
    .orderBy('day')
    .execute();
  const entries = await gateway.database.db
    .selectFrom('ledgerEntries')
    .select(['amountCents', 'createdAt'])
    .where('accountId', '=', accountId)
    .where('book', '=', 'merchant')
    .execute();
  const days = new Map<string, { creditedCents: number; debitedCents: number }>();
  for (const entry of entries) {
    if (entry.amountCents === 0) continue;
    const day = saoPauloDay.format(entry.createdAt);
    const sums = days.get(day) ?? { creditedCents: 0, debitedCents: 0 };
    if (entry.amountCents > 0) sums.creditedCents += entry.amountCents;
    else sums.debitedCents -= entry.amountCents;
    days.set(day, sums);
  }
  const ledger = [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, sums]) => ({ day, ...sums }));
  return { summary: summary.map(({ day, creditedCents, debitedCents }) => ({ day, creditedCents, debitedCents })), ledger };
}

describe('the ledger daily summary', () => {
  it('equals the sums of the merchant entries per day after random credits, debits and refunds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
        const merchant = await gateway.createMerchant();
        await fund(gateway, merchant, 10_000);
        const paid: string[] = [];
        for (const one of steps) {
          gateway.clock.advance(one.hours * HOUR);
          await apply(merchant, paid, one);
        }
        const { summary, ledger } = await bothSides(merchant.accountId);
        expect(summary).toEqual(ledger);
        expect(summary.length).toBeGreaterThan(0);
      }),
      { numRuns: 8 },
    );
    expect(await gateway.ledgerProblems()).toEqual([]);
  }, 120_000);

  it('the doctor reports a summary that differs from the ledger', async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 2_500);
    await gateway.database.db.updateTable('ledgerDays').set({ creditedCents: 2_400 }).where('accountId', '=', merchant.accountId).execute();
    const [row] = (await bothSides(merchant.accountId)).summary;
    expect(await gateway.ledgerProblems()).toContain(
      `account ${merchant.accountId}, day ${row?.day}: summary credited 2400 and debited 0 but merchant entries credited 2500 and debited 0`,
    );
    await gateway.database.db.updateTable('ledgerDays').set({ creditedCents: 2_500 }).where('accountId', '=', merchant.accountId).execute();
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it("migration 040's backfill rebuilds the summary of entries written before it", async () => {
    const merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 4_000);
    gateway.clock.advance(26 * HOUR);
    const id = await createCharge(gateway, merchant, { amountCents: 1_500 });
    expect((await gateway.call('POST', `/sandbox/v1/pix/${id}/pay`, { key: merchant.apiKey })).status).toBe(200);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 700 }))).status).toBe(201);
    const before = await bothSides(merchant.accountId);
    expect(before.summary.length).toBe(2);
    // The migration's INSERT … SELECT, run on this account's entries alone (the other tests' accounts keep their rows).
    const migration = readFileSync(new URL('../../src/migrations/040_ledger_days.sql', import.meta.url), 'utf8');
    const backfill = migration
      .slice(migration.indexOf('INSERT INTO ledger_days'))
      .replace("WHERE book = 'merchant'", `WHERE account_id = '${merchant.accountId}' AND book = 'merchant'`)
      .replace(/;\s*$/, '');
    expect(backfill).toContain(`account_id = '${merchant.accountId}'`);
    await gateway.database.db.deleteFrom('ledgerDays').where('accountId', '=', merchant.accountId).execute();
    await sql.raw(backfill).execute(gateway.database.db);
    expect(await bothSides(merchant.accountId)).toEqual(before);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
