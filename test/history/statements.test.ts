import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementSchema } from '../../src/history/schemas.js';
import { dayAfter, dayOf, dayStart } from '../../src/platform/saoPauloDay.js';
import { fund, paidCharge, withdraw } from '../helpers/api.js';
import { backend, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';

// DESIGN.md §15: GET /v1/statements/{date}: closed America/Sao_Paulo days, stored once, chained by SHA-256.

type Movement = {
  movementId: string;
  at: number;
  kind: string;
  transactionId: string | null;
  amountCents: number;
  feeCents: number;
  balanceAfterCents: number;
  memo: string | null;
};
type Statement = {
  accountId: string;
  date: string;
  timezone: string;
  currency: string;
  periodStart: number;
  periodEnd: number;
  openingBalanceCents: number;
  creditsCents: number;
  debitsCents: number;
  closingBalanceCents: number;
  openingBlockedCents: number;
  closingBlockedCents: number;
  movementCount: number;
  movements: Movement[];
  blocks: { blockId: string; at: number; event: 'placed' | 'released'; amountCents: number; reason: string }[];
  previousDigest: string | null;
  generatedAt: number;
};

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let gateway: Gateway;
let merchant: Merchant;
let other: Merchant;
const days: string[] = [];

/** Moves the clock to `minutes` past the next midnight in São Paulo. */
function toNextDay(minutes: number): void {
  const now = gateway.clock.now();
  const next = dayStart(dayAfter(dayOf(now)));
  if (!next) throw new Error('day');
  gateway.clock.advance(next.getTime() - now.getTime() + minutes * 60_000);
}

/** The statement as served: status, exact text, ETag and parsed body. */
async function statementOf(of: Merchant, date: string) {
  const response = await fetch(`${gateway.url}/v1/statements/${date}`, { headers: { authorization: `Bearer ${of.apiKey}` } });
  const text = await response.text();
  return { status: response.status, text, etag: response.headers.get('etag'), type: response.headers.get('content-type') };
}

async function ledgerBalanceAt(accountId: string, at: number): Promise<number> {
  const { rows } = await sql<{ cents: number }>`
    SELECT coalesce(sum(amount_cents), 0)::int8 AS cents FROM ledger_entries
    WHERE account_id = ${accountId} AND book = 'merchant' AND created_at < ${new Date(at)}`.execute(gateway.database.db);
  return rows[0]?.cents ?? 0;
}

beforeAll(async () => {
  gateway = await startGateway();
  // Start at 00:20 of a day, so that every step of a day stays within it.
  toNextDay(20);
  merchant = await gateway.createMerchant();
  other = await gateway.createMerchant();

  // Day 1: money in, a withdrawal with its fee, a block placed.
  days.push(dayOf(gateway.clock.now()));
  await fund(gateway, merchant, 50_000);
  await paidCharge(gateway, merchant);
  gateway.clock.advance(60_000);
  expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 12_345 }))).status).toBe(201);
  const block = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/blocks`, { amountCents: 2_000, reason: 'Análise preventiva' });
  expect(block.status).toBe(201);

  // Day 2: the block released, a debit adjustment.
  toNextDay(30);
  days.push(dayOf(gateway.clock.now()));
  expect((await gateway.admin('DELETE', `/admin/v1/blocks/${block.body.blockId}`)).status).toBe(204);
  expect((await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, { amountCents: -1_500, reason: 'Tarifa avulsa' })).status).toBe(
    201,
  );

  // Day 3: nothing happens. Day 4: more money in; it is still open when the statements are read.
  toNextDay(30);
  days.push(dayOf(gateway.clock.now()));
  toNextDay(30);
  days.push(dayOf(gateway.clock.now()));
  await paidCharge(gateway, merchant);
});
afterAll(() => gateway.close());

describe('closing days', () => {
  it('a day is closed only 10 minutes after its midnight; then every day of every account, in order', async () => {
    toNextDay(5);
    const [day1, day2, day3, day4] = days;
    if (!day1 || !day2 || !day3 || !day4) throw new Error('days');
    // 00:05: day 4 just ended, but is not closed yet.
    expect(await gateway.services.history.closeDays()).toBeGreaterThanOrEqual(3);
    expect((await statementOf(merchant, day3)).status).toBe(200);
    expect(await statementOf(merchant, day4)).toMatchObject({
      status: 404,
      text: JSON.stringify({ error: `O extrato de ${day4} ainda não foi fechado: fica disponível depois da meia-noite (horário de Brasília).` }),
    });
    gateway.clock.advance(6 * 60_000);
    expect(await gateway.services.history.closeDays()).toBeGreaterThanOrEqual(1);
    expect((await statementOf(merchant, day4)).status).toBe(200);
    expect(await gateway.services.history.closeDays()).toBe(0);
  });

  it('each statement: opening, movements with the balance after each, closing equal to the ledger at the day’s end', async () => {
    let previousClosing = 0;
    for (const day of days) {
      const served = await statementOf(merchant, day);
      expect(served.status).toBe(200);
      expect(served.type).toBe('application/json; charset=utf-8');
      const statement = JSON.parse(served.text) as Statement;
      expect(statement).toMatchObject({ accountId: merchant.accountId, date: day, timezone: 'America/Sao_Paulo', currency: 'BRL' });
      expect(statement.periodStart).toBe(dayStart(day)?.getTime());
      expect(statement.periodEnd).toBe(dayStart(dayAfter(day))?.getTime());
      // closing(d) = opening(d+1), and both agree with the ledger.
      expect(statement.openingBalanceCents).toBe(previousClosing);
      expect(statement.openingBalanceCents).toBe(await ledgerBalanceAt(merchant.accountId, statement.periodStart));
      expect(statement.closingBalanceCents).toBe(await ledgerBalanceAt(merchant.accountId, statement.periodEnd));
      let balance = statement.openingBalanceCents;
      for (const movement of statement.movements) {
        expect(movement.at).toBeGreaterThanOrEqual(statement.periodStart);
        expect(movement.at).toBeLessThan(statement.periodEnd);
        balance += movement.amountCents;
        expect(movement.balanceAfterCents).toBe(balance);
      }
      expect(balance).toBe(statement.closingBalanceCents);
      expect(statement.creditsCents - statement.debitsCents).toBe(statement.closingBalanceCents - statement.openingBalanceCents);
      expect(statement.movementCount).toBe(statement.movements.length);
      previousClosing = statement.closingBalanceCents;
    }
    // The last closing is today's opening: the balance now, less what happened since.
    const balance = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    expect(previousClosing).toBe(balance.body.available);
  });

  it('shows every kind of movement and block of the days: credits, the withdrawal and its fee, the adjustment, the block placed and released', async () => {
    const [day1, day2, day3] = await Promise.all(days.slice(0, 3).map(async (day) => JSON.parse((await statementOf(merchant, day)).text) as Statement));
    if (!day1 || !day2 || !day3) throw new Error('days');
    expect(day1.movements.map((movement) => movement.kind)).toEqual(['adjustment', 'charge_paid', 'withdrawal_debit']);
    const [funding, charge, debit] = day1.movements;
    expect(funding).toMatchObject({ amountCents: 50_000, feeCents: 0, transactionId: null, memo: 'fundos de teste' });
    expect(charge?.amountCents).toBeGreaterThan(0);
    expect(debit?.amountCents).toBeLessThanOrEqual(-12_345);
    expect(debit?.feeCents).toBe(-(debit?.amountCents ?? 0) - 12_345);
    expect(day1.blocks).toEqual([expect.objectContaining({ event: 'placed', amountCents: 2_000, reason: 'Análise preventiva' })]);
    expect(day1).toMatchObject({ openingBlockedCents: 0, closingBlockedCents: 2_000 });

    expect(day2.movements).toEqual([
      expect.objectContaining({ kind: 'adjustment', amountCents: -1_500, memo: 'Tarifa avulsa', balanceAfterCents: day1.closingBalanceCents - 1_500 }),
    ]);
    expect(day2.blocks).toEqual([expect.objectContaining({ event: 'released', amountCents: 2_000 })]);
    expect(day2).toMatchObject({ openingBlockedCents: 2_000, closingBlockedCents: 0, creditsCents: 0, debitsCents: 1_500 });

    expect(day3).toMatchObject({
      movements: [],
      blocks: [],
      movementCount: 0,
      openingBalanceCents: day2.closingBalanceCents,
      closingBalanceCents: day2.closingBalanceCents,
    });
  });

  it('the digest chain: each day carries the SHA-256 of the previous day’s exact text, which is also its ETag', async () => {
    let previous: string | null = null;
    for (const day of days) {
      const served = await statementOf(merchant, day);
      const statement = JSON.parse(served.text) as Statement;
      // The text holds exactly what the OpenAPI document says (its 200 schema, no other field).
      expect(statementSchema.strict().safeParse(statement).error).toBeUndefined();
      expect(statement.previousDigest).toBe(previous);
      expect(served.etag).toBe(`"${sha256(served.text)}"`);
      previous = sha256(served.text);
    }
  });

  it('a closed day never changes: closing again writes nothing, the text is the same, and the database refuses a rewrite', async () => {
    const [day1] = days;
    if (!day1) throw new Error('days');
    const before = await statementOf(merchant, day1);
    gateway.clock.advance(3_600_000);
    await gateway.services.history.closeDays();
    expect((await statementOf(merchant, day1)).text).toBe(before.text);
    await expect(sql`UPDATE statements SET closing_balance_cents = 0 WHERE account_id = ${merchant.accountId}`.execute(gateway.database.db)).rejects.toThrow(
      /never rewritten/,
    );
    await expect(sql`DELETE FROM statements WHERE account_id = ${merchant.accountId}`.execute(gateway.database.db)).rejects.toThrow(/never rewritten/);
    expect((await statementOf(merchant, day1)).text).toBe(before.text);
  });

  it('another account has its own chain; it never reads this one', async () => {
    const [day1] = days;
    if (!day1) throw new Error('days');
    const mine = await statementOf(merchant, day1);
    const theirs = await statementOf(other, day1);
    expect(theirs.status).toBe(200);
    const statement = JSON.parse(theirs.text) as Statement;
    expect(statement).toMatchObject({ accountId: other.accountId, movements: [], openingBalanceCents: 0, closingBalanceCents: 0, previousDigest: null });
    expect(theirs.text).not.toBe(mine.text);
  });
});

describe('refusals', () => {
  it('a day before the account existed: 404 saying so', async () => {
    const [day1] = days;
    if (!day1) throw new Error('days');
    const before = dayAfter(day1, -1);
    expect(await statementOf(merchant, before)).toMatchObject({
      status: 404,
      text: JSON.stringify({ error: `Não há extrato de ${before}: a conta ainda não existia.` }),
    });
  });

  it('today: 404, not closed yet', async () => {
    const today = dayOf(gateway.clock.now());
    expect(await statementOf(merchant, today)).toMatchObject({
      status: 404,
      text: JSON.stringify({ error: `O extrato de ${today} ainda não foi fechado: fica disponível depois da meia-noite (horário de Brasília).` }),
    });
  });

  it.each(['2026-02-30', 'ontem', '2026-1-01', '20261101', '2026-11-01T00:00'])('a malformed date (%s): 400', async (date) => {
    expect(await statementOf(merchant, date)).toMatchObject({ status: 400, text: JSON.stringify({ error: 'Data do extrato inválida: use AAAA-MM-DD.' }) });
  });

  it('no key: 401', async () => {
    const response = await fetch(`${gateway.url}/v1/statements/${days[0] ?? ''}`);
    expect(response.status).toBe(401);
  });
});

describe.runIf(backend === 'postgres')('two workers at once (PostgreSQL server)', () => {
  it('close the same days once: the account lock serializes them, and the chain stays whole', async () => {
    const fresh = await startGateway();
    try {
      const account = await fresh.createMerchant();
      await fund(fresh, account, 10_000);
      for (let i = 0; i < 3; i++) {
        const now = fresh.clock.now();
        const next = dayStart(dayAfter(dayOf(now)));
        if (!next) throw new Error('day');
        fresh.clock.advance(next.getTime() - now.getTime() + 30 * 60_000);
        await fund(fresh, account, 1_000 + i);
      }
      const second = await fresh.startWorkerServices();
      try {
        const written = await Promise.all([fresh.services.history.closeDays(), second.services.history.closeDays(), fresh.services.history.closeDays()]);
        // The account's day of creation and the two after it; the current day stays open.
        expect(written.reduce((sum, count) => sum + count, 0)).toBe(3);
        const rows = await fresh.database.db
          .selectFrom('statements')
          .select(['digest', 'previousDigest', 'openingBalanceCents', 'closingBalanceCents'])
          .orderBy('day')
          .execute();
        expect(rows).toHaveLength(3);
        expect(rows.map((row) => row.previousDigest)).toEqual([null, rows[0]?.digest, rows[1]?.digest]);
        expect(rows.map((row) => row.closingBalanceCents)).toEqual([10_000, 11_000, 12_001]);
        expect(rows.slice(1).map((row) => row.openingBalanceCents)).toEqual(rows.slice(0, 2).map((row) => row.closingBalanceCents));
      } finally {
        await second.close();
      }
    } finally {
      await fresh.close();
    }
  });
});
