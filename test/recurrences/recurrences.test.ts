import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { messages } from '../../src/messages.js';
import { derivedId } from '../../src/platform/ids.js';
import { dayAfter, dayOf, dayStart } from '../../src/platform/saoPauloDay.js';
import { ProviderError, type RecurrenceProvider } from '../../src/provider/provider.js';
import { ProviderRegistry } from '../../src/provider/registry.js';
import { SimulatedPixProvider } from '../../src/provider/simulated/simulator.js';
import { createRecurrenceBody } from '../../src/recurrences/schemas.js';
import { RecurrenceService } from '../../src/recurrences/service.js';
import { RoutingService } from '../../src/routing/service.js';
import { balanceOf, eventNames, eventually, readTransaction, registerEndpoint } from '../helpers/api.js';
import { backend, PUBLIC_HOST, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** Pix Automático (DESIGN.md §17, docs/recurrences.md): recurrences, their authorization, and a charge per cycle. */

const DAY_MS = 86_400_000;
/** 1% of each cycle, so the fee shows. */
const FEES = { fees: { pixIn: { fixedCents: 0, bps: 100, minCents: 0, maxCents: 1_000_000 } }, limits: { chargeMaxCents: 1_000_000 } };

describe(`Pix Automático recurrences (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  let receiver: Receiver;

  beforeAll(async () => {
    gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    merchant = await gateway.createMerchant(FEES);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await gateway.close();
    await receiver.close();
  });

  const today = () => dayOf(gateway.clock.now());
  const advanceDays = (days: number) => gateway.clock.advance(days * DAY_MS);
  const body = (overrides: Record<string, unknown> = {}) => ({
    contract: 'CONTRATO-2027-001',
    debtor: { name: 'Maria Pagadora', document: { number: '529.982.247-25', type: 'cpf' } },
    object: 'Assinatura academia',
    frequency: 'weekly',
    amountCents: 5_000,
    startDate: dayAfter(today(), 12),
    retryPolicy: 'three_in_seven_days',
    ...overrides,
  });
  const create = (overrides: Record<string, unknown> = {}) => gateway.call('POST', '/v1/recurrences', { key: merchant.apiKey, body: body(overrides) });
  const sandbox = <P extends string>(path: P, payload?: Record<string, unknown>) =>
    gateway.call('POST', `/sandbox/v1/recurrences/${path}`, { key: merchant.apiKey, body: payload });
  const read = async (id: string) => (await gateway.call('GET', `/v1/recurrences/${id}`, { key: merchant.apiKey })).body;
  const cycles = async () => {
    // The worker's step, run until it has nothing left to do.
    let moved = 0;
    while ((await gateway.services.recurrences.createDueCycles()) > 0) moved++;
    return moved;
  };
  const recurrenceEvents = async (id: string) =>
    (await gateway.database.db.selectFrom('events').select(['name', 'payload']).where('name', 'like', 'recurrence.%').orderBy('id').execute())
      .map((row) => ({ name: row.name, payload: JSON.parse(row.payload) }))
      .filter((event) => event.payload.id === id)
      .map((event) => event.name);
  /** The recurrence service over a simulator of the test's own (the gateway's provider id), whose calls a test can hold or fail. */
  const isolated = () => {
    const { db } = gateway.database;
    const simulator = new SimulatedPixProvider('default', db, gateway.clock, PUBLIC_HOST, 'manual', 1_000, 0);
    const registry = new ProviderRegistry([simulator]);
    return {
      simulator,
      service: new RecurrenceService(
        db,
        gateway.clock,
        registry,
        new RoutingService(db, gateway.clock, registry),
        gateway.services.accounts,
        gateway.services.fraudMarks,
      ),
    };
  };
  /** The provider's registrations wait until `release()`, then register as usual. */
  const holdRegistrations = (recurrences: RecurrenceProvider) => {
    const register = recurrences.createRecurrence.bind(recurrences);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const spy = vi.spyOn(recurrences, 'createRecurrence').mockImplementation(async (request) => {
      await held;
      return register(request);
    });
    return { spy, release };
  };
  const recurrenceRow = (id: string) => gateway.database.db.selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const countRows = async () =>
    Number(
      (
        await gateway.database.db
          .selectFrom('recurrences')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('accountId', '=', merchant.accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('runs a weekly recurrence: authorized, three cycles paid (one after a retry), one cycle cancelled, then cancelled; events in order, ledger exact', async () => {
    const byCategory = await registerEndpoint(gateway, merchant, { url: receiver.url('/recurrence'), events: ['recurrence'] });
    const cashin = await registerEndpoint(gateway, merchant, { url: receiver.url('/cashin'), events: ['cashin'] });
    const before = await balanceOf(gateway, merchant);
    const created = await create({ externalRef: 'academia-maria' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const start: string = created.body.startDate;
    expect(created.body).toMatchObject({
      status: 'awaiting_authorization',
      frequency: 'weekly',
      amountCents: 5_000,
      maxAmountCents: null,
      retryPolicy: 'three_in_seven_days',
      debtor: { name: 'Maria Pagadora', document: '52998224725', documentType: 'cpf' },
      nextCycleDate: start,
    });
    // BCB's idRec: R, R (retries allowed), the ISPB, the day, 11 characters.
    expect(created.body.providerRecurrenceId).toMatch(/^RR99999999\d{8}[a-zA-Z0-9]{11}$/);
    const id: string = created.body.id;
    const replayed = await create({ externalRef: 'academia-maria' });
    expect(replayed.status).toBe(200);
    // Marked as the spec marks charges' and withdrawals' replays.
    expect(replayed.body).toEqual({ ...created.body, idempotent: true });

    expect(await cycles()).toBe(0);
    const authorized = await sandbox(`${id}/authorize`);
    expect(authorized.status, JSON.stringify(authorized.body)).toBe(200);
    expect(authorized.body.status).toBe('authorized');
    expect((await sandbox(`${id}/authorize`)).body).toEqual({ error: messages.recurrenceNotAwaitingAuthorization('authorized') });
    // 12 days ahead: not yet (BCB: from 10 days before).
    expect(await cycles()).toBe(0);

    advanceDays(2);
    expect(await cycles()).toBe(1);
    let recurrence = await read(id);
    expect(recurrence.cycles).toHaveLength(1);
    expect(recurrence.cycles[0]).toMatchObject({ cycle: 1, dueDate: start, attemptDate: start, failedAttempts: 0, status: 'pending', amountCents: 5_000 });
    expect(recurrence.nextCycleDate).toBe(dayAfter(start, 7));
    const first: string = recurrence.cycles[0]!.transactionId!;
    expect(await readTransaction(gateway, merchant, first)).toMatchObject({
      type: 'pix_in',
      status: 'pending',
      recurrenceId: id,
      cycle: 1,
      amountCents: 5_000,
      feeCents: 50,
    });
    // The payer's bank debits on the date, not before.
    expect((await sandbox(`${id}/cycles/1/debit`, { outcome: 'paid' })).body).toEqual({ error: messages.recurrenceDebitNotDue(start) });
    // A cycle is not cancelled as a plain charge.
    // The refusals name the cycle's own path, filled with its recurrence and number.
    expect(await gateway.call('POST', `/v1/pix/${first}/cancel`, { key: merchant.apiKey })).toMatchObject({
      status: 422,
      body: { error: `Cobrança de um ciclo de Pix Automático: cancele-a em POST /v1/recurrences/${id}/cycles/1/cancel.` },
    });
    // Nor paid, expired or failed through the sandbox's plain-charge routes: its dates and retries would not apply.
    for (const action of ['pay', 'expire', 'fail']) {
      const refused = await gateway.call('POST', `/sandbox/v1/pix/${first}/${action}`, { key: merchant.apiKey });
      expect(refused, action).toMatchObject({
        status: 422,
        body: { error: `Cobrança de um ciclo de Pix Automático: use POST /sandbox/v1/recurrences/${id}/cycles/1/debit.` },
      });
    }
    expect(await readTransaction(gateway, merchant, first)).toMatchObject({ status: 'pending' });

    advanceDays(10);
    const paid = await sandbox(`${id}/cycles/1/debit`, { outcome: 'paid' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', recurrenceId: id, cycle: 1, netCents: 4_950 });
    expect(paid.body.endToEndId).toMatch(/^E/);
    expect(await cycles()).toBe(1); // cycle 2, 7 days ahead

    // Cycle 2: the debit fails, is retried the next day, and paid.
    advanceDays(7);
    expect(await cycles()).toBe(1); // cycle 3
    const failed = await sandbox(`${id}/cycles/2/debit`, { outcome: 'failed' });
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.status).toBe('pending');
    recurrence = await read(id);
    expect(recurrence.cycles[1]).toMatchObject({ cycle: 2, failedAttempts: 1, attemptDate: dayAfter(today()), status: 'pending' });
    expect((await sandbox(`${id}/cycles/2/debit`, { outcome: 'paid' })).status).toBe(422);
    advanceDays(1);
    expect((await sandbox(`${id}/cycles/2/debit`, { outcome: 'paid' })).body.status).toBe('paid');

    // Cycle 3: cancelled by the merchant before its date; on or after it, too late.
    const cancelledCycle = await gateway.call('POST', `/v1/recurrences/${id}/cycles/3/cancel`, { key: merchant.apiKey });
    expect(cancelledCycle.status, JSON.stringify(cancelledCycle.body)).toBe(200);
    expect(cancelledCycle.body).toMatchObject({ status: 'cancelled', cycle: 3 });
    expect((await gateway.call('POST', `/v1/recurrences/${id}/cycles/3/cancel`, { key: merchant.apiKey })).body).toEqual({
      error: messages.recurrenceCycleNotPending('cancelled'),
    });

    advanceDays(6);
    expect(await cycles()).toBe(1); // cycle 4
    expect((await gateway.call('POST', `/v1/recurrences/${id}/cycles/4/cancel`, { key: merchant.apiKey })).status).toBe(200);
    // Cycle 4 is cancelled too; cycle 5 is the third one paid.
    advanceDays(7);
    expect(await cycles()).toBe(1); // cycle 5
    expect((await gateway.call('POST', `/v1/recurrences/${id}/cycles/4/cancel`, { key: merchant.apiKey })).status).toBe(422);
    advanceDays(7);
    expect(await cycles()).toBe(1); // cycle 6
    expect((await sandbox(`${id}/cycles/5/debit`, { outcome: 'paid' })).body.status).toBe('paid');
    const tooLate = await sandbox(`${id}/cycles/5/cancel`);
    expect(tooLate.body).toEqual({ error: messages.recurrenceCycleNotPending('paid') });

    // The merchant cancels the recurrence: cycle 6, pending, is cancelled with it.
    const cancelled = await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant', nextCycleDate: null });
    expect(cancelled.body.cycles.map((cycle) => cycle.status)).toEqual(['paid', 'paid', 'cancelled', 'cancelled', 'paid', 'cancelled']);
    expect((await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey })).body).toEqual({
      error: messages.recurrenceNotCancellable('cancelled'),
    });
    advanceDays(7);
    expect(await cycles()).toBe(0);

    expect(await balanceOf(gateway, merchant)).toBe(before + 3 * 4_950);
    expect(await gateway.ledgerProblems()).toEqual([]);
    expect(await recurrenceEvents(id)).toEqual(['recurrence.authorized', 'recurrence.retry_scheduled', 'recurrence.cancelled']);
    const charges: string[] = cancelled.body.cycles.map((cycle) => cycle.transactionId!);
    expect(await eventNames(gateway, charges[0]!)).toEqual(['transaction.paid']);
    expect(await eventNames(gateway, charges[1]!)).toEqual(['recurrence.retry_scheduled', 'transaction.paid']);
    expect(await eventNames(gateway, charges[2]!)).toEqual(['transaction.cancelled']);
    expect(await eventNames(gateway, charges[5]!)).toEqual(['transaction.cancelled']);

    // Delivered: the recurrence category to one endpoint, cashin to the other, each in the order written.
    gateway.services.webhookDispatcher.start({ error: () => undefined, warn: () => undefined });
    const expected = { '/recurrence': 3, '/cashin': 6 };
    await eventually(() => {
      for (const [path, count] of Object.entries(expected)) expect(receiver.received.filter((request) => request.path === path)).toHaveLength(count);
    }, 20_000);
    const delivered = (path: string) =>
      receiver.received
        .filter((request) => request.path === path)
        .map((request) => JSON.parse(request.body))
        .sort((a, b) => String(a.eventId).localeCompare(String(b.eventId)));
    expect(delivered('/recurrence').map((event) => event.event)).toEqual(['recurrence.authorized', 'recurrence.retry_scheduled', 'recurrence.cancelled']);
    expect(delivered('/recurrence')[1]).toMatchObject({ id, status: 'authorized', cycle: { cycle: 2, failedAttempts: 1, transactionId: charges[1] } });
    expect(delivered('/cashin').map((event) => `${event.event}:${event.cycle}`)).toEqual([
      'transaction.paid:1',
      'transaction.paid:2',
      'transaction.cancelled:3',
      'transaction.cancelled:4',
      'transaction.paid:5',
      'transaction.cancelled:6',
    ]);
    expect(byCategory.events).toEqual(['recurrence']);
    expect(cashin.events).toEqual(['cashin']);
  });

  it('fails a cycle after 3 retries, and at once without a retry policy', async () => {
    const withRetries = (await create({ startDate: dayAfter(today(), 5) })).body;
    await sandbox(`${withRetries.id}/authorize`);
    const without = (await create({ startDate: dayAfter(today(), 5), retryPolicy: 'none' })).body;
    expect(without.providerRecurrenceId).toMatch(/^RN/);
    await sandbox(`${without.id}/authorize`);
    await cycles();
    advanceDays(5);
    const once = await sandbox(`${without.id}/cycles/1/debit`, { outcome: 'failed' });
    expect(once.body).toMatchObject({ status: 'failed', cycle: 1 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await sandbox(`${withRetries.id}/cycles/1/debit`, { outcome: 'failed' })).body.status).toBe('pending');
      advanceDays(1);
    }
    const last = await sandbox(`${withRetries.id}/cycles/1/debit`, { outcome: 'failed' });
    expect(last.body.status).toBe('failed');
    expect((await read(withRetries.id)).cycles[0]).toMatchObject({ failedAttempts: 4, status: 'failed' });
    expect(await eventNames(gateway, last.body.transactionId)).toEqual([
      'recurrence.retry_scheduled',
      'recurrence.retry_scheduled',
      'recurrence.retry_scheduled',
      'transaction.failed',
    ]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('the payer refuses: refused, recurrence.refused, no cycle', async () => {
    const { id } = (await create()).body;
    const refused = await sandbox(`${id}/refuse`);
    expect(refused.body).toMatchObject({ status: 'refused', nextCycleDate: null });
    expect((await sandbox(`${id}/authorize`)).body).toEqual({ error: messages.recurrenceNotAwaitingAuthorization('refused') });
    expect((await sandbox(`${id}/cancel`)).body).toEqual({ error: messages.recurrenceNotCancellable('refused') });
    advanceDays(3);
    await cycles();
    expect((await read(id)).cycles).toEqual([]);
    expect(await recurrenceEvents(id)).toEqual(['recurrence.refused']);
  });

  it('the payer cancels: the recurrence and its pending cycle, cancelledBy payer', async () => {
    const { id } = (await create({ startDate: dayAfter(today(), 5) })).body;
    await sandbox(`${id}/authorize`);
    expect(await cycles()).toBe(1);
    const cancelled = await sandbox(`${id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledBy: 'payer' });
    const cycle = (await read(id)).cycles[0]!;
    expect(cycle.status).toBe('cancelled');
    expect(await eventNames(gateway, cycle.transactionId!)).toEqual(['transaction.cancelled']);
    expect(await recurrenceEvents(id)).toEqual(['recurrence.authorized', 'recurrence.cancelled']);
  });

  it('the payer cancels one cycle before its date; the request left unanswered expires', async () => {
    const { id } = (await create({ startDate: dayAfter(today(), 4) })).body;
    await sandbox(`${id}/authorize`);
    await cycles();
    const cancelled = await sandbox(`${id}/cycles/1/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cycle: 1 });
    expect((await read(id)).status).toBe('authorized');

    const lapsing = (await create({ startDate: dayAfter(today(), 3) })).body;
    expect(await gateway.services.recurrences.expireAuthorizations()).toBe(0);
    advanceDays(1);
    expect((await sandbox(`${lapsing.id}/authorize`)).body).toEqual({ error: messages.recurrenceNotAwaitingAuthorization('expired') });
    // Lapsed, not yet expired by the worker: cancelled by neither side.
    expect((await sandbox(`${lapsing.id}/cancel`)).body).toEqual({ error: messages.recurrenceNotCancellable('expired') });
    const lateCancel = await gateway.call('POST', `/v1/recurrences/${lapsing.id}/cancel`, { key: merchant.apiKey });
    expect(lateCancel).toMatchObject({ status: 422, body: { error: messages.recurrenceNotCancellable('expired') } });
    expect(await gateway.services.recurrences.expireAuthorizations()).toBe(1);
    expect(await read(lapsing.id)).toMatchObject({ status: 'expired', nextCycleDate: null });
    expect(await recurrenceEvents(lapsing.id)).toEqual(['recurrence.expired']);
  });

  it('a start less than 3 days ahead is refused; the payer may authorize until the end of the 3rd day before it, in time for cycle 1', async () => {
    const before = await countRows();
    for (const days of [0, 1, 2]) {
      const refused = await create({ startDate: dayAfter(today(), days) });
      expect(refused, `${days} days ahead`).toMatchObject({ status: 400, body: { error: messages.recurrenceStartDateTooSoon } });
    }
    expect(await countRows()).toBe(before);
    const start = dayAfter(today(), 3);
    const created = await create({ startDate: start });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The end of today, the 3rd day before the start.
    expect(created.body.authorizationExpiresAt).toBe(dayStart(dayAfter(today()))!.getTime());
    // Authorized at its last moment: the worker, even a day late, still sends cycle 1's charge.
    gateway.clock.advance(created.body.authorizationExpiresAt - 1_000 - gateway.clock.now().getTime());
    expect((await sandbox(`${created.body.id}/authorize`)).status).toBe(200);
    advanceDays(1);
    await cycles();
    expect((await read(created.body.id)).cycles[0]).toMatchObject({ cycle: 1, dueDate: start, status: 'pending' });
  });

  it('a cycle reached less than 2 days before its date is recorded as skipped, with recurrence.cycle_skipped; the next one is charged', async () => {
    const start = dayAfter(today(), 4);
    const { id } = (await create({ startDate: start })).body;
    await sandbox(`${id}/authorize`);
    // The worker (or the provider) is down until 1 day before cycle 1.
    advanceDays(3);
    await cycles(); // cycle 1 skipped, cycle 2 (7 days ahead) charged
    const recurrence = await read(id);
    expect(recurrence.nextCycleDate).toBe(dayAfter(start, 14));
    expect(recurrence.cycles).toHaveLength(2);
    const skipped = { cycle: 1, transactionId: null, dueDate: start, attemptDate: start, failedAttempts: 0, status: 'skipped', amountCents: null };
    expect(recurrence.cycles[0]).toEqual(skipped);
    expect(recurrence.cycles[1]).toMatchObject({ cycle: 2, dueDate: dayAfter(start, 7), status: 'pending', amountCents: 5_000 });
    expect(await recurrenceEvents(id)).toEqual(['recurrence.authorized', 'recurrence.cycle_skipped']);
    const [event] = (
      await gateway.database.db.selectFrom('events').select(['transactionId', 'payload']).where('name', '=', 'recurrence.cycle_skipped').execute()
    ).filter((row) => JSON.parse(row.payload).id === id);
    expect(event!.transactionId).toBeNull();
    expect(JSON.parse(event!.payload)).toMatchObject({ event: 'recurrence.cycle_skipped', id, status: 'authorized', cycle: skipped });
    // Nothing to debit or cancel in a skipped cycle.
    expect((await sandbox(`${id}/cycles/1/debit`, { outcome: 'paid' })).body).toEqual({ error: messages.recurrenceCycleNotPending('skipped') });
    const cancelSkipped = await gateway.call('POST', `/v1/recurrences/${id}/cycles/1/cancel`, { key: merchant.apiKey });
    expect(cancelSkipped).toMatchObject({ status: 422, body: { error: messages.recurrenceCycleNotPending('skipped') } });
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it("a recurrence whose cycle's charge keeps failing at the provider backs off: the others behind it get their cycles", async () => {
    await cycles(); // the earlier tests' cycles, out of the way
    const failing = (await create({ startDate: dayAfter(today(), 5) })).body;
    const other = (await create({ startDate: dayAfter(today(), 6) })).body;
    for (const id of [failing.id, other.id]) expect((await sandbox(`${id}/authorize`)).status).toBe(200);
    const { simulator, service } = isolated();
    const { recurrences } = simulator;
    const createCycleCharge = recurrences.createCycleCharge.bind(recurrences);
    const spy = vi.spyOn(recurrences, 'createCycleCharge').mockImplementation(async (request) => {
      if (request.providerRecurrenceId === failing.providerRecurrenceId) throw new ProviderError('refused');
      return createCycleCharge(request);
    });
    // The clock runs (a ManualClock moves with real time too): a retry time is checked within the call's span.
    const retriesAt = async (delayMs: number, failures: number) => {
      const before = gateway.clock.now().getTime();
      expect(await service.createDueCycles(1)).toBe(0);
      const after = gateway.clock.now().getTime();
      const row = await recurrenceRow(failing.id);
      expect(row).toMatchObject({ nextCycle: 1, cycleFailures: failures });
      expect(row.cycleRetryAt!.getTime()).toBeGreaterThanOrEqual(before + delayMs);
      expect(row.cycleRetryAt!.getTime()).toBeLessThanOrEqual(after + delayMs);
    };
    // One at a time: the failing one is at the head (its cycle is the earliest).
    await retriesAt(30_000, 1);
    expect(await service.createDueCycles(1)).toBe(1);
    expect((await read(other.id)).cycles).toMatchObject([{ cycle: 1, status: 'pending' }]);
    expect((await read(failing.id)).cycles).toEqual([]);
    // Its time come, it is tried again, fails again, and waits twice as long.
    gateway.clock.advance(30_000);
    await retriesAt(60_000, 2);
    spy.mockRestore();
    gateway.clock.advance(55_000);
    expect(await service.createDueCycles(1)).toBe(0);
    gateway.clock.advance(5_000);
    expect(await service.createDueCycles(1)).toBe(1);
    expect((await read(failing.id)).cycles).toMatchObject([{ cycle: 1, status: 'pending' }]);
    expect(await recurrenceRow(failing.id)).toMatchObject({ nextCycle: 2, cycleFailures: 0, cycleRetryAt: null });
  });

  it("a cycle's charge whose answer was lost is sent again with the same txid (derived from the recurrence and cycle): the PSP's same cobr, not a second", async () => {
    await cycles(); // the earlier tests' cycles, out of the way
    const { id, providerRecurrenceId } = (await create({ startDate: dayAfter(today(), 5) })).body;
    await sandbox(`${id}/authorize`);
    const outage = (mode: string) => gateway.admin('POST', '/sandbox/v1/providers/default/outage', { mode });
    expect((await outage('timeout')).status).toBe(200);
    // Registered at the PSP, the answer lost (the simulator's timeout): nothing written, the recurrence backs off.
    expect(await gateway.services.recurrences.createDueCycles()).toBe(0);
    expect((await outage('up')).status).toBe(200);
    expect((await read(id)).cycles).toEqual([]);
    const cobrs = () => gateway.database.db.selectFrom('sandboxCycleCharges').selectAll().where('providerRecurrenceId', '=', providerRecurrenceId).execute();
    const [lost] = await cobrs();
    expect(lost).toMatchObject({ providerId: 'default', dueDate: dayAfter(today(), 5), amountCents: 5_000, cancelledAt: null });
    gateway.clock.advance(30_000);
    expect(await cycles()).toBe(1);
    const cycle = (await read(id)).cycles[0]!;
    expect(cycle).toMatchObject({ cycle: 1, status: 'pending' });
    // One cobr at the PSP, named by the cycle's transaction.
    expect(await cobrs()).toEqual([lost]);
    expect(lost!.txid).toBe(cycle.transactionId!.replaceAll('-', ''));
    expect(lost!.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(cycle.transactionId).toBe(derivedId(id, 'cycle-1'));
    // Cancelled at the PSP with the cycle.
    expect((await gateway.call('POST', `/v1/recurrences/${id}/cycles/1/cancel`, { key: merchant.apiKey })).status).toBe(200);
    expect((await cobrs())[0]!.cancelledAt).not.toBeNull();
  });

  it("a variable recurrence's amount changed while its cycle's charge is unconfirmed (an answer lost): the retry sends the amount first sent, the next cycle the new one", async () => {
    await cycles(); // the earlier tests' cycles, out of the way
    const { id, providerRecurrenceId } = (await create({ startDate: dayAfter(today(), 5), maxAmountCents: 8_000, retryPolicy: 'none' })).body;
    await sandbox(`${id}/authorize`);
    const outage = (mode: string) => gateway.admin('POST', '/sandbox/v1/providers/default/outage', { mode });
    expect((await outage('timeout')).status).toBe(200);
    // Registered at the PSP with R$ 50,00, the answer lost: nothing written here.
    expect(await gateway.services.recurrences.createDueCycles()).toBe(0);
    expect((await outage('up')).status).toBe(200);
    const changed = await gateway.call('PATCH', `/v1/recurrences/${id}`, { key: merchant.apiKey, body: { amountCents: 7_000 } });
    expect(changed).toMatchObject({ status: 200, body: { amountCents: 7_000, cycles: [] } });
    gateway.clock.advance(30_000);
    await cycles();
    expect((await read(id)).cycles).toMatchObject([{ cycle: 1, status: 'pending', amountCents: 5_000 }]);
    const cobrs = () =>
      gateway.database.db
        .selectFrom('sandboxCycleCharges')
        .select('amountCents')
        .where('providerRecurrenceId', '=', providerRecurrenceId)
        .orderBy('createdAt')
        .execute();
    expect(await cobrs()).toEqual([{ amountCents: 5_000 }]);
    advanceDays(7);
    await cycles();
    expect((await read(id)).cycles[1]).toMatchObject({ cycle: 2, status: 'pending', amountCents: 7_000 });
    expect(await cobrs()).toEqual([{ amountCents: 5_000 }, { amountCents: 7_000 }]);
  });

  it('concurrent requests with one externalRef: one recurrence, registered at the provider once', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => create({ externalRef: 'concorrente' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 201]);
    const ids = new Set(answers.map((answer) => answer.body.id));
    expect(ids.size).toBe(1);
    const id = [...ids][0]!;
    const registered = await gateway.database.db.selectFrom('sandboxRecurrences').selectAll().where('recurrenceId', '=', id).execute();
    expect(registered).toHaveLength(1);
    expect((await read(id)).status).toBe('awaiting_authorization');
  });

  it('while one request registers a recurrence, a replay does not ask the provider again, and a cancellation meanwhile cancels it there too', async () => {
    const { simulator, service } = isolated();
    const { recurrences } = simulator;
    const { spy, release } = holdRegistrations(recurrences);
    const account = await gateway.services.accounts.getAccount(merchant.accountId);
    const first = service.create(account, createRecurrenceBody.parse(body({ externalRef: 'em-registro' })));
    await eventually(() => expect(spy).toHaveBeenCalledTimes(1));
    // The gateway's own service (another simulator instance on the same records) answers the replay as it is.
    const replay = await create({ externalRef: 'em-registro' });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body).toMatchObject({ status: 'created', providerRecurrenceId: null, idempotent: true });
    const { id } = replay.body;
    const cancelled = await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant' });
    release();
    const { outcome, recurrence } = await first;
    expect(outcome).toBe('created');
    expect(recurrence).toMatchObject({ id, status: 'cancelled', registrationClaimedUntil: null });
    expect(recurrence.providerRecurrenceId).toMatch(/^RR99999999/);
    expect(spy).toHaveBeenCalledTimes(1);
    // Registered once, and cancelled there.
    const registered = await gateway.database.db.selectFrom('sandboxRecurrences').selectAll().where('recurrenceId', '=', id).execute();
    expect(registered).toMatchObject([{ providerRecurrenceId: recurrence.providerRecurrenceId }]);
    expect(registered[0]!.cancelledAt).not.toBeNull();
    expect(await recurrenceEvents(id)).toEqual(['recurrence.cancelled']);
  });

  const orphanRow = (providerRecurrenceId: string) =>
    gateway.database.db.selectFrom('orphanRecurrences').selectAll().where('providerRecurrenceId', '=', providerRecurrenceId).executeTakeFirstOrThrow();
  /** Asserts `at` is `ms` after some moment of `window` (the test clock runs on in between). */
  const expectAfter = (at: Date | null, window: { from: number; to: number }, ms: number) => {
    expect(at?.getTime()).toBeGreaterThanOrEqual(window.from + ms);
    expect(at?.getTime()).toBeLessThanOrEqual(window.to + ms);
  };
  const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; window: { from: number; to: number } }> => {
    const from = gateway.clock.now().getTime();
    const result = await work();
    return { result, window: { from, to: gateway.clock.now().getTime() } };
  };
  /** The operator's view: orphan recs not cancelled yet at the gateway's provider, as /metrics shows them. */
  const openOrphanRecs = async () => {
    const families = parsePrometheusTextFormat(await (await fetch(`${gateway.url}/metrics`)).text());
    const family = families.find((candidate) => candidate.name === 'pix_gateway_orphans_open');
    const sample = family?.metrics.find((metric) => metric.labels?.kind === 'recurrence' && metric.labels?.provider === 'default');
    return Number(sample?.value ?? 0);
  };
  const cancelledThere = async (providerRecurrenceId: string) =>
    (
      await gateway.database.db
        .selectFrom('sandboxRecurrences')
        .select('cancelledAt')
        .where('providerRecurrenceId', '=', providerRecurrenceId)
        .executeTakeFirstOrThrow()
    ).cancelledAt;

  it("a registration that finds its recurrence cancelled meanwhile, whose provider then refuses the rec's cancellation: answered as cancelled, the rec an orphan the worker cancels there", async () => {
    const { simulator, service } = isolated();
    const { recurrences } = simulator;
    const { release } = holdRegistrations(recurrences);
    const refusal = vi.spyOn(recurrences, 'cancelRecurrence').mockRejectedValue(new ProviderError('simulated refusal of the cancellation'));
    const openBefore = await openOrphanRecs();
    const account = await gateway.services.accounts.getAccount(merchant.accountId);
    const first = service.create(account, createRecurrenceBody.parse(body({ externalRef: 'orfa-no-registro' })));
    let id = '';
    await eventually(async () => {
      const [row] = await gateway.database.db.selectFrom('recurrences').select('id').where('externalRef', '=', 'orfa-no-registro').execute();
      expect(row).toBeDefined();
      id = row!.id;
    });
    expect((await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey })).status).toBe(200);
    // The request answers the recurrence as it is here, not a 502: the rec's cancellation is owed, durably.
    const {
      result: { recurrence },
      window: refused,
    } = await timed(() => {
      release();
      return first;
    });
    expect(recurrence).toMatchObject({ id, status: 'cancelled', cancelledBy: 'merchant' });
    const idRec = recurrence.providerRecurrenceId!;
    expect(refusal).toHaveBeenCalledTimes(1);
    expect(await cancelledThere(idRec)).toBeNull();
    const orphan = await orphanRow(idRec);
    expect(orphan).toMatchObject({
      recurrenceId: id,
      accountId: merchant.accountId,
      attempts: 1,
      cancelledAt: null,
      lastError: 'simulated refusal of the cancellation',
    });
    expectAfter(orphan.nextAttemptAt, refused, 10_000);
    expect(await openOrphanRecs()).toBe(openBefore + 1);
    // Not before its backoff; refused again, it doubles; then the worker's step cancels it there, once.
    expect(await service.cancelOrphans()).toBe(0);
    expect(refusal).toHaveBeenCalledTimes(1);
    gateway.clock.advance(10_000);
    const second = await timed(() => service.cancelOrphans());
    expect(second.result).toBe(0);
    expect(refusal).toHaveBeenCalledTimes(2);
    expect(await orphanRow(idRec)).toMatchObject({ attempts: 2, cancelledAt: null });
    expectAfter((await orphanRow(idRec)).nextAttemptAt, second.window, 20_000);
    refusal.mockRestore();
    gateway.clock.advance(20_000);
    const third = await timed(() => service.cancelOrphans());
    expect(third.result).toBe(1);
    expectAfter(await cancelledThere(idRec), third.window, 0);
    expect(await orphanRow(idRec)).toMatchObject({ attempts: 3, lastError: null });
    expectAfter((await orphanRow(idRec)).cancelledAt, third.window, 0);
    expect(await openOrphanRecs()).toBe(openBefore);
    expect(await service.cancelOrphans()).toBe(0);
    expect(await read(id)).toMatchObject({ status: 'cancelled' });
    expect(await recurrenceEvents(id)).toEqual(['recurrence.cancelled']);
  });

  it("an approval reported after the request expired: the rec is an orphan; its deciding request's attempt hangs, the worker takes it after the lease, and that request's late failure changes nothing; a repeated report asks nothing twice", async () => {
    const created = await create({ startDate: dayAfter(today(), 4) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, providerRecurrenceId } = created.body;
    const idRec = providerRecurrenceId!;
    advanceDays(2);
    expect(await gateway.services.recurrences.expireAuthorizations()).toBeGreaterThanOrEqual(1);
    expect(await read(id)).toMatchObject({ status: 'expired' });
    const { simulator, service } = isolated();
    // The deciding request's own attempt does not come back for longer than its lease.
    let fail: (error: Error) => void = () => {};
    const hung = vi.spyOn(simulator.recurrences, 'cancelRecurrence').mockImplementation(
      () =>
        new Promise<void>((_resolve, reject) => {
          fail = reject;
        }),
    );
    let reported: Promise<unknown> = Promise.resolve();
    const decided = await timed(async () => {
      reported = service.recurrenceReported('default', idRec, { status: 'authorized' });
      await eventually(() => expect(hung).toHaveBeenCalledTimes(1));
    });
    expect(await orphanRow(idRec)).toMatchObject({ recurrenceId: id, attempts: 0, cancelledAt: null });
    expectAfter((await orphanRow(idRec)).nextAttemptAt, decided.window, 60_000);
    // A repeat of the report: recorded already, nothing is asked again.
    expect(await service.recurrenceReported('default', idRec, { status: 'authorized' })).toBe('cancelled_there');
    expect(hung).toHaveBeenCalledTimes(1);
    // The worker leaves it to the request until the lease lapses; then tries it, the provider down: backoff.
    expect(await gateway.services.recurrences.cancelOrphans()).toBe(0);
    expect(await cancelledThere(idRec)).toBeNull();
    gateway.clock.advance(60_000);
    const outage = (mode: string) => gateway.admin('POST', '/sandbox/v1/providers/default/outage', { mode });
    expect((await outage('down')).status).toBe(200);
    const refused = await timed(() => gateway.services.recurrences.cancelOrphans());
    expect(refused.result).toBe(0);
    const scheduled = await orphanRow(idRec);
    expect(scheduled).toMatchObject({ attempts: 1, cancelledAt: null, lastError: expect.stringContaining('simulated') });
    expectAfter(scheduled.nextAttemptAt, refused.window, 10_000);
    // The request's attempt fails at last: the worker holds the rec now, its schedule stays.
    fail(new ProviderError('answered after the lease'));
    expect(await reported).toBe('cancelled_there');
    expect(await orphanRow(idRec)).toEqual(scheduled);
    expect((await outage('up')).status).toBe(200);
    gateway.clock.advance(10_000);
    const swept = await timed(() => gateway.services.recurrences.cancelOrphans());
    expect(swept.result).toBe(1);
    expectAfter(await cancelledThere(idRec), swept.window, 0);
    expect(await orphanRow(idRec)).toMatchObject({ attempts: 2, lastError: null });
    expectAfter((await orphanRow(idRec)).cancelledAt, swept.window, 0);
    expect(await read(id)).toMatchObject({ status: 'expired' });
    expect(await recurrenceEvents(id)).toEqual(['recurrence.expired']);
  });

  it('a failed registration lets go of its claim: a retry with the externalRef asks the provider again at once', async () => {
    const outage = (mode: string) => gateway.admin('POST', '/sandbox/v1/providers/default/outage', { mode });
    await outage('down');
    const failed = await create({ externalRef: 'tentar-de-novo' });
    await outage('up');
    expect(failed.status).toBe(502);
    const retried = await create({ externalRef: 'tentar-de-novo' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ status: 'awaiting_authorization', idempotent: true });
  });

  it('a registration that fails after its claim lapsed does not release the claim another request took since', async () => {
    const { simulator, service } = isolated();
    const { recurrences } = simulator;
    const register = recurrences.createRecurrence.bind(recurrences);
    const gates: { release: () => void; fail: boolean }[] = [];
    const spy = vi.spyOn(recurrences, 'createRecurrence').mockImplementation(async (request) => {
      const gate = { release: () => {}, fail: false };
      const held = new Promise<void>((resolve) => {
        gate.release = resolve;
      });
      gates.push(gate);
      await held;
      if (gate.fail) throw new ProviderError('refused');
      return register(request);
    });
    const account = await gateway.services.accounts.getAccount(merchant.accountId);
    const input = createRecurrenceBody.parse(body({ externalRef: 'duas-reservas' }));
    const first = service.create(account, input).catch((error: unknown) => error);
    await eventually(() => expect(spy).toHaveBeenCalledTimes(1));
    // The first claim lapses (a request held past its lease): a replay claims it anew and registers it.
    gateway.clock.advance(5 * 60_000 + 1_000);
    const second = service.create(account, input);
    await eventually(() => expect(spy).toHaveBeenCalledTimes(2));
    const { id } = await gateway.database.db.selectFrom('recurrences').select('id').where('externalRef', '=', 'duas-reservas').executeTakeFirstOrThrow();
    const secondClaim = (await recurrenceRow(id)).registrationClaimedUntil;
    expect(secondClaim!.getTime()).toBeGreaterThan(gateway.clock.now().getTime());
    // The first one's provider call fails: it lets go of its own claim only, not the second's.
    gates[0]!.fail = true;
    gates[0]!.release();
    expect(await first).toBeInstanceOf(Error);
    expect((await recurrenceRow(id)).registrationClaimedUntil).toEqual(secondClaim);
    // Another replay meanwhile answers it as it is, without asking the provider.
    const replay = await create({ externalRef: 'duas-reservas' });
    expect(replay.body).toMatchObject({ id, status: 'created', idempotent: true });
    expect(spy).toHaveBeenCalledTimes(2);
    expect(await gateway.database.db.selectFrom('sandboxRecurrences').selectAll().where('recurrenceId', '=', id).execute()).toEqual([]);
    gates[1]!.release();
    const { recurrence } = await second;
    expect(recurrence).toMatchObject({ id, status: 'awaiting_authorization', registrationClaimedUntil: null });
    spy.mockRestore();
  });

  it('a cancellation expires (not cancels) a pending cycle already past its expiry', async () => {
    const { id } = (await create({ startDate: dayAfter(today(), 5), retryPolicy: 'none' })).body;
    await sandbox(`${id}/authorize`);
    expect(await cycles()).toBe(1);
    // Never debited: past its due day and the 2 days of grace, the charge has expired though the expiry worker has not moved it yet.
    advanceDays(8);
    const cancelled = await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.cycles.map((cycle) => cycle.status)).toEqual(['expired']);
    expect(await eventNames(gateway, cancelled.body.cycles[0]!.transactionId!)).toEqual(['transaction.expired']);
    expect(await recurrenceEvents(id)).toEqual(['recurrence.authorized', 'recurrence.cancelled']);
  });

  it('a recurrence left created by a failing provider: the payer cannot cancel it, and it expires with its request time', async () => {
    const outage = (mode: string) => gateway.admin('POST', '/sandbox/v1/providers/default/outage', { mode });
    expect((await outage('down')).status).toBe(200);
    const failed = await create({ startDate: dayAfter(today(), 4) });
    expect((await outage('up')).status).toBe(200);
    expect(failed).toMatchObject({ status: 502, body: { error: messages.recurrenceProviderFailed } });
    const [row] = await gateway.database.db
      .selectFrom('recurrences')
      .selectAll()
      .where('accountId', '=', merchant.accountId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(row).toMatchObject({ status: 'created', providerRecurrenceId: null });
    const id = row!.id;
    // Never asked, the payer has nothing to cancel.
    expect((await sandbox(`${id}/cancel`)).body).toEqual({ error: messages.recurrenceNotCancellable('created') });
    await gateway.services.recurrences.expireAuthorizations();
    expect((await read(id)).status).toBe('created');
    advanceDays(5);
    expect(await gateway.services.recurrences.expireAuthorizations()).toBeGreaterThanOrEqual(1);
    expect(await read(id)).toMatchObject({ status: 'expired', nextCycleDate: null, cancelledBy: null });
    expect(await recurrenceEvents(id)).toEqual(['recurrence.expired']);
  });

  it("a failed debit racing the recurrence's cancel: each answers 200 or 422, never a 500 (one lock order; proved on the PostgreSQL server)", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) {
      const created = await create({ startDate: dayAfter(today(), 10) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id);
      expect((await sandbox(`${created.body.id}/authorize`)).status).toBe(200);
    }
    await cycles();
    advanceDays(10);
    const answers = await Promise.all(
      ids.flatMap((id) => [
        sandbox(`${id}/cycles/1/debit`, { outcome: 'failed' }),
        gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey }),
      ]),
    );
    expect(answers.map((answer) => answer.status).filter((status) => status !== 200 && status !== 422)).toEqual([]);
    for (const id of ids) expect((await read(id)).status).toBe('cancelled');
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it("a variable recurrence's amount changes for its cycles not charged yet, up to its ceiling; a fixed or ended one's, or bad input, is refused and nothing changes", async () => {
    const change = (id: string, payload: unknown, key = merchant.apiKey) => gateway.call('PATCH', `/v1/recurrences/${id}`, { key, body: payload });
    const start = dayAfter(today(), 12);
    const created = await create({ maxAmountCents: 8_000, startDate: start, endDate: dayAfter(start, 7), retryPolicy: 'none' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.id;
    expect((await sandbox(`${id}/authorize`)).status).toBe(200);
    advanceDays(2);
    await cycles();
    expect((await read(id)).cycles).toHaveLength(1);

    const changed = await change(id, { amountCents: 7_000 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ id, amountCents: 7_000, maxAmountCents: 8_000, nextCycleDate: dayAfter(start, 7) });
    expect(changed.body.updatedAt).toBeGreaterThan(created.body.updatedAt);
    expect(changed.body.updatedAt).toBeLessThanOrEqual(gateway.clock.now().getTime());
    // Cycle 1's charge is at the PSP already: it keeps its amount.
    expect(changed.body.cycles).toMatchObject([{ cycle: 1, amountCents: 5_000, status: 'pending' }]);

    for (const [payload, status, message] of [
      [{ amountCents: 8_001 }, 400, messages.recurrenceAmountAboveCeiling(8_000)],
      [{ amountCents: 0 }, 400, messages.chargeAmountInvalid],
      [{ amountCents: '7000' }, 400, messages.chargeAmountInvalid],
      [{}, 400, messages.chargeAmountInvalid],
      [[7_000], 400, messages.bodyNotObject],
      [{ amountCents: 1_000_001 }, 400, messages.amountAboveMaximum(1_000_000)],
    ] as const) {
      expect(await change(id, payload), JSON.stringify(payload)).toMatchObject({ status, body: { error: message } });
    }
    expect(await change('nope', { amountCents: 6_000 })).toMatchObject({ status: 400, body: { error: messages.recurrenceIdInvalid } });
    const other = await gateway.createMerchant(FEES);
    expect(await change(id, { amountCents: 6_000 }, other.apiKey)).toMatchObject({ status: 404, body: { error: messages.recurrenceNotFound } });
    expect((await recurrenceRow(id)).amountCents).toBe(7_000);

    // Cycle 2 is charged at the new amount, and credited so.
    advanceDays(7);
    await cycles();
    expect((await read(id)).cycles).toHaveLength(2);
    const second = (await read(id)).cycles[1]!;
    expect(second).toMatchObject({ cycle: 2, dueDate: dayAfter(start, 7), amountCents: 7_000, status: 'pending' });
    expect(await readTransaction(gateway, merchant, second.transactionId!)).toMatchObject({ amountCents: 7_000, feeCents: 70, netCents: 6_930 });
    const before = await balanceOf(gateway, merchant);
    advanceDays(10); // cycle 2's date
    expect((await sandbox(`${id}/cycles/2/debit`, { outcome: 'paid' })).status).toBe(200);
    expect(await balanceOf(gateway, merchant)).toBe(before + 6_930);

    // Its last cycle is charged: nothing is left to change.
    expect(await change(id, { amountCents: 6_000 })).toMatchObject({ status: 422, body: { error: messages.recurrenceNoCycleLeft } });
    // A fixed recurrence's amount is the one the payer authorized.
    const fixed = await create();
    expect(await change(fixed.body.id, { amountCents: 6_000 })).toMatchObject({ status: 422, body: { error: messages.recurrenceAmountFixed } });
    // An ended one's cannot change.
    const cancelled = await create({ maxAmountCents: 8_000 });
    expect((await gateway.call('POST', `/v1/recurrences/${cancelled.body.id}/cancel`, { key: merchant.apiKey })).status).toBe(200);
    expect(await change(cancelled.body.id, { amountCents: 6_000 })).toMatchObject({
      status: 422,
      body: { error: messages.recurrenceAmountNotOpen('cancelled') },
    });
    for (const recurrence of [fixed.body.id, cancelled.body.id]) expect((await recurrenceRow(recurrence)).amountCents).toBe(5_000);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('lists recurrences newest first with a cursor; 404 for unknown ids and cycles', async () => {
    const page = await gateway.call('GET', '/v1/recurrences?limit=2', { key: merchant.apiKey });
    expect(page.status).toBe(200);
    expect(page.body.recurrences).toHaveLength(2);
    expect(page.body.hasMore).toBe(true);
    const next = await gateway.call('GET', `/v1/recurrences?limit=2&startingAfter=${page.body.recurrences[1]!.id}`, { key: merchant.apiKey });
    expect(next.body.recurrences[0]?.createdAt).toBeLessThanOrEqual(page.body.recurrences[1]!.createdAt);
    expect(next.body.recurrences.map((row) => row.id)).not.toContain(page.body.recurrences[0]?.id);
    const bad = await gateway.call('GET', '/v1/recurrences?startingAfter=nope', { key: merchant.apiKey });
    expect(bad.body).toEqual({ error: messages.recurrenceStartingAfterInvalid });
    // A malformed id is a 400, as every other malformed id; a well-formed unknown one a 404.
    for (const [method, path] of [
      ['GET', '/v1/recurrences/nope'],
      ['POST', '/v1/recurrences/nope/cancel'],
      ['POST', '/v1/recurrences/nope/cycles/1/cancel'],
      ['POST', '/sandbox/v1/recurrences/nope/authorize'],
      ['POST', '/sandbox/v1/recurrences/nope/cancel'],
    ] as const) {
      expect(await gateway.call(method, path, { key: merchant.apiKey }), path).toMatchObject({ status: 400, body: { error: messages.recurrenceIdInvalid } });
    }
    const unknown = await gateway.call('GET', '/v1/recurrences/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', { key: merchant.apiKey });
    expect(unknown).toMatchObject({ status: 404, body: { error: messages.recurrenceNotFound } });
    const other = await gateway.createMerchant();
    const mine = page.body.recurrences[0]!.id;
    expect((await gateway.call('GET', `/v1/recurrences/${mine}`, { key: other.apiKey })).status).toBe(404);
    expect((await sandbox(`${mine}/cycles/0/debit`, { outcome: 'paid' })).body).toEqual({ error: messages.recurrenceCycleNotFound });
    expect((await sandbox(`${mine}/cycles/99/debit`, { outcome: 'sim' })).body).toEqual({ error: messages.sandboxDebitOutcomeInvalid });
  });

  it.each([
    ['an end before the start', { endDate: '2020-01-01' }, messages.recurrenceEndBeforeStart],
    ['a start in the past', { startDate: '2020-01-01' }, messages.recurrenceStartDateTooSoon],
    ['a start too far', { startDate: '2999-01-01' }, messages.recurrenceStartDateTooFar],
    ['a start that is no day', { startDate: '2027-02-30' }, messages.recurrenceStartDateInvalid],
    ['an end that is no day', { endDate: '31/12/2030' }, messages.recurrenceEndDateInvalid],
    ['a value of 0', { amountCents: 0 }, messages.chargeAmountInvalid],
    ['a value over the limit', { amountCents: 1_000_001 }, messages.amountAboveMaximum(1_000_000)],
    ['a ceiling over the limit', { maxAmountCents: 1_000_001 }, messages.amountAboveMaximum(1_000_000)],
    ['a ceiling below the fixed value', { maxAmountCents: 4_999 }, messages.recurrenceCeilingBelowAmount],
    ['a ceiling of 0', { maxAmountCents: 0 }, messages.recurrenceMaxAmountInvalid],
    ['an unknown frequency', { frequency: 'daily' }, messages.recurrenceFrequencyInvalid('daily')],
    ['an unknown retry policy', { retryPolicy: 'always' }, messages.recurrenceRetryPolicyInvalid('always')],
    ['no contract', { contract: '' }, messages.recurrenceContractInvalid],
    ['an object too long', { object: 'x'.repeat(36) }, messages.recurrenceObjectInvalid],
    ['no debtor name', { debtor: { name: ' ', document: { number: '52998224725', type: 'cpf' } } }, messages.recurrenceDebtorNameInvalid],
    ['an invalid CPF', { debtor: { name: 'Maria', document: { number: '52998224724', type: 'cpf' } } }, messages.recurrenceDebtorDocumentInvalid],
  ])('refuses %s with 400 and creates nothing', async (_case, overrides, message) => {
    const before = await countRows();
    const refused = await create(overrides);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: message });
    expect(await countRows()).toBe(before);
  });
});
