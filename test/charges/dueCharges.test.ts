import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, startGateway, validCustomer, type Gateway, type Merchant } from '../helpers/gateway.js';
import { balanceOf, eventsOf, readTransaction } from '../helpers/api.js';
import { messages } from '../../src/messages.js';

/** Charges with a due date (DESIGN.md §17, BCB's cobv) through the API and the sandbox, on each day of their life. */

/** 1% of each charge, so the fee on the amount paid shows. */
const FEES = { fees: { pixIn: { fixedCents: 0, bps: 100, minCents: 0, maxCents: 1_000_000 } } };

const payer = () => ({ name: 'Maria Pagadora', document: { number: '52998224725', type: 'cpf' } });

const dueBody = (overrides: Record<string, unknown> = {}) => ({
  amountCents: 100_000,
  customer: payer(),
  dueDate: '2027-03-10',
  validityAfterDueDays: 5,
  fine: { percent: 2 },
  interest: { percent: 1, per: 'month' },
  discount: { until: [{ date: '2027-03-05', amountCents: 500 }] },
  ...overrides,
});

/** Moves the gateway's clock to noon of a day in Brazil. */
const setDay = (gateway: Gateway, day: string) => gateway.clock.advance(new Date(`${day}T12:00:00-03:00`).getTime() - gateway.clock.now().getTime());

describe(`charges with a due date (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway();
    merchant = await gateway.createMerchant(FEES);
  });
  afterAll(() => gateway.close());

  const create = (body: Record<string, unknown>) => gateway.call('POST', '/v1/pix/due', { key: merchant.apiKey, body });
  const amountOn = (transactionId: string, date?: string) =>
    gateway.call('GET', `/v1/pix/due/${transactionId}/amount${date ? `?date=${date}` : ''}`, { key: merchant.apiKey });

  it('creates one: 201 with its dates, expiring at the end of its last payable day in Brazil, shown with its terms', async () => {
    setDay(gateway, '2027-03-01');
    const created = await create(dueBody());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', amountCents: 100_000, dueDate: '2027-03-10', lastPayableDate: '2027-03-15' });
    expect(created.body.expiresAt).toBe(new Date('2027-03-16T00:00:00-03:00').getTime() / 1000);
    expect(created.body.pixPayload).toMatch(/^000201/);
    const shown = await readTransaction(gateway, merchant, created.body.transactionId);
    expect(shown).toMatchObject({ type: 'pix_in', status: 'pending', amountCents: 100_000, feeCents: 1_000 });
    expect(shown.due).toEqual({
      dueDate: '2027-03-10',
      validityAfterDueDays: 5,
      lastPayableDate: '2027-03-15',
      originalAmountCents: 100_000,
      fine: { percent: 2 },
      interest: { percent: 1, per: 'month', days: 'calendar' },
      discount: { until: [{ date: '2027-03-05', amountCents: 500 }] },
    });
  });

  it('says what is due on each day: the discount until its date, the original up to the due date, then fine and interest, nothing after the last day', async () => {
    setDay(gateway, '2027-03-01');
    const { transactionId } = (await create(dueBody())).body;
    const on = async (date: string) => (await amountOn(transactionId, date)).body;
    expect(await on('2027-03-05')).toMatchObject({ payable: true, discountCents: 500, amountDueCents: 99_500 });
    expect(await on('2027-03-06')).toMatchObject({ payable: true, discountCents: 0, amountDueCents: 100_000 });
    expect(await on('2027-03-10')).toMatchObject({ payable: true, amountDueCents: 100_000 });
    // 1 day late: fine 2% (2.000,00 × 2% = 20,00) and 1% a month for a day (factor 0.000333: 0,33).
    expect(await on('2027-03-11')).toEqual({
      transactionId,
      date: '2027-03-11',
      dueDate: '2027-03-10',
      lastPayableDate: '2027-03-15',
      payable: true,
      originalCents: 100_000,
      abatementCents: 0,
      discountCents: 0,
      interestCents: 33,
      fineCents: 2_000,
      amountDueCents: 102_033,
    });
    expect(await on('2027-03-15')).toMatchObject({ payable: true, interestCents: 166, amountDueCents: 102_166 });
    expect(await on('2027-03-16')).toMatchObject({ payable: false });
    // Today by default.
    expect((await amountOn(transactionId)).body).toMatchObject({ date: '2027-03-01', discountCents: 500 });
  });

  it('is paid late for the amount due that day: a different amount is refused, the credit and fee follow the amount paid, the parts are kept', async () => {
    setDay(gateway, '2027-03-01');
    const { transactionId } = (await create(dueBody())).body;
    setDay(gateway, '2027-03-12');
    const before = await balanceOf(gateway, merchant);
    const wrong = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey, body: { amountCents: 100_000 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: messages.sandboxAmountMismatch });
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');

    // 2 days late: fine 20,00 and interest 0,66.
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey, body: { amountCents: 102_066 } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', amountCents: 102_066, feeCents: 1_021, netCents: 101_045 });
    expect(paid.body.due?.originalAmountCents).toBe(100_000);
    expect(paid.body.due?.paid).toEqual({ date: '2027-03-12', abatementCents: 0, discountCents: 0, interestCents: 66, fineCents: 2_000 });
    expect(await balanceOf(gateway, merchant)).toBe(before + 101_045);
    const events = await eventsOf(gateway, transactionId);
    expect(events.map((event) => event.name)).toEqual(['transaction.paid']);
    expect(events[0]?.payload).toMatchObject({ amountCents: 102_066, feeCents: 1_021, netCents: 101_045 });
    expect(await gateway.ledgerProblems()).toEqual([]);
    // Paid: no day takes a payment any more.
    expect((await amountOn(transactionId, '2027-03-13')).body).toMatchObject({ payable: false, originalCents: 100_000 });
  });

  it('is late from the first business day after its due date: a Friday due date paid on Saturday is on time (bacen/pix-api issues 167, 297)', async () => {
    setDay(gateway, '2027-08-02');
    const friday = (await create(dueBody({ dueDate: '2027-08-13', discount: undefined }))).body.transactionId;
    const saturday = (await create(dueBody({ dueDate: '2027-08-14', discount: undefined }))).body.transactionId;
    const amounts = async (transactionId: string, days: string[]) =>
      Promise.all(days.map(async (day) => ((await amountOn(transactionId, day)).body as { amountDueCents: number; fineCents: number }).amountDueCents));
    // Saturday and Sunday: the original. Monday: fine 20,00 and 3 days of 1% a month (0,001: 1,00). Tuesday: 4 days (1,33).
    expect(await amounts(friday, ['2027-08-13', '2027-08-14', '2027-08-15', '2027-08-16', '2027-08-17'])).toEqual([
      100_000, 100_000, 100_000, 102_100, 102_133,
    ]);
    // Due on a Saturday: moved to Monday, on time then; Tuesday one day late (fine and 0,33).
    expect(await amounts(saturday, ['2027-08-16', '2027-08-17'])).toEqual([100_000, 102_033]);

    setDay(gateway, '2027-08-14');
    const before = await balanceOf(gateway, merchant);
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${friday}/pay`, { key: merchant.apiKey });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', amountCents: 100_000, feeCents: 1_000, netCents: 99_000 });
    expect(paid.body.due?.paid).toEqual({ date: '2027-08-14', abatementCents: 0, discountCents: 0, interestCents: 0, fineCents: 0 });
    expect(await balanceOf(gateway, merchant)).toBe(before + 99_000);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('is paid early with its discount, for the discounted amount', async () => {
    setDay(gateway, '2027-03-01');
    const { transactionId } = (await create(dueBody({ discount: { perDayEarly: { percent: 0.1, days: 'business' } } }))).body;
    setDay(gateway, '2027-03-03');
    // Wednesday to Wednesday 03-10: 5 business days early, 0.5% of 1.000,00.
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', amountCents: 99_500, feeCents: 995, netCents: 98_505 });
    expect(paid.body.due?.paid).toMatchObject({ date: '2027-03-03', discountCents: 500 });
  });

  it('expires after its last payable day, and takes no payment then', async () => {
    setDay(gateway, '2027-03-01');
    const { transactionId } = (await create(dueBody())).body;
    setDay(gateway, '2027-03-15');
    expect(await gateway.services.charges.expireDueCharges()).toBe(0);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
    setDay(gateway, '2027-03-16');
    expect(await gateway.services.charges.expireDueCharges()).toBeGreaterThanOrEqual(1);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('expired');
    const refused = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
    expect(refused.status).toBe(422);
  });

  it('answers a retry with the same externalRef with the first charge (200), dates included', async () => {
    setDay(gateway, '2027-03-01');
    const first = await create(dueBody({ externalRef: 'fatura-2027-03' }));
    expect(first.status).toBe(201);
    const again = await create(dueBody({ externalRef: 'fatura-2027-03', amountCents: 5_000 }));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      transactionId: first.body.transactionId,
      idempotent: true,
      amountCents: 100_000,
      dueDate: '2027-03-10',
      lastPayableDate: '2027-03-15',
    });
    // Paid early for less (within the 7 days a key lasts), a retry still answers the amount it was created with.
    setDay(gateway, '2027-03-05');
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${first.body.transactionId}/pay`, { key: merchant.apiKey });
    expect(paid.body.amountCents).toBe(99_500);
    expect((await create(dueBody({ externalRef: 'fatura-2027-03' }))).body).toMatchObject({ status: 'paid', amountCents: 100_000 });
  });

  it('404 for the amount of a charge without a due date, or of another account', async () => {
    const immediate = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: { amountCents: 1000, customer: validCustomer() } });
    expect((await amountOn(immediate.body.transactionId)).body).toEqual({ error: messages.transactionNotFound });
    const other = await gateway.createMerchant(FEES);
    setDay(gateway, '2027-03-01');
    const theirs = await gateway.call('POST', '/v1/pix/due', { key: other.apiKey, body: dueBody() });
    const read = await amountOn(theirs.body.transactionId);
    expect(read.status).toBe(404);
    expect((await amountOn(theirs.body.transactionId, '2027-02-30')).body).toEqual({ error: messages.dueAmountDateInvalid });
    expect((await amountOn(theirs.body.transactionId, '9999-12-30')).body).toEqual({ error: messages.dueAmountDateInvalid });
  });

  it('400 for a day no payment can have: before the charge, or over a year after its last payable day', async () => {
    setDay(gateway, '2027-03-01');
    const { transactionId } = (await create(dueBody({ interest: { percent: 1, per: 'month', days: 'business' } }))).body;
    for (const date of ['2027-02-28', '2028-03-16']) {
      const refused = await amountOn(transactionId, date);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: messages.dueAmountDateOutOfRange });
    }
    expect((await amountOn(transactionId, '2028-03-15')).body).toMatchObject({ payable: false });
  });

  it('creates a batch item by item: each valid one 201, a known externalRef 200, each bad one its own status and message, nothing written for it', async () => {
    setDay(gateway, '2027-03-01');
    const count = async () =>
      (
        await gateway.database.db
          .selectFrom('transactions')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const known = await create(dueBody({ externalRef: 'lote-known' }));
    const before = Number(await count());
    const batch = await gateway.call('POST', '/v1/pix/due/batch', {
      key: merchant.apiKey,
      body: {
        charges: [
          dueBody({ externalRef: 'lote-1' }),
          dueBody({ dueDate: '2027-02-01' }),
          'not a charge',
          dueBody({ externalRef: 'lote-known' }),
          dueBody({ amountCents: 250_00, discount: undefined }),
          dueBody({ abatement: { percent: 100 } }),
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.created).toBe(2);
    expect(batch.body.failed).toBe(3);
    expect(batch.body.results.map((result: { index: number; status: number; error?: string }) => [result.index, result.status, result.error])).toEqual([
      [0, 201, undefined],
      [1, 400, messages.dueDateInPast],
      [2, 400, messages.bodyNotObject],
      [3, 200, undefined],
      [4, 201, undefined],
      [5, 400, messages.abatementTooLarge],
    ]);
    expect(batch.body.results[0]?.charge).toMatchObject({ status: 'pending', amountCents: 100_000, dueDate: '2027-03-10', lastPayableDate: '2027-03-15' });
    expect(batch.body.results[3]?.charge?.transactionId).toBe(known.body.transactionId);
    expect(Number(await count())).toBe(before + 2);
    const second = await readTransaction(gateway, merchant, batch.body.results[4]!.charge!.transactionId);
    expect(second).toMatchObject({ amountCents: 25_000, due: { dueDate: '2027-03-10' } });
  });

  it.each([
    ['not a list', { charges: 'x' }],
    ['an empty list', { charges: [] }],
    ['101 charges', { charges: Array.from({ length: 101 }, () => ({})) }],
  ])('a malformed batch (%s) is 400 with its message', async (_name, body) => {
    const refused = await gateway.call('POST', '/v1/pix/due/batch', { key: merchant.apiKey, body });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: messages.dueBatchInvalid });
  });

  describe('bad input: 400 with its message, nothing created', () => {
    const CASES: [string, Record<string, unknown>, string][] = [
      ['no payer document', { customer: { name: 'Maria' } }, messages.documentRequired],
      ['a bad optional email', { customer: { ...payer(), email: 'maria' } }, messages.dueCustomerEmailInvalid],
      ['no due date', { dueDate: undefined }, messages.dueDateInvalid],
      ['a due date that does not exist', { dueDate: '2027-02-30' }, messages.dueDateInvalid],
      ['a due date in the past', { dueDate: '2027-02-28' }, messages.dueDateInPast],
      ['a due date more than five years ahead', { dueDate: '2032-03-10' }, messages.dueDateTooFar],
      ['a due date at the end of the calendar', { dueDate: '9999-12-31' }, messages.dueDateInvalid],
      ['a percentage below 0.01', { fine: { percent: 0.000_000_01 } }, messages.fineInvalid],
      ['a negative validity', { validityAfterDueDays: -1 }, messages.dueValidityInvalid],
      ['a fine with both amount and percent', { fine: { percent: 2, amountCents: 100 } }, messages.fineInvalid],
      ['a fine of 0%', { fine: { percent: 0 } }, messages.fineInvalid],
      ['a fine with three decimals', { fine: { percent: 2.005 } }, messages.fineInvalid],
      ['a fine as large as the charge', { fine: { amountCents: 100_000 } }, messages.fineTooLarge],
      ['interest over 100%', { interest: { percent: 100.01, per: 'month' } }, messages.interestInvalid],
      ['interest per week', { interest: { percent: 1, per: 'week' } }, messages.interestPerInvalid],
      ['an amount of interest per month', { interest: { amountCents: 10, per: 'month' } }, messages.interestPerInvalid],
      ['interest in working days', { interest: { percent: 1, days: 'working' } }, messages.interestDaysInvalid],
      ['an abatement of 100%', { abatement: { percent: 100 } }, messages.abatementTooLarge],
      ['an abatement as large as the charge', { abatement: { amountCents: 100_000 } }, messages.abatementTooLarge],
      ['both kinds of discount', { discount: { until: [{ date: '2027-03-05', amountCents: 1 }], perDayEarly: { amountCents: 1 } } }, messages.discountInvalid],
      [
        'four discount dates',
        { discount: { until: ['2027-03-02', '2027-03-03', '2027-03-04', '2027-03-05'].map((date) => ({ date, amountCents: 1 })) } },
        messages.discountInvalid,
      ],
      ['a discount date without a value', { discount: { until: [{ date: '2027-03-05' }] } }, messages.discountTierInvalid],
      [
        'amounts and percentages mixed',
        {
          discount: {
            until: [
              { date: '2027-03-04', amountCents: 1 },
              { date: '2027-03-05', percent: 1 },
            ],
          },
        },
        messages.discountTiersMixed,
      ],
      [
        'a discount date twice',
        {
          discount: {
            until: [
              { date: '2027-03-05', amountCents: 2 },
              { date: '2027-03-05', amountCents: 1 },
            ],
          },
        },
        messages.discountDatesRepeated,
      ],
      ['a discount after the due date', { discount: { until: [{ date: '2027-03-11', amountCents: 100 }] } }, messages.discountDateOutOfRange],
      ['a discount date already past', { discount: { until: [{ date: '2027-02-28', amountCents: 100 }] } }, messages.discountDateOutOfRange],
      [
        'a discount as large as the charge less its abatement',
        { abatement: { amountCents: 1_000 }, discount: { until: [{ date: '2027-03-05', amountCents: 99_000 }] } },
        messages.discountTooLarge,
      ],
      // Paid today, 9 days early: 12% a day would take 108%.
      ['a discount per day that would reach the charge', { discount: { perDayEarly: { percent: 12, days: 'calendar' } } }, messages.discountTooLarge],
      ['a bad day kind for a discount', { discount: { perDayEarly: { percent: 1, days: 'uteis' } } }, messages.discountPerDayInvalid],
      ['an amount below the minimum', { amountCents: 99 }, messages.chargeAmountInvalid],
    ];

    it.each(CASES)('%s', async (_name, overrides, message) => {
      setDay(gateway, '2027-03-01');
      const count = async () =>
        (
          await gateway.database.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const before = await count();
      const refused = await create(dueBody(overrides));
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: message });
      expect(await count()).toBe(before);
    });
  });
});
