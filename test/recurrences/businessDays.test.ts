import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { dayOf, dayStart } from '../../src/platform/saoPauloDay.js';
import { backend, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Pix Automático with BCB's ajusteDiaUtil (docs/recurrences.md, `businessDayAdjustment`): a cycle
 * due on a weekend or a national holiday is debited on the next business day; its due day and the
 * next cycle's stay the calendar's. In 2027: 28 August and 4 September are Saturdays, 7 September (Independência) a Tuesday.
 */

const HOUR_MS = 3_600_000;

describe(`Pix Automático: cycles on business days (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway();
    merchant = await gateway.createMerchant();
  });
  afterAll(() => gateway.close());

  /** Moves the clock to noon of a São Paulo day (never back). */
  const goTo = (day: string) => {
    const start = dayStart(day);
    if (!start) throw new Error(`no day ${day}`);
    const target = start.getTime() + 12 * HOUR_MS;
    const now = gateway.clock.now().getTime();
    if (target < now) throw new Error(`${day} is behind the clock`);
    gateway.clock.advance(target - now);
  };
  const create = (overrides: Record<string, unknown>) =>
    gateway.call('POST', '/v1/recurrences', {
      key: merchant.apiKey,
      body: {
        contract: 'CONTRATO-DIAS-UTEIS',
        debtor: { name: 'Maria Pagadora', document: { number: '52998224725', type: 'cpf' } },
        frequency: 'weekly',
        amountCents: 5_000,
        ...overrides,
      },
    });
  const sandbox = (path: string, payload?: Record<string, unknown>) =>
    gateway.call('POST', `/sandbox/v1/recurrences/${path}`, { key: merchant.apiKey, body: payload });
  const read = async (id: string) => (await gateway.call('GET', `/v1/recurrences/${id}`, { key: merchant.apiKey })).body;

  it('moves cycles off weekends and holidays, counts the next from the calendar, keeps a cycle of the last period; calendar days without it', async () => {
    goTo('2027-08-10');
    const fromSaturday = await create({ startDate: '2027-08-28', endDate: '2027-09-04', businessDayAdjustment: true });
    expect(fromSaturday.status, JSON.stringify(fromSaturday.body)).toBe(201);
    expect(fromSaturday.body).toMatchObject({ startDate: '2027-08-28', businessDayAdjustment: true, nextCycleDate: '2027-08-28' });
    const overHoliday = await create({ startDate: '2027-08-31', endDate: '2027-09-07', businessDayAdjustment: true });
    const calendarDays = await create({ startDate: '2027-08-31', endDate: '2027-09-07' });
    expect(calendarDays.body).toMatchObject({ businessDayAdjustment: false, nextCycleDate: '2027-08-31' });
    const ids = [fromSaturday.body.id, overHoliday.body.id, calendarDays.body.id];
    for (const id of ids) expect((await sandbox(`${id}/authorize`)).status).toBe(200);

    // The worker every day until the last cycle is charged (each from 10 days before its date).
    for (const day of ['2027-08-20', '2027-08-21', '2027-08-24', '2027-08-27', '2027-08-29']) {
      goTo(day);
      while ((await gateway.services.recurrences.createDueCycles()) > 0);
    }
    // Each cycle: its due day (BCB's dataDeVencimento, the calendar's) and its debit day (the PSP's, with ajusteDiaUtil).
    const days = async (id: string) => (await read(id)).cycles.map((cycle) => [cycle.dueDate, cycle.attemptDate, cycle.status]);
    // 4 September is the end: its cycle is due then and debited on the 6th.
    expect(await days(fromSaturday.body.id)).toEqual([
      ['2027-08-28', '2027-08-30', 'pending'],
      ['2027-09-04', '2027-09-06', 'pending'],
    ]);
    expect(await days(overHoliday.body.id)).toEqual([
      ['2027-08-31', '2027-08-31', 'pending'],
      ['2027-09-07', '2027-09-08', 'pending'],
    ]);
    expect(await days(calendarDays.body.id)).toEqual([
      ['2027-08-31', '2027-08-31', 'pending'],
      ['2027-09-07', '2027-09-07', 'pending'],
    ]);
    for (const id of ids) expect((await read(id)).nextCycleDate).toBeNull();

    // A cycle may be cancelled until the day before its first debit: the Saturday's, on Sunday.
    expect(dayOf(gateway.clock.now())).toBe('2027-08-29');
    const cancelled = await gateway.call('POST', `/v1/recurrences/${fromSaturday.body.id}/cycles/1/cancel`, { key: merchant.apiKey });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });

    // On the holiday: the adjusted cycle is not debited yet, and the unadjusted one can no longer be cancelled.
    goTo('2027-09-07');
    expect((await sandbox(`${overHoliday.body.id}/cycles/2/debit`, { outcome: 'paid' })).body).toEqual({
      error: messages.recurrenceDebitNotDue('2027-09-08'),
    });
    expect(await gateway.call('POST', `/v1/recurrences/${calendarDays.body.id}/cycles/2/cancel`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: messages.recurrenceCycleCancelTooLate },
    });
    goTo('2027-09-08');
    const paid = await sandbox(`${overHoliday.body.id}/cycles/2/debit`, { outcome: 'paid' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', amountCents: 5_000, recurrenceId: overHoliday.body.id, cycle: 2 });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('refuses a businessDayAdjustment that is not a boolean with 400, and creates nothing', async () => {
    const refused = await create({ startDate: '2027-10-12', businessDayAdjustment: 'sim' });
    expect(refused).toMatchObject({ status: 400, body: { error: messages.recurrenceBusinessDayAdjustmentInvalid } });
    const listed = await gateway.call('GET', '/v1/recurrences?limit=100', { key: merchant.apiKey });
    expect(listed.body.recurrences.map((recurrence) => recurrence.startDate)).not.toContain('2027-10-12');
  });
});
