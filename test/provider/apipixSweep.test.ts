import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { derivedId } from '../../src/platform/ids.js';
import { ApiPixInbound } from '../../src/provider/apipix/inbound.js';
import { balanceOf, eventNames, readTransaction } from '../helpers/api.js';
import { backend, type Gateway, type Merchant } from '../helpers/gateway.js';
import type { PspDouble } from '../psp/double.js';
import { startRecurrenceGateway } from '../psp/recurrenceGateway.js';

/**
 * Pix Automático through the API Pix adapter with the PSP's rec and cobr callbacks lost: the
 * poller's sweep (`GET /rec`, `GET /cobr`, by creation date from the oldest open one here) finds
 * what they would have told. Every request and answer is judged by Banco Central's OpenAPI.
 */
const hex = (id: string) => id.replaceAll('-', '');

let double: PspDouble;
let gateway: Gateway;
let merchant: Merchant;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ double, gateway, merchant, close } = await startRecurrenceGateway('sweep'));
  double.loseRecurrenceCallbacks(true);
}, 30_000);

afterEach(async () => {
  expect(double.violations.splice(0)).toEqual([]);
  expect(await gateway.ledgerProblems()).toEqual([]);
});

afterAll(() => close());

/** Moves the gateway's clock (and the double's) to noon of a day in Brazil, years ahead. */
const setDay = (day: string) => gateway.clock.advance(new Date(`${day}T12:00:00-03:00`).getTime() - gateway.clock.now().getTime());
const CPF = '52998224725';
const body = (overrides: Record<string, unknown> = {}) => ({
  contract: 'CONTRATO-2031-001',
  debtor: { name: 'Maria Pagadora', document: { number: CPF, type: 'cpf' }, account: { ispb: '87654321', branch: '0001', number: '998877' } },
  object: 'Assinatura academia',
  frequency: 'weekly',
  amountCents: 5_000,
  startDate: '2031-03-15',
  retryPolicy: 'three_in_seven_days',
  ...overrides,
});
const create = (overrides: Record<string, unknown> = {}) => gateway.call('POST', '/v1/recurrences', { key: merchant.apiKey, body: body(overrides) });
const read = async (id: string) => (await gateway.call('GET', `/v1/recurrences/${id}`, { key: merchant.apiKey })).body;
const cycles = async () => {
  let moved = 0;
  while ((await gateway.services.recurrences.createDueCycles()) > 0) moved++;
  return moved;
};
/** The worker's poll of the provider (its sweep included): how many reports it applied. */
const inbound = () => {
  const found = gateway.services.providerInbound[0];
  if (!(found instanceof ApiPixInbound)) throw new Error('no API Pix inbound');
  return found;
};
const poll = () => inbound().poll();
const sweeps = () => double.calls.filter((call) => call === 'GET /api/v2/rec' || call === 'GET /api/v2/cobr');

describe(`API Pix adapter: the sweep of recurrences and cycle charges (${backend})`, () => {
  it('nothing open here: the sweep asks the PSP nothing', async () => {
    setDay('2031-02-01');
    const before = sweeps().length;
    expect(await poll()).toBe(0);
    expect(sweeps().length).toBe(before);
  });

  it("the payer's approval, then the payer's cancellation, callbacks lost: each picked up by the next sweep; a sweep with nothing changed is a no-op", async () => {
    setDay('2031-03-03');
    const created = await create();
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, providerRecurrenceId } = created.body;
    const idRec = providerRecurrenceId!;
    await double.answerRec(idRec, 'APROVADA');
    expect((await read(id)).status).toBe('awaiting_authorization');

    expect(await poll()).toBe(1);
    expect((await read(id)).status).toBe('authorized');
    expect(sweeps().at(-1)).toBe('GET /api/v2/rec');
    // Nothing changed: nothing applied, no event.
    const events = await eventNames(gateway, id);
    expect(await poll()).toBe(0);
    expect(await eventNames(gateway, id)).toEqual(events);

    setDay('2031-03-05');
    expect(await cycles()).toBe(1);
    const transactionId = derivedId(id, 'cycle-1');
    await double.payerCancelRec(idRec);
    expect((await read(id)).status).toBe('authorized');
    expect(await poll()).toBeGreaterThanOrEqual(1);
    expect(await read(id)).toMatchObject({ status: 'cancelled', cancelledBy: 'payer', nextCycleDate: null });
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'cancelled' });
    expect(double.calls.filter((call) => call.startsWith('PATCH'))).toEqual([]);
    expect(await poll()).toBe(0);
  });

  it('a cobr paid at the PSP, its callback lost: credited once by the sweep; another sweep and the late callback change nothing', async () => {
    setDay('2031-04-01');
    const created = await create({ startDate: '2031-04-10', retryPolicy: 'none', frequency: 'monthly' });
    const { id, providerRecurrenceId } = created.body;
    const idRec = providerRecurrenceId!;
    await double.answerRec(idRec, 'APROVADA');
    expect(await poll()).toBe(1);
    expect(await cycles()).toBe(1);
    const transactionId = derivedId(id, 'cycle-1');
    const txid = hex(transactionId);
    const before = await balanceOf(gateway, merchant);

    setDay('2031-04-10');
    const endToEndId = await double.debitCobr(txid, 'paid');
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'pending' });
    expect(await poll()).toBe(1);
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid', endToEndId });
    expect(await balanceOf(gateway, merchant)).toBe(before + 5_000);

    expect(await poll()).toBe(0);
    double.loseRecurrenceCallbacks(false);
    try {
      await double.notifyCobrOf(txid);
      await inbound().settled();
      expect(double.calls).toContain(`GET /api/v2/cobr/${txid}`);
    } finally {
      double.loseRecurrenceCallbacks(true);
    }
    expect(await balanceOf(gateway, merchant)).toBe(before + 5_000);
    expect((await eventNames(gateway, transactionId)).filter((name) => name === 'transaction.paid')).toHaveLength(1);
  });
});
