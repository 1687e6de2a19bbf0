import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reminderStageAt } from '../../src/infractions/reminders.js';
import { eventsOf, paidCharge, readTransaction, registerEndpoint } from '../helpers/api.js';
import type { OpenApiDocument } from '../helpers/contract.js';
import { backend, NO_CHARGE_FEES, providersFile, serverUrl, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * The MED defense deadline (DESIGN.md §19): the PSP's days (5 by default, a provider's own from
 * PROVIDERS_FILE), and its reminders 48 h, 24 h and 6 h before it: the event
 * transaction.dispute_deadline (the charge, the case as `infraction`, `deadlineIn`) and an operator
 * alert, each once per stage per case, also with two workers at once; none for a closed case or
 * after the deadline; a case first seen inside 6 h gets the 6 h reminder alone. The clock is the
 * gateway's ManualClock.
 */
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const openCase = async (gateway: Gateway, merchant: Merchant, transactionId: string) => {
  const opened = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/infraction`, {
    key: merchant.apiKey,
    body: { reason: 'fraud', amountCents: 400 },
  });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return opened.body;
};

/** Moves the clock to `offsetMs` from `at` (Unix ms): the tests place it around a deadline. */
const moveTo = (gateway: Gateway, at: number, offsetMs: number) => gateway.clock.advance(at + offsetMs - gateway.clock.now().getTime());

const reminders = async (gateway: Gateway, transactionId: string) =>
  (await eventsOf(gateway, transactionId)).filter((event) => event.name === 'transaction.dispute_deadline').map((event) => event.payload);

const alertsOf = async (gateway: Gateway, merchant: Merchant) =>
  (await gateway.services.alerts.list(merchant.accountId)).filter((alert) => alert.kind === 'med_defense_deadline').reverse();

describe('the stage of a deadline', () => {
  const deadline = new Date(Date.UTC(2026, 11, 10, 12));
  it.each([
    [49 * HOUR, null],
    [48 * HOUR + 1, null],
    [48 * HOUR, 48],
    [24 * HOUR + 1, 48],
    [24 * HOUR, 24],
    [6 * HOUR + 1, 24],
    [6 * HOUR, 6],
    [1, 6],
    [0, null],
    [-HOUR, null],
  ])('%d ms before the deadline: %s', (left, stage) => {
    expect(reminderStageAt(deadline, new Date(deadline.getTime() - left))).toBe(stage);
  });
});

describe(`reminders (${backend})`, () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
  });
  afterAll(() => gateway.close());

  async function caseOnNewCharge() {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const transactionId = await paidCharge(gateway, merchant);
    const opened = await openCase(gateway, merchant, transactionId);
    return { merchant, transactionId, opened };
  }

  it('opens with the default 5-day deadline', async () => {
    const { opened } = await caseOnNewCharge();
    expect(opened.defenseDeadline).toBe(opened.openedAt + 5 * DAY);
  });

  it('48 h, 24 h and 6 h before the deadline: one event with the exact body and one alert each, never again; none after the deadline', async () => {
    const { merchant, transactionId, opened } = await caseOnNewCharge();
    const deadline = opened.defenseDeadline;
    const remind = () => gateway.services.deadlineReminders.remindDue();

    await remind();
    moveTo(gateway, deadline, -48 * HOUR - MINUTE);
    await remind();
    expect(await reminders(gateway, transactionId)).toEqual([]);

    const charge = await readTransaction(gateway, merchant, transactionId);
    const {
      pixPayload: _payload,
      endToEndId: _endToEndId,
      payer: _payer,
      ...transaction
    } = charge as typeof charge & { endToEndId?: unknown; payer?: unknown };
    const stages = [
      { hours: 48, at: -48 * HOUR + MINUTE, severity: 'normal' },
      { hours: 24, at: -24 * HOUR + MINUTE, severity: 'normal' },
      { hours: 6, at: -6 * HOUR + MINUTE, severity: 'high' },
    ];
    for (const [index, stage] of stages.entries()) {
      moveTo(gateway, deadline, stage.at);
      expect(await remind()).toBeGreaterThanOrEqual(1);
      await remind();
      const written = await reminders(gateway, transactionId);
      expect(written).toHaveLength(index + 1);
      const body = written[index];
      const occurredAt = Number(body?.occurredAt);
      expect(body).toEqual({
        eventId: expect.any(String),
        event: 'transaction.dispute_deadline',
        ...transaction,
        infraction: opened,
        deadlineIn: deadline - occurredAt,
        occurredAt,
      });
      // Written at the stage: the time left is just under the stage's hours.
      expect(deadline - occurredAt).toBeLessThanOrEqual(stage.hours * HOUR);
      expect(deadline - occurredAt).toBeGreaterThan(stage.hours * HOUR - 2 * MINUTE);
      const alerts = await alertsOf(gateway, merchant);
      expect(alerts).toHaveLength(index + 1);
      expect(alerts[index]).toEqual({
        alertId: expect.any(String),
        accountId: merchant.accountId,
        kind: 'med_defense_deadline',
        severity: stage.severity,
        transactionId,
        details: { infractionId: opened.infractionId, stageHours: stage.hours, status: 'open', defenseDeadline: deadline, deadlineIn: deadline - occurredAt },
        createdAt: occurredAt,
      });
    }

    moveTo(gateway, deadline, -MINUTE);
    await remind();
    moveTo(gateway, deadline, MINUTE);
    await remind();
    expect(await gateway.services.infractions.analyzeOverdue()).toBeGreaterThanOrEqual(1);
    await remind();
    expect(await reminders(gateway, transactionId)).toHaveLength(3);
    expect(await alertsOf(gateway, merchant)).toHaveLength(3);
    expect((await eventsOf(gateway, transactionId)).map((event) => event.name)).toEqual([
      'transaction.paid',
      'transaction.infraction',
      'transaction.blocked',
      'transaction.dispute_deadline',
      'transaction.dispute_deadline',
      'transaction.dispute_deadline',
      'transaction.dispute',
    ]);
  });

  it('a defended case is still reminded (its status in the body); a case closed before a stage gets no more reminders', async () => {
    const defended = await caseOnNewCharge();
    const closed = await caseOnNewCharge();
    const sent = await gateway.call('POST', `/v1/infractions/${defended.opened.infractionId}/defense`, {
      key: defended.merchant.apiKey,
      body: { text: 'Produto entregue.' },
    });
    expect(sent.status).toBe(200);
    // Both were opened within the same minute: their deadlines are that close.
    moveTo(gateway, closed.opened.defenseDeadline, -47 * HOUR);
    await gateway.services.deadlineReminders.remindDue();
    expect(await reminders(gateway, closed.transactionId)).toHaveLength(1);
    expect(await reminders(gateway, defended.transactionId)).toMatchObject([{ infraction: { status: 'in_defense', defense: 'Produto entregue.' } }]);

    const rejected = await gateway.call('POST', `/sandbox/v1/infractions/${closed.opened.infractionId}/close`, {
      key: closed.merchant.apiKey,
      body: { outcome: 'rejected' },
    });
    expect(rejected.status).toBe(200);
    moveTo(gateway, closed.opened.defenseDeadline, -5 * HOUR);
    await gateway.services.deadlineReminders.remindDue();
    expect(await reminders(gateway, closed.transactionId)).toHaveLength(1);
    expect(await alertsOf(gateway, closed.merchant)).toHaveLength(1);
    // The defended case, first seen again inside 6 h, gets the 6 h reminder alone (the 24 h one would say less).
    const defendedReminders = await reminders(gateway, defended.transactionId);
    expect(defendedReminders).toHaveLength(2);
    expect(Number(defendedReminders[1]?.deadlineIn)).toBeLessThanOrEqual(6 * HOUR);
    expect((await alertsOf(gateway, defended.merchant)).map((alert) => alert.details.stageHours)).toEqual([48, 6]);
  });

  it('a case first seen inside 6 h of its deadline gets the 6 h reminder alone', async () => {
    const { merchant, transactionId, opened } = await caseOnNewCharge();
    moveTo(gateway, opened.defenseDeadline, -5 * HOUR);
    await gateway.services.deadlineReminders.remindDue();
    await gateway.services.deadlineReminders.remindDue();
    const written = await reminders(gateway, transactionId);
    expect(written).toHaveLength(1);
    expect(written[0]?.deadlineIn).toBe(opened.defenseDeadline - Number(written[0]?.occurredAt));
    expect(Number(written[0]?.deadlineIn)).toBeLessThanOrEqual(5 * HOUR);
    expect((await alertsOf(gateway, merchant)).map((alert) => [alert.details.stageHours, alert.severity])).toEqual([[6, 'high']]);
  });

  it('is delivered to endpoints filtering on dispute (not cashin), and fits its OpenAPI webhooks schema', async () => {
    const { merchant, transactionId, opened } = await caseOnNewCharge();
    const disputes = await registerEndpoint(gateway, merchant, { url: 'https://hooks.example.com/disputes', events: ['dispute'] });
    const cashin = await registerEndpoint(gateway, merchant, { url: 'https://hooks.example.com/cashin', events: ['cashin'] });
    const named = await registerEndpoint(gateway, merchant, { url: 'https://hooks.example.com/named', events: ['transaction.dispute_deadline'] });
    moveTo(gateway, opened.defenseDeadline, -30 * HOUR);
    await gateway.services.deadlineReminders.remindDue();
    const event = await gateway.database.db
      .selectFrom('events')
      .select(['id', 'payload'])
      .where('transactionId', '=', transactionId)
      .where('name', '=', 'transaction.dispute_deadline')
      .executeTakeFirstOrThrow();
    const deliveries = await gateway.database.db.selectFrom('webhookDeliveries').select('endpointId').where('eventId', '=', event.id).execute();
    expect(deliveries.map((delivery) => delivery.endpointId).sort()).toEqual([disputes.endpointId, named.endpointId].sort());
    expect(deliveries.map((delivery) => delivery.endpointId)).not.toContain(cashin.endpointId);

    const document = (await gateway.call<OpenApiDocument>('GET', '/openapi.json')).body;
    const reference = document.webhooks['transaction.dispute_deadline']?.post.requestBody?.content['application/json']?.schema?.$ref;
    expect(reference).toBe('#/components/schemas/TransactionDisputeDeadlineEvent');
    const schema = document.components.schemas.TransactionDisputeDeadlineEvent;
    const body = JSON.parse(event.payload) as Record<string, unknown>;
    expect(Object.keys(body).filter((field) => !Object.keys(schema?.properties ?? {}).includes(field))).toEqual([]);
    expect((schema?.required ?? []).filter((field) => !(field in body))).toEqual([]);
    expect(schema?.required).toEqual(expect.arrayContaining(['infraction', 'deadlineIn', 'occurredAt']));
  });

  it(`two workers at once remind each case once per stage${serverUrl ? '' : ' (serialized on PGlite; proved on the server)'}`, async () => {
    const other = await gateway.startWorkerServices();
    const cases = [];
    for (let index = 0; index < 12; index++) cases.push(await caseOnNewCharge());
    const [first] = cases;
    if (!first) throw new Error('no case');
    const sweep = () =>
      Promise.all(
        [gateway.services, other.services, gateway.services, other.services].map(async (services) => {
          for (let round = 0; round < 3; round++) await services.deadlineReminders.remindDue(5);
        }),
      );
    for (const offset of [-47 * HOUR, -23 * HOUR, -5 * HOUR]) {
      moveTo(gateway, first.opened.defenseDeadline, offset);
      await sweep();
    }
    for (const { merchant, transactionId } of cases) {
      const written = await reminders(gateway, transactionId);
      expect(written).toHaveLength(3);
      expect(new Set(written.map((body) => body.eventId)).size).toBe(3);
      expect((await alertsOf(gateway, merchant)).map((alert) => alert.details.stageHours)).toEqual([48, 24, 6]);
    }
    await other.close();
  });
});

describe(`the deadline per provider (${backend})`, () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway({
      SANDBOX_SETTLE_MS: 'manual',
      MED_DEFENSE_DAYS: '4',
      PROVIDERS_FILE: providersFile([
        { id: 'psp-a', kind: 'simulated', medDefenseDays: 3 },
        { id: 'psp-b', kind: 'simulated' },
      ]),
    });
  });
  afterAll(() => gateway.close());

  it.each([
    ['psp-a', 3],
    ['psp-b', 4],
  ])('a charge received through %s gets a %d-day deadline', async (providerId, days) => {
    const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
    const only = [{ providerId, weight: 1 }];
    const everyone = [
      { providerId: 'psp-a', weight: 1 },
      { providerId: 'psp-b', weight: 1 },
    ];
    const put = await gateway.admin('PUT', '/admin/v1/routing', {
      charges: everyone,
      withdrawals: everyone,
      accounts: { [merchant.accountId]: { charges: only, withdrawals: only } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const transactionId = await paidCharge(gateway, merchant);
    expect((await gateway.admin('GET', `/admin/v1/transactions/${transactionId}`)).body.providerId).toBe(providerId);
    const opened = await openCase(gateway, merchant, transactionId);
    expect(opened.defenseDeadline).toBe(opened.openedAt + days * DAY);
  });
});
