import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixGateway, PixGatewayDisputeOpenError, PixGatewayError, VERSION, type CreatedWithdrawal, type Transaction } from '../../packages/sdk/src/index.js';
import { addDays, nextBusinessDay } from '../../src/pix/bankingDays.js';
import { dayOf } from '../../src/platform/saoPauloDay.js';
import { fund, reviewRecipient } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { RELAXED_WITHDRAWALS, clientFor, customer, recordingFetch } from './helpers.js';

// Every call of @pix-gateway/sdk (DESIGN.md §18, docs/sdk.md) against a real gateway: what each
// resolves with is what the gateway answered, typed by the OpenAPI document.

let gateway: Gateway;
let merchant: Merchant;
let pix: PixGateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
  merchant = await gateway.createMerchant({ ...RELAXED_WITHDRAWALS, fees: { pixIn: { fixedCents: 0, bps: 0, minCents: 0, maxCents: 0 } } });
  pix = clientFor(gateway, merchant);
});
afterAll(() => gateway.close());

/** A charge created and paid through the SDK. */
async function paidCharge(amountCents = 1000): Promise<string> {
  const { transactionId } = await pix.charges.create({ amountCents, customer: customer() });
  await pix.sandbox.payCharge(transactionId);
  return transactionId;
}

describe('the client', () => {
  it('sends the API key, a JSON body, a User-Agent and an X-Request-Id of its own', async () => {
    const recorder = recordingFetch();
    await clientFor(gateway, merchant, { fetch: recorder.fetch }).balance.get();
    const [sent] = recorder.sent;
    expect(sent).toMatchObject({ method: 'GET', url: `${gateway.url}/v1/balance` });
    expect(sent?.headers).toMatchObject({ authorization: `Bearer ${merchant.apiKey}`, accept: 'application/json' });
    expect(sent?.headers['user-agent']).toBe(`pix-gateway-sdk/${VERSION} node/${process.versions.node}`);
    expect(sent?.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a base URL path prefix and drops trailing slashes', async () => {
    const recorder = recordingFetch();
    await new PixGateway({ apiKey: merchant.apiKey, baseUrl: `${gateway.url}/`, fetch: recorder.fetch }).balance.get();
    expect(recorder.sent[0]?.url).toBe(`${gateway.url}/v1/balance`);
    const prefixed = recordingFetch();
    await new PixGateway({ apiKey: merchant.apiKey, baseUrl: `${gateway.url}/gw//`, fetch: prefixed.fetch, maxRetries: 0 }).balance
      .get()
      .catch(() => undefined);
    expect(prefixed.sent[0]?.url).toBe(`${gateway.url}/gw/v1/balance`);
  });
});

describe('charges', () => {
  it('create: 201 with the BR Code; an externalRef is generated when none is given, and sent again answers 200 idempotent', async () => {
    const recorder = recordingFetch();
    const client = clientFor(gateway, merchant, { fetch: recorder.fetch });
    const created = await client.charges.create({ amountCents: 1500, customer: customer() });
    expect(created).toMatchObject({ status: 'pending', amountCents: 1500, pixPayload: expect.stringMatching(/^000201/) });
    const generated = recorder.sent[0]?.body.externalRef;
    expect(generated).toMatch(/^charge_[0-9a-z]+[A-Za-z0-9_-]{22}$/);
    expect((await client.transactions.get(created.transactionId)).externalRef).toBe(generated);

    const again = await client.charges.create({ amountCents: 1500, customer: customer(), externalRef: generated });
    expect(again).toMatchObject({ transactionId: created.transactionId, idempotent: true });
    expect(recorder.sent.at(-1)?.body.externalRef).toBe(generated);
  });

  it('cancel: the charge, cancelled', async () => {
    const { transactionId } = await pix.charges.create({ amountCents: 1000, customer: customer() });
    const cancelled = await pix.charges.cancel(transactionId);
    expect(cancelled).toMatchObject({ transactionId, status: 'cancelled' });
  });

  it('qrCode: PNG bytes that decode to the pixPayload, or SVG text', async () => {
    const created = await pix.charges.create({ amountCents: 1000, customer: customer() });
    const png = await pix.charges.qrCode(created.transactionId, { size: 300 });
    expect(png).toBeInstanceOf(Uint8Array);
    const image = PNG.sync.read(Buffer.from(png));
    expect(image.width).toBe(300);
    expect(jsqr.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data).toBe(created.pixPayload);
    const svg = await pix.charges.qrCode(created.transactionId, { format: 'svg' });
    expect(svg).toMatch(/^<\?xml|^<svg/);
    expect(svg).toContain('</svg>');
  });
});

describe('charges with a due date and static QR codes', () => {
  const dueDate = () => dayOf(new Date(gateway.clock.now().getTime() + 10 * 86_400_000));
  const dueBody = (externalRef?: string) => ({
    amountCents: 10_000,
    customer: { name: 'Maria Pagadora', document: { number: '52998224725', type: 'cpf' } },
    dueDate: dueDate(),
    fine: { percent: 2 },
    ...(externalRef ? { externalRef } : {}),
  });

  it('dueCharges.create, createBatch and amount', async () => {
    const created = await pix.dueCharges.create(dueBody());
    expect(created).toMatchObject({ status: 'pending', amountCents: 10_000, dueDate: dueDate() });
    const amount = await pix.dueCharges.amount(created.transactionId);
    expect(amount).toMatchObject({ transactionId: created.transactionId, payable: true, originalCents: 10_000, amountDueCents: 10_000 });
    // Late: the first business day after the due date (a weekend after a Friday due date is not late).
    const lateDay = nextBusinessDay(addDays(nextBusinessDay(dueDate()), 1));
    const late = await pix.dueCharges.amount(created.transactionId, { date: lateDay });
    expect(late.fineCents).toBe(200);

    const batch = await pix.dueCharges.createBatch([dueBody('lote-1'), { ...dueBody('lote-2'), amountCents: 5 }]);
    expect(batch).toMatchObject({ created: 1, failed: 1 });
    expect(batch.results.map((result) => result.status)).toEqual([201, 400]);
  });

  it('staticQrCodes: create, list, get, qrCode, paid through the sandbox, deactivate', async () => {
    const code = await pix.staticQrCodes.create({ amountCents: 700, description: 'Caixa 1' });
    expect(code).toMatchObject({ amountCents: 700, active: true, pixPayload: expect.stringMatching(/^000201/) });
    expect((await pix.staticQrCodes.list()).codes.map((listed) => listed.id)).toContain(code.id);
    expect(await pix.staticQrCodes.get(code.id)).toEqual(code);
    const png = PNG.sync.read(Buffer.from(await pix.staticQrCodes.qrCode(code.id)));
    expect(jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(code.pixPayload);
    expect(await pix.staticQrCodes.qrCode(code.id, { format: 'svg' })).toContain('<svg');

    const payment = await pix.sandbox.payStaticQrCode(code.id);
    expect(payment).toMatchObject({ type: 'pix_in', status: 'paid', amountCents: 700, staticQrId: code.id });
    expect(await pix.staticQrCodes.deactivate(code.id)).toMatchObject({ id: code.id, active: false });
  });
});

describe('transactions', () => {
  it('get; list with filters (one page, and iterated); export as text and as a stream', async () => {
    const first = await pix.charges.create({ amountCents: 1111, customer: customer(), externalRef: 'lista-1' });
    const since = new Date(gateway.clock.now().getTime() - 1);
    const paidId = await paidCharge(2222);

    const read: Transaction = await pix.transactions.get(first.transactionId);
    expect(read).toMatchObject({ transactionId: first.transactionId, type: 'pix_in', status: 'pending', externalRef: 'lista-1' });

    const page = await pix.transactions.list({ externalRef: 'lista-1' }).page();
    expect(page).toMatchObject({ count: 1, hasMore: false });
    expect(page.transactions[0]?.transactionId).toBe(first.transactionId);
    const paid = [];
    for await (const tx of pix.transactions.list({ status: 'paid', createdFrom: since, type: 'pix_in' })) paid.push(tx.transactionId);
    expect(paid).toEqual([paidId]);

    const csv = await pix.transactions.export({ format: 'csv', createdFrom: since, createdTo: gateway.clock.now().getTime() + 1000 });
    expect(csv.split('\r\n')[0]).toContain('transactionId');
    expect(csv).toContain(paidId);
    const stream = await pix.transactions.exportStream({ format: 'ofx', createdFrom: since, createdTo: new Date(gateway.clock.now().getTime() + 1000) });
    const ofx = await new Response(stream).text();
    expect(ofx).toContain('<OFX>');
  });

  it('statements.get: a closed day', async () => {
    const own = await startGateway();
    try {
      const account = await own.createMerchant();
      const day = dayOf(own.clock.now());
      own.clock.advance(86_400_000 + 20 * 60_000);
      await own.services.history.closeDays();
      const statement = await clientFor(own, account).statements.get(day);
      expect(statement).toMatchObject({ accountId: account.accountId, date: day, currency: 'BRL', openingBalanceCents: 0 });
    } finally {
      await own.close();
    }
  });
});

describe('withdrawals, recipients and balance', () => {
  it('withdrawals.create: 201, 200 for its externalRef again, and the 202 failed_unknown resolves', async () => {
    const payer = await gateway.createMerchant(RELAXED_WITHDRAWALS);
    await fund(gateway, payer, 10_000);
    const client = clientFor(gateway, payer);
    const body = { amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf' as const, externalRef: 'saque-1' };
    const created: CreatedWithdrawal = await client.withdrawals.create(body);
    if (!('totalDeducted' in created)) throw new Error('not started');
    expect(created).toMatchObject({ status: 'processing', amountCents: 1000, totalDeducted: 1000 + created.feeCents });
    expect(await client.withdrawals.create(body)).toMatchObject({ transactionId: created.transactionId, idempotent: true });

    await client.sandbox.failNextWithdrawal('unknown');
    const unknown = await client.withdrawals.create({ amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf' });
    expect(unknown).toEqual({
      error: 'Saque em verificação. Saldo debitado; status final em até 24h.',
      transactionId: expect.any(String),
      status: 'failed_unknown',
    });

    const settled = await client.sandbox.settleWithdrawal(created.transactionId, { outcome: 'paid' });
    expect(settled).toMatchObject({ transactionId: created.transactionId, status: 'paid' });
  });

  it('recipients.create (201, then 200) and list after approval; balance.get', async () => {
    const body = { legalName: 'Fornecedor Ltda', document: '390.533.447-05', documentType: 'cpf' as const, pixKey: '39053344705', pixKeyType: 'cpf' as const };
    const registered = await pix.recipients.create(body);
    expect(registered).toMatchObject({ status: 'pending_review', recipientId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(await pix.recipients.create(body)).toMatchObject({ recipientId: registered.recipientId });
    expect((await pix.recipients.list()).count).toBe(0);
    expect((await reviewRecipient(gateway, merchant, registered.recipientId, 'approve', { label: 'Fornecedor' })).status).toBe(200);
    const list = await pix.recipients.list();
    expect(list).toMatchObject({ count: 1, hasMore: false });
    expect(list.recipients[0]).toMatchObject({ recipientId: registered.recipientId, label: 'Fornecedor', documentType: 'cpf' });

    const balance = await pix.balance.get();
    expect(balance).toMatchObject({ currency: 'BRL', pending: 0, available: expect.any(Number), withdrawable: expect.any(Number) });
  });
});

describe('refunds and MED cases', () => {
  it('refunds.create and list, settled through the sandbox', async () => {
    const transactionId = await paidCharge(1000);
    const refund = await pix.refunds.create(transactionId, { amountCents: 300, reason: 'troca' });
    expect(refund).toMatchObject({ transactionId, kind: 'merchant', amountCents: 300, status: 'processing' });
    expect(await pix.sandbox.settleRefund(refund.refundId, { outcome: 'refunded' })).toMatchObject({ refundId: refund.refundId, status: 'refunded' });
    const remainder = await pix.refunds.create(transactionId);
    expect(remainder.amountCents).toBe(700);
    const list = await pix.refunds.list(transactionId);
    expect(list).toMatchObject({ count: 2, hasMore: false });
    expect(list.refunds.map((listed) => listed.refundId).sort()).toEqual([refund.refundId, remainder.refundId].sort());
  });

  it('infractions.list, get and defend; opened and closed through the sandbox', async () => {
    const transactionId = await paidCharge(1000);
    const opened = await pix.sandbox.openInfraction(transactionId, { reason: 'fraud', amountCents: 400 });
    expect(opened).toMatchObject({ transactionId, status: 'open', amountCents: 400 });
    const list = await pix.infractions.list({ status: 'open', limit: 10 });
    expect(list.infractions.map((infraction) => infraction.infractionId)).toContain(opened.infractionId);
    expect(await pix.infractions.get(opened.infractionId)).toEqual(opened);
    const defended = await pix.infractions.defend(opened.infractionId, { text: 'Pedido entregue; nota fiscal 1001.' });
    expect(defended).toMatchObject({ status: 'in_defense', defense: 'Pedido entregue; nota fiscal 1001.' });
    expect(await pix.sandbox.closeInfraction(opened.infractionId, { outcome: 'rejected' })).toMatchObject({ status: 'rejected' });
  });

  it('MED 2.0: several partial cases with their recovery fields, refunds refused with a typed error while one runs, a partial recovery', async () => {
    const transactionId = await paidCharge(1000);
    const first = await pix.sandbox.openInfraction(transactionId, { reason: 'fraud', amountCents: 300, recoveryId: 'REC-9', hop: 3, situation: 'coercion' });
    expect(first).toMatchObject({ recoveryId: 'REC-9', hop: 3, situation: 'coercion', recoveredCents: null });
    const second = await pix.sandbox.openInfraction(transactionId, { reason: 'fraud', amountCents: 200 });
    const refused = await pix.refunds.create(transactionId, { amountCents: 100 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PixGatewayDisputeOpenError);
    expect(refused).toBeInstanceOf(PixGatewayError);
    expect(refused).toMatchObject({ status: 422, message: 'Devolução indisponível: há uma disputa MED aberta para esta cobrança.', retryable: false });
    expect(await pix.sandbox.closeInfraction(first.infractionId, { outcome: 'accepted', recoveredCents: 120 })).toMatchObject({ recoveredCents: 120 });
    expect(await pix.sandbox.closeInfraction(second.infractionId, { outcome: 'rejected' })).toMatchObject({ status: 'rejected' });
    expect(await pix.refunds.create(transactionId)).toMatchObject({ amountCents: 880 });
    expect(await pix.balance.get()).toMatchObject({ owed: 0, shortfall: 0 });
  });

  it('a charge paid held (cautionary block), released, and another returned through the sandbox', async () => {
    const released = await pix.charges.create({ amountCents: 1000, customer: customer() });
    const held = await pix.sandbox.payCharge(released.transactionId, { held: true });
    expect(held).toMatchObject({ status: 'paid', held: true, heldUntil: (held.paidAt ?? 0) + 72 * 3_600_000 });
    expect(await pix.sandbox.releaseHeldCharge(released.transactionId)).toMatchObject({ status: 'paid', held: false });
    const returned = await pix.charges.create({ amountCents: 1000, customer: customer() });
    await pix.sandbox.payCharge(returned.transactionId, { held: true });
    expect(await pix.sandbox.returnHeldCharge(returned.transactionId)).toMatchObject({ status: 'refunded', held: false, refundedCents: 1000 });
    expect((await pix.refunds.list(returned.transactionId)).refunds).toMatchObject([{ kind: 'cautionary_return', status: 'refunded' }]);
  });
});

describe('the sandbox', () => {
  it('expires, fails and late-pays charges; arms provider faults; registers DICT keys', async () => {
    const toExpire = await pix.charges.create({ amountCents: 1000, customer: customer() });
    expect(await pix.sandbox.expireCharge(toExpire.transactionId)).toMatchObject({ status: 'expired' });
    const late = await pix.sandbox.payChargeLate(toExpire.transactionId);
    expect(late).toMatchObject({ transactionId: toExpire.transactionId, kind: 'returned_payment', amountCents: 1000 });
    const toFail = await pix.charges.create({ amountCents: 1000, customer: customer() });
    expect(await pix.sandbox.failCharge(toFail.transactionId)).toMatchObject({ status: 'failed' });

    expect(await pix.sandbox.failNextCharge()).toEqual({ armed: true, outcome: 'provider_error' });
    await expect(pix.charges.create({ amountCents: 1000, customer: customer() }, { maxRetries: 0 })).rejects.toMatchObject({ status: 502 });
    expect(await pix.sandbox.failNextRefund()).toEqual({ armed: true, outcome: 'provider_error' });
    const paidId = await paidCharge(1000);
    await expect(pix.refunds.create(paidId)).rejects.toMatchObject({ status: 502, message: 'Erro ao processar devolução. O valor não foi debitado.' });

    const owner = {
      name: 'Beto Recebedor',
      document: '39053344705',
      documentType: 'cpf' as const,
      bankAccount: { ispb: '00000000', branch: '0001', account: '12345-6' },
    };
    expect(await pix.sandbox.registerDictKey({ key: 'beto@example.com', keyType: 'email', owner })).toMatchObject({
      key: 'beto@example.com',
      keyType: 'email',
    });
  });
});
