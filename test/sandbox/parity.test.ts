import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, createCharge, eventsOf, readTransaction } from '../helpers/api.js';
import { backend, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Sandbox parity (DESIGN.md §19): a merchant drives late fees and Pix Automático end to end from
 * the sandbox: a due-date charge paid on a chosen day.
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
      return created.body.transactionId as string;
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
      expect(paid.body.due.paid).toEqual({ date: '2027-08-17', abatementCents: 0, discountCents: 0, interestCents: 133, fineCents: 2_000 });
      expect(paid.body.due.originalAmountCents).toBe(100_000);
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
      expect(paidEarly.body.due.paid).toMatchObject({ date: '2027-08-06', discountCents: 500 });

      const today = await createDue();
      setDay(gateway, '2027-08-14');
      const paidToday = await pay(today);
      expect(paidToday.body).toMatchObject({ status: 'paid', amountCents: 100_000 });
      expect(paidToday.body.due.paid).toMatchObject({ date: '2027-08-14', fineCents: 0, interestCents: 0 });
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
});
