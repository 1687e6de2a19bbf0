import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixGatewayError, type PixGateway } from '../../packages/sdk/src/index.js';
import { dayOf } from '../../src/platform/saoPauloDay.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';
import { clientFor, recordingFetch, type SentRequest } from './helpers.js';

// Pix Automático through the SDK (docs/recurrences.md): recurrences created, paged by their
// cursor, authorized, refused and cancelled by the payer through the sandbox, a cycle charged,
// debited and another cancelled.

let gateway: Gateway;
let pix: PixGateway;
let sent: SentRequest[];

beforeAll(async () => {
  gateway = await startGateway();
  const merchant = await gateway.createMerchant();
  const recorder = recordingFetch();
  pix = clientFor(gateway, merchant, { fetch: recorder.fetch });
  sent = recorder.sent;
});
afterAll(() => gateway.close());

const DAY = 86_400_000;
const inDays = (days: number) => dayOf(new Date(gateway.clock.now().getTime() + days * DAY));
const recurrence = (contract: string, overrides: Record<string, unknown> = {}) => ({
  contract,
  debtor: { name: 'Maria Pagadora', document: { number: '52998224725', type: 'cpf' as const } },
  object: 'Assinatura academia',
  frequency: 'monthly',
  amountCents: 9990,
  startDate: inDays(5),
  ...overrides,
});

describe('recurrences', () => {
  it('create (201, then 200 for its externalRef), list paged by the cursor, get', async () => {
    const created = await pix.recurrences.create(recurrence('C-1', { externalRef: 'academia-maria' }));
    expect(created).toMatchObject({
      status: 'awaiting_authorization',
      contract: 'C-1',
      frequency: 'monthly',
      amountCents: 9990,
      externalRef: 'academia-maria',
    });
    expect(await pix.recurrences.create(recurrence('C-1', { externalRef: 'academia-maria' }))).toMatchObject({ id: created.id, idempotent: true });
    for (const contract of ['C-2', 'C-3', 'C-4', 'C-5']) await pix.recurrences.create(recurrence(contract));

    const from = sent.length;
    const contracts: string[] = [];
    for await (const listed of pix.recurrences.list({ limit: 2 })) contracts.push(listed.contract);
    expect(contracts).toEqual(['C-5', 'C-4', 'C-3', 'C-2', 'C-1']);
    expect(sent.slice(from).map((request) => new URL(request.url).searchParams.get('limit'))).toEqual(['2', '2', '2']);
    expect(await pix.recurrences.list({ limit: 3 }).page()).toMatchObject({ hasMore: true });

    expect(await pix.recurrences.get(created.id)).toMatchObject({ id: created.id, status: 'awaiting_authorization', cycles: [] });
  });

  it('authorized by the payer: a cycle is charged, then debited; another is cancelled by the merchant', async () => {
    const paid = await pix.recurrences.create(recurrence('C-PAID'));
    expect(await pix.sandbox.authorizeRecurrence(paid.id)).toMatchObject({ id: paid.id, status: 'authorized' });
    const cancelled = await pix.recurrences.create(recurrence('C-CANCEL'));
    await pix.sandbox.authorizeRecurrence(cancelled.id);
    expect(await gateway.services.recurrences.createDueCycles()).toBeGreaterThanOrEqual(2);

    const [cycle] = (await pix.recurrences.get(paid.id)).cycles;
    expect(cycle).toMatchObject({ cycle: 1, dueDate: inDays(5), status: 'pending', amountCents: 9990 });
    expect(await pix.recurrences.cancelCycle(cancelled.id, 1)).toMatchObject({ status: 'cancelled' });
    expect(await pix.recurrences.cancel(cancelled.id)).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant' });

    await expect(pix.sandbox.debitRecurrenceCycle(paid.id, 1, { outcome: 'paid' })).rejects.toMatchObject({ status: 422 });
    gateway.clock.advance(5 * DAY);
    const debited = await pix.sandbox.debitRecurrenceCycle(paid.id, 1, { outcome: 'paid' });
    expect(debited).toMatchObject({ type: 'pix_in', status: 'paid', amountCents: 9990 });
    expect(await pix.transactions.get(debited.transactionId)).toMatchObject({ status: 'paid' });
  });

  it('debitNextRecurrenceCycle: the next cycle, a month ahead, charged and paid now; failed when asked', async () => {
    const monthly = await pix.recurrences.create(recurrence('C-NEXT', { startDate: inDays(30), retryPolicy: 'none' }));
    await pix.sandbox.authorizeRecurrence(monthly.id);
    expect(await pix.sandbox.debitNextRecurrenceCycle(monthly.id)).toMatchObject({ status: 'paid', recurrenceId: monthly.id, cycle: 1, amountCents: 9990 });
    expect(await pix.sandbox.debitNextRecurrenceCycle(monthly.id, { outcome: 'failed' })).toMatchObject({ status: 'failed', cycle: 2 });
    expect(sent.at(-1)).toMatchObject({ method: 'POST', url: `${gateway.url}/sandbox/v1/recurrences/${monthly.id}/cycles/next/debit` });
  });

  it("changeAmount: a variable recurrence's next cycles at the new amount; a fixed one's is refused with the API's message", async () => {
    const variable = await pix.recurrences.create(recurrence('C-VARIABLE', { maxAmountCents: 15_000 }));
    const changed = await pix.recurrences.changeAmount(variable.id, { amountCents: 12_000 });
    expect(changed).toMatchObject({ id: variable.id, amountCents: 12_000, maxAmountCents: 15_000, cycles: [] });
    expect(sent.at(-1)).toMatchObject({ method: 'PATCH' });
    const fixed = await pix.recurrences.create(recurrence('C-FIXED'));
    const refused = await pix.recurrences.changeAmount(fixed.id, { amountCents: 12_000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PixGatewayError);
    expect(refused).toMatchObject({
      status: 422,
      retryable: false,
      message: 'Recorrência de valor fixo: o valor dos ciclos é o que o pagador autorizou e não pode ser alterado.',
    });
  });

  it('refused, or cancelled by the payer; a second cancel is refused with the API’s message', async () => {
    const refused = await pix.recurrences.create(recurrence('C-REFUSE'));
    expect(await pix.sandbox.refuseRecurrence(refused.id)).toMatchObject({ status: 'refused' });
    const byPayer = await pix.recurrences.create(recurrence('C-PAYER'));
    await pix.sandbox.authorizeRecurrence(byPayer.id);
    expect(await pix.sandbox.cancelRecurrence(byPayer.id)).toMatchObject({ status: 'cancelled', cancelledBy: 'payer' });
    const again = await pix.recurrences.cancel(byPayer.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PixGatewayError);
    expect(again).toMatchObject({ status: 422, retryable: false });
  });

  it('a cycle cancelled by the payer through the sandbox', async () => {
    const created = await pix.recurrences.create(recurrence('C-PAYER-CYCLE'));
    await pix.sandbox.authorizeRecurrence(created.id);
    await gateway.services.recurrences.createDueCycles();
    expect(await pix.sandbox.cancelRecurrenceCycle(created.id, 1)).toMatchObject({ status: 'cancelled' });
  });
});
