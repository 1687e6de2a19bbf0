import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { dayAfter, dayOf } from '../../src/platform/saoPauloDay.js';
import { balanceOf, createCharge, eventsOf, readTransaction } from '../helpers/api.js';
import { ADMIN_TOKEN, backend, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Sandbox parity (DESIGN.md §19): a merchant drives late fees and Pix Automático end to end from
 * the sandbox: a due-date charge paid on a chosen day, and a recurrence's next cycle debited now.
 */

/** 1% of each charge, so the fee on the amount paid shows. */
const FEES = { fees: { pixIn: { fixedCents: 0, bps: 100, minCents: 0, maxCents: 1_000_000 } }, limits: { chargeMaxCents: 1_000_000 } };

/** Moves the gateway's clock to noon of a day in Brazil. */
const setDay = (gateway: Gateway, day: string) => gateway.clock.advance(new Date(`${day}T12:00:00-03:00`).getTime() - gateway.clock.now().getTime());

describe(`sandbox parity (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway();
    merchant = await gateway.createMerchant(FEES);
  });
  afterAll(() => gateway.close());

  const ledgerOf = (transactionId: string) =>
    gateway.database.db
      .selectFrom('ledgerEntries')
      .select(['book', 'amountCents', 'kind'])
      .where('transactionId', '=', transactionId)
      .orderBy('book')
      .execute();

  describe('a due-date charge paid on a chosen day (paidOn)', () => {
    const pay = (transactionId: string, body?: Record<string, unknown>) =>
      gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey, body });
    const createDue = async () => {
      const created = await gateway.call('POST', '/v1/pix/due', {
        key: merchant.apiKey,
        body: {
          amountCents: 100_000,
          customer: { name: 'Maria Pagadora', document: { number: '52998224725', type: 'cpf' } },
          dueDate: '2027-08-13', // a Friday
          validityAfterDueDays: 5,
          fine: { percent: 2 },
          interest: { percent: 1, per: 'month' },
          discount: { until: [{ date: '2027-08-06', amountCents: 500 }] },
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.lastPayableDate).toBe('2027-08-18');
      return created.body.transactionId;
    };

    it('owes the amount due that day: paid on 2027-08-17 (4 days late, today 2027-08-02) with the fine and 4 days of interest, credited and posted to the cent', async () => {
      setDay(gateway, '2027-08-02');
      const transactionId = await createDue();
      const before = await balanceOf(gateway, merchant);
      // The day's amount is what the API says a payment that day owes.
      const quoted = await gateway.call('GET', `/v1/pix/due/${transactionId}/amount?date=2027-08-17`, { key: merchant.apiKey });
      expect(quoted.body).toMatchObject({ fineCents: 2_000, interestCents: 133, amountDueCents: 102_133 });
      // Another amount than that day's is refused, as any payment of the wrong amount.
      expect(await pay(transactionId, { paidOn: '2027-08-17', amountCents: 100_000 })).toMatchObject({
        status: 400,
        body: { error: messages.sandboxAmountMismatch },
      });

      const paid = await pay(transactionId, { paidOn: '2027-08-17', amountCents: 102_133 });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      // Fine 2% of 1.000,00 = 20,00; 1% a month for 4 calendar days (factor 0,001333) = 1,33; fee 1% of 1.021,33.
      expect(paid.body).toMatchObject({ status: 'paid', amountCents: 102_133, feeCents: 1_021, netCents: 101_112 });
      expect(paid.body.due?.paid).toEqual({ date: '2027-08-17', abatementCents: 0, discountCents: 0, interestCents: 133, fineCents: 2_000 });
      expect(paid.body.due?.originalAmountCents).toBe(100_000);
      expect(await balanceOf(gateway, merchant)).toBe(before + 101_112);
      expect(await ledgerOf(transactionId)).toEqual([
        { book: 'fees', amountCents: 1_021, kind: 'charge_paid' },
        { book: 'merchant', amountCents: 101_112, kind: 'charge_paid' },
        { book: 'settlement', amountCents: -102_133, kind: 'charge_paid' },
      ]);
      const events = await eventsOf(gateway, transactionId);
      expect(events.map((event) => event.name)).toEqual(['transaction.paid']);
      expect(events[0]?.payload).toMatchObject({ amountCents: 102_133, feeCents: 1_021, netCents: 101_112 });
      expect(await gateway.ledgerProblems()).toEqual([]);
    });

    it('on an early day it takes the discount; without paidOn, today (a Saturday after the Friday due date: no fine)', async () => {
      setDay(gateway, '2027-08-02');
      const early = await createDue();
      const paidEarly = await pay(early, { paidOn: '2027-08-06' });
      expect(paidEarly.status, JSON.stringify(paidEarly.body)).toBe(200);
      expect(paidEarly.body).toMatchObject({ status: 'paid', amountCents: 99_500, feeCents: 995, netCents: 98_505 });
      expect(paidEarly.body.due?.paid).toMatchObject({ date: '2027-08-06', discountCents: 500 });

      const today = await createDue();
      setDay(gateway, '2027-08-14');
      const paidToday = await pay(today);
      expect(paidToday.body).toMatchObject({ status: 'paid', amountCents: 100_000 });
      expect(paidToday.body.due?.paid).toMatchObject({ date: '2027-08-14', fineCents: 0, interestCents: 0 });
    });

    it('refuses a malformed day, a day outside the payable days and a charge without a due date, with their messages; nothing is paid', async () => {
      setDay(gateway, '2027-08-02');
      const transactionId = await createDue();
      const immediate = await createCharge(gateway, merchant);
      const before = await balanceOf(gateway, merchant);
      const refusals: [string, Record<string, unknown>, number, string][] = [
        [transactionId, { paidOn: '2027-13-01' }, 400, messages.sandboxPaidOnInvalid],
        [transactionId, { paidOn: '2027-02-30' }, 400, messages.sandboxPaidOnInvalid],
        [transactionId, { paidOn: 20270817 }, 400, messages.sandboxPaidOnInvalid],
        [transactionId, { paidOn: '2027-08-19' }, 422, 'paidOn deve estar entre 2027-08-02 e 2027-08-18, os dias em que a cobrança pode ser paga.'],
        [transactionId, { paidOn: '2027-08-01' }, 422, 'paidOn deve estar entre 2027-08-02 e 2027-08-18, os dias em que a cobrança pode ser paga.'],
        [immediate, { paidOn: '2027-08-02' }, 422, 'paidOn só vale para cobranças com vencimento (POST /v1/pix/due).'],
      ];
      for (const [id, body, status, error] of refusals) {
        expect(await pay(id, body), JSON.stringify(body)).toMatchObject({ status, body: { error } });
      }
      for (const id of [transactionId, immediate]) {
        expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'pending' });
        expect(await eventsOf(gateway, id)).toEqual([]);
      }
      expect(await balanceOf(gateway, merchant)).toBe(before);
    });
  });

  describe("a recurrence's next cycle debited now", () => {
    const today = () => dayOf(gateway.clock.now());
    const create = async (overrides: Record<string, unknown> = {}) => {
      const created = await gateway.call('POST', '/v1/recurrences', {
        key: merchant.apiKey,
        body: {
          contract: 'CONTRATO-SANDBOX',
          debtor: { name: 'Maria Pagadora', document: { number: '52998224725', type: 'cpf' } },
          frequency: 'monthly',
          amountCents: 5_000,
          startDate: dayAfter(today(), 30),
          retryPolicy: 'three_in_seven_days',
          ...overrides,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id;
    };
    const authorized = async (overrides: Record<string, unknown> = {}) => {
      const id = await create(overrides);
      expect((await gateway.call('POST', `/sandbox/v1/recurrences/${id}/authorize`, { key: merchant.apiKey })).status).toBe(200);
      return id;
    };
    const debitNext = (id: string, body?: Record<string, unknown>, key = merchant.apiKey) =>
      gateway.call('POST', `/sandbox/v1/recurrences/${id}/cycles/next/debit`, { key, body });
    const read = async (id: string) => (await gateway.call('GET', `/v1/recurrences/${id}`, { key: merchant.apiKey })).body;
    const recurrenceEvents = async (id: string) =>
      (await gateway.database.db.selectFrom('events').select(['name', 'payload']).where('name', 'like', 'recurrence.%').orderBy('id').execute())
        .map((row) => ({ name: row.name, payload: JSON.parse(row.payload) }))
        .filter((event) => event.payload.id === id)
        .map((event) => event.name);

    it('paid (the default): cycle 1, 30 days ahead, is charged as the worker charges it and paid at once; then cycle 2; ledger and events exact', async () => {
      setDay(gateway, '2027-09-01');
      const id = await authorized();
      const start = dayAfter(today(), 30);
      const before = await balanceOf(gateway, merchant);

      const first = await debitNext(id);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toMatchObject({ type: 'pix_in', status: 'paid', recurrenceId: id, cycle: 1, amountCents: 5_000, feeCents: 50, netCents: 4_950 });
      expect(first.body.endToEndId).toMatch(/^E/);
      let recurrence = await read(id);
      expect(recurrence.cycles).toEqual([
        expect.objectContaining({ cycle: 1, transactionId: first.body.transactionId, dueDate: start, attemptDate: start, failedAttempts: 0, status: 'paid' }),
      ]);
      expect(recurrence.nextCycleDate).toBe(dayAfter(start, 31)); // a month after the 1st of October
      // The cobr is at the simulated PSP, as the worker registers it.
      const cobr = await gateway.database.db
        .selectFrom('sandboxCycleCharges')
        .selectAll()
        .where('txid', '=', first.body.transactionId.replaceAll('-', ''))
        .execute();
      expect(cobr).toHaveLength(1);

      const second = await debitNext(id, { outcome: 'paid' });
      expect(second.body).toMatchObject({ status: 'paid', cycle: 2, netCents: 4_950 });
      recurrence = await read(id);
      expect(recurrence.cycles.map((cycle) => [cycle.cycle, cycle.status])).toEqual([
        [1, 'paid'],
        [2, 'paid'],
      ]);

      expect(await balanceOf(gateway, merchant)).toBe(before + 2 * 4_950);
      for (const paid of [first.body, second.body]) {
        expect(await eventsOf(gateway, paid.transactionId).then((events) => events.map((event) => event.name))).toEqual(['transaction.paid']);
        expect(await ledgerOf(paid.transactionId)).toEqual([
          { book: 'fees', amountCents: 50, kind: 'charge_paid' },
          { book: 'merchant', amountCents: 4_950, kind: 'charge_paid' },
          { book: 'settlement', amountCents: -5_000, kind: 'charge_paid' },
        ]);
      }
      expect(await recurrenceEvents(id)).toEqual(['recurrence.authorized']);
      expect(await gateway.ledgerProblems()).toEqual([]);
    });

    it('a cycle the worker charged already is the one debited, before its date', async () => {
      setDay(gateway, '2027-09-01');
      const id = await authorized({ startDate: dayAfter(today(), 5) });
      while ((await gateway.services.recurrences.createDueCycles()) > 0);
      const charged = (await read(id)).cycles[0]!;
      expect(charged).toMatchObject({ cycle: 1, status: 'pending' });
      const paid = await debitNext(id);
      expect(paid.body).toMatchObject({ transactionId: charged.transactionId, status: 'paid', cycle: 1 });
      expect((await read(id)).cycles).toHaveLength(1);
    });

    it('failed: retried per its policy (recurrence.retry_scheduled, each next call debits it again), then the charge fails; nothing credited', async () => {
      setDay(gateway, '2027-09-01');
      const id = await authorized();
      const before = await balanceOf(gateway, merchant);
      for (const attempt of [1, 2, 3]) {
        const failed = await debitNext(id, { outcome: 'failed' });
        expect(failed.status, JSON.stringify(failed.body)).toBe(200);
        expect(failed.body).toMatchObject({ status: 'pending', cycle: 1 });
        expect((await read(id)).cycles[0]).toMatchObject({ cycle: 1, failedAttempts: attempt, attemptDate: dayAfter(today()), status: 'pending' });
      }
      const last = await debitNext(id, { outcome: 'failed' });
      expect(last.body).toMatchObject({ status: 'failed', cycle: 1 });
      // The retries are recorded on the cycle's transaction too, then its failure.
      expect(await eventsOf(gateway, last.body.transactionId).then((events) => events.map((event) => event.name))).toEqual([
        'recurrence.retry_scheduled',
        'recurrence.retry_scheduled',
        'recurrence.retry_scheduled',
        'transaction.failed',
      ]);
      expect(await recurrenceEvents(id)).toEqual([
        'recurrence.authorized',
        'recurrence.retry_scheduled',
        'recurrence.retry_scheduled',
        'recurrence.retry_scheduled',
      ]);
      expect(await ledgerOf(last.body.transactionId)).toEqual([]);
      expect(await balanceOf(gateway, merchant)).toBe(before);

      // The recurrence goes on: its next call charges and debits cycle 2.
      expect((await debitNext(id)).body).toMatchObject({ status: 'paid', cycle: 2 });

      // Without a retry policy, one failed debit fails the charge.
      const once = await authorized({ retryPolicy: 'none' });
      const failed = await debitNext(once, { outcome: 'failed' });
      expect(failed.body).toMatchObject({ status: 'failed', cycle: 1 });
      expect(await recurrenceEvents(once)).toEqual(['recurrence.authorized']);
      expect(await gateway.ledgerProblems()).toEqual([]);
    });

    it('refuses a recurrence that is not active, one without a cycle left, a bad outcome and another account’s recurrence, with their messages', async () => {
      setDay(gateway, '2027-09-01');
      const awaiting = await create();
      expect(await debitNext(awaiting)).toMatchObject({
        status: 422,
        body: { error: 'Recorrência não está ativa (status atual: awaiting_authorization): só uma recorrência autorizada tem ciclos a debitar.' },
      });
      const cancelled = await authorized();
      expect((await gateway.call('POST', `/v1/recurrences/${cancelled}/cancel`, { key: merchant.apiKey })).status).toBe(200);
      expect(await debitNext(cancelled)).toMatchObject({
        status: 422,
        body: { error: 'Recorrência não está ativa (status atual: cancelled): só uma recorrência autorizada tem ciclos a debitar.' },
      });

      const single = await authorized({ endDate: dayAfter(today(), 30) });
      expect((await debitNext(single)).body).toMatchObject({ status: 'paid', cycle: 1 });
      expect(await debitNext(single)).toMatchObject({ status: 422, body: { error: messages.recurrenceNoCycleLeft } });

      const active = await authorized();
      // The simulated PSP down: the cycle's charge is not taken (502), and nothing is debited; up again, it is.
      const outage = (mode: string) => gateway.call('POST', '/sandbox/v1/providers/default/outage', { key: ADMIN_TOKEN, body: { mode } });
      expect((await outage('down')).status).toBe(200);
      expect(await debitNext(active)).toMatchObject({ status: 502, body: { error: messages.recurrenceProviderFailed } });
      expect((await read(active)).cycles).toEqual([]);
      expect((await outage('up')).status).toBe(200);
      expect((await debitNext(active)).body).toMatchObject({ status: 'paid', cycle: 1 });

      expect(await debitNext(active, { outcome: 'maybe' })).toMatchObject({ status: 400, body: { error: messages.sandboxDebitOutcomeInvalid } });
      const other = await gateway.createMerchant(FEES);
      expect(await debitNext(active, {}, other.apiKey)).toMatchObject({ status: 404, body: { error: messages.recurrenceNotFound } });
      expect((await read(active)).cycles).toHaveLength(1);
    });
  });
});
