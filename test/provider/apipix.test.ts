import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { parseBrCodeFields } from '../../src/pix/brcode.js';
import { dayAfter, dayOf } from '../../src/platform/saoPauloDay.js';
import { balanceOf, createCharge, eventNames, eventually, fund, readTransaction, registerRecipient, reviewRecipient } from '../helpers/api.js';
import { backend, chargeBody, NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { makePspCertificates, type PspCertificates } from '../psp/certificates.js';
import { CLIENT_ID, CLIENT_SECRET, DEFAULT_PAYER, startPspDouble, type PspDouble } from '../psp/double.js';

/**
 * The API Pix adapter (DESIGN.md §12) through the gateway's own HTTP API, against the PSP double:
 * every request the adapter makes and every answer and notification it gets is judged by Banco
 * Central's OpenAPI (the double's `violations`), and the ledger holds after each scenario.
 */
const PIX_KEY = 'recebimentos@gateway.example';
const RECIPIENT_CPF = '39053344705';
const hex = (id: string) => id.replaceAll('-', '');

let certificates: PspCertificates;
let double: PspDouble;
let gateway: Gateway;
let merchant: Merchant;
let certificateDir: string;

beforeAll(async () => {
  certificateDir = mkdtempSync(join(tmpdir(), 'psp-'));
  certificates = makePspCertificates(certificateDir);
  double = await startPspDouble(certificates, { pixKey: PIX_KEY });
  gateway = await startGateway({
    PIX_PROVIDER: 'apipix',
    PSP_BASE_URL: double.baseUrl,
    PSP_TOKEN_URL: double.tokenUrl,
    PSP_CLIENT_ID: CLIENT_ID,
    PSP_CLIENT_SECRET: CLIENT_SECRET,
    PSP_CERT_FILE: certificates.gatewayClientCert,
    PSP_KEY_FILE: certificates.gatewayClientKey,
    PSP_CA_FILE: certificates.caCert,
    PSP_PIX_KEY: PIX_KEY,
    PSP_TIMEOUT_MS: '1000',
    PSP_WEBHOOK_PORT: '0',
    PSP_WEBHOOK_CERT_FILE: certificates.gatewayServerCert,
    PSP_WEBHOOK_KEY_FILE: certificates.gatewayServerKey,
    PSP_WEBHOOK_CLIENT_CA_FILE: certificates.caCert,
  });
  const listening = await gateway.services.providerInbound[0]?.listen();
  if (!listening) throw new Error('no notification listener');
  double.setWebhook(listening);
  merchant = await gateway.createMerchant({ ...NO_CHARGE_FEES, limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
}, 30_000);

afterEach(async () => {
  expect(double.violations.splice(0)).toEqual([]);
  expect(await gateway.ledgerProblems()).toEqual([]);
});

afterAll(async () => {
  await gateway?.close();
  await double?.close();
  rmSync(certificateDir, { recursive: true, force: true });
});

const poll = () => gateway.services.providerInbound[0]?.poll() ?? Promise.resolve(0);
const refundsOf = async (transactionId: string) =>
  (await gateway.call('GET', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey })).body.refunds as Record<string, unknown>[];

/** A charge paid at the PSP and applied from its notification; answers the charge's id and the PIX's end-to-end id. */
async function paidAtPsp(): Promise<{ transactionId: string; endToEndId: string }> {
  const transactionId = await createCharge(gateway, merchant);
  const endToEndId = await double.pay(hex(transactionId));
  await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
  return { transactionId, endToEndId };
}

describe(`API Pix adapter: charges (${backend})`, () => {
  it('registers the charge at the PSP under the transactionId as txid and answers its checked BR Code, with one cached token', async () => {
    const tokensBefore = double.tokensIssued();
    const created = await gateway.call('POST', '/v1/pix', {
      key: merchant.apiKey,
      body: { amountCents: 2590, customer: { name: 'Ana', email: 'ana@example.com', phone: '11987654321', document: { number: '52998224725', type: 'cpf' } } },
    });
    expect(created.status).toBe(201);
    const cob = double.cob(hex(created.body.transactionId));
    expect(cob).toMatchObject({ status: 'ATIVA', valor: '25.90', chave: PIX_KEY });
    expect(cob?.expiracao).toBeGreaterThan(2 * 86400 - 60);
    expect(created.body.pixPayload).toContain(cob?.location);
    expect(created.body.pixPayload).toMatch(/^000201.*6304[0-9A-F]{4}$/);
    const tokensAfterFirst = double.tokensIssued();
    expect(tokensAfterFirst - tokensBefore).toBeLessThanOrEqual(1);
    await createCharge(gateway, merchant);
    await createCharge(gateway, merchant);
    // The token lasts an hour at the double: kept, not asked for again.
    expect(double.tokensIssued()).toBe(tokensAfterFirst);
  });

  it('asks for a new token once when the PSP no longer accepts the one it gave', async () => {
    await createCharge(gateway, merchant);
    const before = double.tokensIssued();
    double.revokeTokens();
    await createCharge(gateway, merchant);
    expect(double.tokensIssued()).toBe(before + 1);
  });

  it('refuses a BR Code of the PSP that does not check (CRC, location), with nothing recorded', async () => {
    for (const how of ['crc', 'location'] as const) {
      const listed = (await gateway.call('GET', '/v1/transactions?type=pix_in&limit=100', { key: merchant.apiKey })).body.count;
      double.tamperNextBrCode(how);
      const refused = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
      expect(refused).toMatchObject({ status: 502, body: { error: messages.providerChargeFailed } });
      expect((await gateway.call('GET', '/v1/transactions?type=pix_in&limit=100', { key: merchant.apiKey })).body.count).toBe(listed);
    }
  });

  it('answers 502 with nothing recorded when the PSP stays unavailable, and succeeds on a retry within the call', async () => {
    double.failNext(3);
    const refused = await gateway.call('POST', '/v1/pix', {
      key: merchant.apiKey,
      body: { amountCents: 1000, customer: { name: 'Ana', email: 'ana@example.com', phone: '11987654321', document: { number: '52998224725', type: 'cpf' } } },
    });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.providerChargeFailed } });
    double.failNext(1);
    const transactionId = await createCharge(gateway, merchant);
    expect(double.cob(hex(transactionId))?.status).toBe('ATIVA');
  });

  it('cancels at the PSP (REMOVIDA_PELO_USUARIO_RECEBEDOR) before the charge shows cancelled', async () => {
    const transactionId = await createCharge(gateway, merchant);
    const cancelled = await gateway.call('POST', `/v1/pix/${transactionId}/cancel`, { key: merchant.apiKey });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect(double.cob(hex(transactionId))?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
  });

  it('keeps the charge pending and answers 502 when the PSP cannot remove it', async () => {
    const transactionId = await createCharge(gateway, merchant);
    double.failNext(3);
    const refused = await gateway.call('POST', `/v1/pix/${transactionId}/cancel`, { key: merchant.apiKey });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.providerCancelFailed } });
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
    expect(double.cob(hex(transactionId))?.status).toBe('ATIVA');
  });

  it('fails a charge the PSP removed (REMOVIDA_PELO_PSP), found by the poller', async () => {
    const transactionId = await createCharge(gateway, merchant);
    double.removeCharge(hex(transactionId));
    await poll();
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('failed');
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.failed']);
  });

  it('has no sandbox with a real provider', async () => {
    const transactionId = await createCharge(gateway, merchant);
    const sandbox = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
    expect(sandbox.status).toBe(404);
  });
});

describe(`API Pix adapter: received PIX (${backend})`, () => {
  it('credits a PIX read back from the PSP after its notification, with the payer of the PSP extension', async () => {
    const before = await balanceOf(gateway, merchant);
    const { transactionId, endToEndId } = await paidAtPsp();
    const charge = await readTransaction(gateway, merchant, transactionId);
    expect(charge).toMatchObject({
      status: 'paid',
      endToEndId,
      payer: { name: DEFAULT_PAYER.nome, document: DEFAULT_PAYER.cpf, documentType: 'cpf', bankAccount: { ispb: DEFAULT_PAYER.codigoBanco } },
    });
    expect(await balanceOf(gateway, merchant)).toBe(before + 1000);
    expect(double.calls).toContain(`GET /api/v2/pix/${endToEndId}`);
  });

  it('applies a PIX once whatever is repeated: a duplicate notification and the poller reading it again', async () => {
    const before = await balanceOf(gateway, merchant);
    const transactionId = await createCharge(gateway, merchant);
    await double.pay(hex(transactionId), { notify: 'twice' });
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
    await poll();
    await poll();
    expect(await balanceOf(gateway, merchant)).toBe(before + 1000);
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.paid']);
  });

  it('applies a batch of PIX sent in one late notification, in any order', async () => {
    const first = await createCharge(gateway, merchant);
    const second = await createCharge(gateway, merchant);
    await double.pay(hex(second), { notify: 'batched' });
    await double.pay(hex(first), { notify: 'late' });
    expect((await readTransaction(gateway, merchant, first)).status).toBe('pending');
    await double.flush();
    await eventually(async () => {
      expect((await readTransaction(gateway, merchant, first)).status).toBe('paid');
      expect((await readTransaction(gateway, merchant, second)).status).toBe('paid');
    });
  });

  it('applies a PIX once when the PSP notifies it many times at once', async () => {
    const before = await balanceOf(gateway, merchant);
    const transactionId = await createCharge(gateway, merchant);
    const endToEndId = await double.pay(hex(transactionId), { notify: 'none' });
    const statuses = await Promise.all(Array.from({ length: 8 }, () => double.notifyRaw({ pix: [{ endToEndId }] })));
    expect(statuses).toEqual(Array.from({ length: 8 }, () => 200));
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
    await gateway.services.providerInbound[0]?.poll();
    expect(await balanceOf(gateway, merchant)).toBe(before + 1000);
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.paid']);
  });

  it('returns a PIX of another amount than the charge, which stays pending', async () => {
    const transactionId = await createCharge(gateway, merchant);
    const before = await balanceOf(gateway, merchant);
    await double.pay(hex(transactionId), { amountCents: 700 });
    await eventually(async () => expect(await refundsOf(transactionId)).toMatchObject([{ amountCents: 700, status: 'processing' }]));
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it('finds a PIX whose notification never came with the poller', async () => {
    const transactionId = await createCharge(gateway, merchant);
    await double.pay(hex(transactionId), { notify: 'none' });
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
    expect(await poll()).toBeGreaterThanOrEqual(1);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid');
  });

  it('never believes a notification: a PIX the PSP does not know changes nothing', async () => {
    const transactionId = await createCharge(gateway, merchant);
    const forged = { pix: [{ endToEndId: 'E12345678202611240000forgedpix01', txid: hex(transactionId), valor: '10.00', horario: new Date().toISOString() }] };
    expect(await double.notifyRaw(forged)).toBe(200);
    await eventually(async () => expect(double.calls).toContain('GET /api/v2/pix/E12345678202611240000forgedpix01'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
  });

  it('refuses a notification without a certificate of the PSP, and a body that is not one', async () => {
    await expect(double.notifyRaw({ pix: [] }, { stranger: true })).rejects.toThrow();
    expect(await double.notifyRaw({ notPix: true })).toBe(400);
  });

  it('returns a PIX that arrives for a charge no longer pending, never crediting it', async () => {
    const before = await balanceOf(gateway, merchant);
    const transactionId = await createCharge(gateway, merchant);
    expect((await gateway.call('POST', `/v1/pix/${transactionId}/cancel`, { key: merchant.apiKey })).status).toBe(200);
    const endToEndId = await double.pay(hex(transactionId)); // the payer's app raced the removal
    await eventually(async () => expect(await refundsOf(transactionId)).toHaveLength(1));
    const [returned] = await refundsOf(transactionId);
    expect(returned).toMatchObject({ amountCents: 1000, status: 'processing' });
    expect(double.pix(endToEndId)?.devolucoes).toMatchObject([{ id: hex(String(returned?.refundId)), natureza: 'ORIGINAL', valor: '10.00' }]);
    await double.settleRefund(endToEndId, hex(String(returned?.refundId)), 'DEVOLVIDO');
    await eventually(async () => expect((await refundsOf(transactionId))[0]).toMatchObject({ status: 'refunded' }));
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('cancelled');
    expect(await balanceOf(gateway, merchant)).toBe(before);
    // Reported again: still one return.
    await poll();
    expect(await refundsOf(transactionId)).toHaveLength(1);
  });
});

describe(`API Pix adapter: refunds and MED (${backend})`, () => {
  it('sends a refund as a devolução ORIGINAL and settles it from the notification', async () => {
    const { transactionId, endToEndId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    const created = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: { amountCents: 400 } });
    expect(created).toMatchObject({ status: 201, body: { status: 'processing', amountCents: 400 } });
    const id = hex(created.body.refundId);
    expect(double.pix(endToEndId)?.devolucoes).toMatchObject([{ id, natureza: 'ORIGINAL', valor: '4.00', status: 'EM_PROCESSAMENTO' }]);
    await double.settleRefund(endToEndId, id, 'DEVOLVIDO');
    const rtrId = double.pix(endToEndId)?.devolucoes[0]?.rtrId;
    await eventually(async () => expect((await refundsOf(transactionId))[0]).toMatchObject({ status: 'refunded', refundEndToEndId: rtrId }));
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'partially_refunded', refundedCents: 400 });
    expect(await balanceOf(gateway, merchant)).toBe(before - 400);
  });

  it('gives the money back when the PSP could not return it (NAO_REALIZADO)', async () => {
    const { transactionId, endToEndId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    const created = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: {} });
    expect(created.status).toBe(201);
    await double.settleRefund(endToEndId, hex(created.body.refundId), 'NAO_REALIZADO');
    await eventually(async () => expect((await refundsOf(transactionId))[0]).toMatchObject({ status: 'failed' }));
    expect(await balanceOf(gateway, merchant)).toBe(before);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid');
  });

  it('answers 502 with nothing debited when the PSP refuses the devolução', async () => {
    const { transactionId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    double.failNext(3);
    const refused = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: { amountCents: 100 } });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.refundProviderFailed } });
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it('takes a MED devolução the PSP made on its own as the chargeback of a case, once', async () => {
    const { transactionId, endToEndId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    const rtrId = await double.injectMed(endToEndId, 600, 'MED_FRAUDE', 'twice');
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('partially_refunded'));
    await poll();
    const infractions = (await gateway.call('GET', '/v1/infractions', { key: merchant.apiKey })).body.infractions as Record<string, unknown>[];
    expect(infractions.filter((infraction) => infraction.transactionId === transactionId)).toMatchObject([
      { status: 'accepted', reason: 'fraud', amountCents: 600 },
    ]);
    expect(await refundsOf(transactionId)).toMatchObject([{ amountCents: 600, status: 'refunded', refundEndToEndId: rtrId }]);
    expect(await balanceOf(gateway, merchant)).toBe(before - 600);
    expect(await eventNames(gateway, transactionId)).toEqual([
      'transaction.paid',
      'transaction.infraction',
      'transaction.blocked',
      'transaction.chargeback',
      'transaction.partially_refunded',
    ]);
  });
  it('with several cases running, each MED devolução settles its own case once; one we were never told of opens and settles a case', async () => {
    const { transactionId, endToEndId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    const open = async (amountCents: number) => {
      const reply = await gateway.admin('POST', `/admin/v1/transactions/${transactionId}/infractions`, {
        reason: 'fraud',
        amountCents,
        hop: 2,
        recoveryId: 'REC-1',
      });
      expect(reply.status).toBe(201);
      return reply.body.infractionId;
    };
    const small = await open(300);
    const large = await open(500);
    const caseOf = async (infractionId: string) => (await gateway.call('GET', `/v1/infractions/${infractionId}`, { key: merchant.apiKey })).body;

    // The return of exactly the larger case's amount settles that case, not the older one; reported twice, applied once.
    const first = await double.injectMed(endToEndId, 500, 'MED_OPERACIONAL', 'twice');
    await eventually(async () => expect(await caseOf(large)).toMatchObject({ status: 'accepted', recoveredCents: 500 }));
    await poll();
    expect(await caseOf(small)).toMatchObject({ status: 'open', recoveredCents: null });

    // A Pix Automático MED return of 200: no case of exactly 200, so the one that covers it, recovered in part.
    const second = await double.injectMed(endToEndId, 200, 'MED_PIX_AUTOMATICO');
    await eventually(async () => expect(await caseOf(small)).toMatchObject({ status: 'accepted', recoveredCents: 200 }));

    // No case left running: a return of 100 opens a case of 100 and settles it; polled again, nothing more.
    const third = await double.injectMed(endToEndId, 100, 'MED_FRAUDE', 'twice');
    await eventually(async () => expect(await refundsOf(transactionId)).toHaveLength(3));
    await poll();
    const cases = (await gateway.call('GET', '/v1/infractions?limit=100', { key: merchant.apiKey })).body.infractions.filter(
      (infraction) => infraction.transactionId === transactionId,
    );
    expect(cases.map(({ amountCents, status, recoveredCents }) => ({ amountCents, status, recoveredCents }))).toEqual([
      { amountCents: 100, status: 'accepted', recoveredCents: 100 },
      { amountCents: 500, status: 'accepted', recoveredCents: 500 },
      { amountCents: 300, status: 'accepted', recoveredCents: 200 },
    ]);
    expect((await refundsOf(transactionId)).map(({ amountCents, refundEndToEndId }) => ({ amountCents, refundEndToEndId }))).toEqual([
      { amountCents: 100, refundEndToEndId: third },
      { amountCents: 200, refundEndToEndId: second },
      { amountCents: 500, refundEndToEndId: first },
    ]);
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'partially_refunded', refundedCents: 800 });
    expect(await balanceOf(gateway, merchant)).toBe(before - 800);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe(`API Pix adapter: withdrawals through Efí's cash-out (${backend})`, () => {
  const settleAndReconcile = async (transactionId: string, outcome: 'REALIZADO' | 'NAO_REALIZADO') => {
    double.settleSend(hex(transactionId), outcome);
    gateway.clock.advance(61_000);
    await gateway.services.withdrawals.reconcile();
  };

  it('sends to the key with the holder document and applies the PSP outcome: paid with its end-to-end id', async () => {
    await fund(gateway, merchant, 10_000);
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created).toMatchObject({ status: 201, body: { status: 'processing' } });
    const sent = double.send(hex(created.body.transactionId));
    expect(sent).toMatchObject({ valor: '10.00', status: 'EM_PROCESSAMENTO' });
    await settleAndReconcile(created.body.transactionId, 'REALIZADO');
    expect(await readTransaction(gateway, merchant, created.body.transactionId)).toMatchObject({
      status: 'paid',
      endToEndId: sent?.e2eId,
      beneficiary: { name: 'Titular CPF', document: '52998224725', documentType: 'cpf' },
    });
  });

  it('fails a withdrawal the PSP did not make (NAO_REALIZADO): the debit comes back', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created.status).toBe(201);
    await settleAndReconcile(created.body.transactionId, 'NAO_REALIZADO');
    expect((await readTransaction(gateway, merchant, created.body.transactionId)).status).toBe('failed');
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it('fails at once when the key belongs to someone else (chave_nao_pertence_ao_documento)', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    const recipient = await registerRecipient(gateway, merchant, {
      legalName: 'Fornecedor',
      document: RECIPIENT_CPF,
      documentType: 'cpf',
      pixKey: RECIPIENT_CPF,
      pixKeyType: 'cpf',
    });
    expect((await reviewRecipient(gateway, merchant, recipient.body.recipientId, 'approve', { label: 'Fornecedor' })).status).toBe(200);
    // The phone key is someone else's: the PSP refuses to send to it under the recipient's document.
    double.registerKey('+5511912345678', { nome: 'Outra Pessoa', cpf: '11144477735' });
    const created = await gateway.call('POST', '/v1/withdraw', {
      key: merchant.apiKey,
      body: { amountCents: 1000, pixKey: '+5511912345678', pixKeyType: 'phone', recipientId: recipient.body.recipientId },
    });
    expect(created).toMatchObject({ status: 201, body: { status: 'failed' } });
    expect(await eventNames(gateway, created.body.transactionId)).toEqual(['transfer.created', 'transfer.processing', 'transfer.failed']);
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it('answers 502 with the debit rolled back when the PSP refuses the renewed token too (401 twice): refused, not unknown', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    const tokens = double.tokensIssued();
    double.unauthorizedNext(2);
    const refused = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.withdrawalProviderFailed } });
    expect(await balanceOf(gateway, merchant)).toBe(before);
    expect(double.tokensIssued()).toBe(tokens + 1);
  });

  it('answers 502 with the debit rolled back when the PSP is unavailable on every attempt', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    double.failNext(3);
    const refused = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.withdrawalProviderFailed } });
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it('answers 202 failed_unknown when the PSP does not answer in time, and reconciles it from the PSP', async () => {
    await fund(gateway, merchant, 10_000);
    double.slowNext(3, 1500);
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created).toMatchObject({ status: 202, body: { status: 'failed_unknown' } });
    await eventually(async () => expect(double.send(hex(created.body.transactionId))).toBeDefined());
    await settleAndReconcile(created.body.transactionId, 'REALIZADO');
    expect((await readTransaction(gateway, merchant, created.body.transactionId)).status).toBe('paid');
  }, 20_000);

  it('a retry refused after an attempt that timed out (and reached the PSP) is no proof of nothing sent: 202 failed_unknown, debited, and paid after all', async () => {
    await fund(gateway, merchant, 10_000);
    const puts = () => double.calls.filter((call) => call.startsWith('PUT /api/v2/gn/pix/')).length;
    const before = puts();
    double.slowNext(1, 1500);
    const sending = gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    // The first PUT is taken and answers too late; every later call, the retry included, is refused (401, then 401 on a new token).
    await eventually(() => expect(puts()).toBe(before + 1));
    double.unauthorizedNext(2);
    const created = await sending;
    expect(created).toMatchObject({ status: 202, body: { status: 'failed_unknown' } });
    await eventually(async () => expect(double.send(hex(created.body.transactionId))).toBeDefined());
    await settleAndReconcile(created.body.transactionId, 'REALIZADO');
    expect((await readTransaction(gateway, merchant, created.body.transactionId)).status).toBe('paid');
  }, 20_000);
});

describe(`API Pix adapter: unknown outcomes of sends (${backend})`, () => {
  /** The settling window of this gateway: PSP_SETTLING_WINDOW_MS's default (longer than twice a send's budget at PSP_TIMEOUT_MS=1000). */
  const WINDOW_MS = 300_000;
  const check = async (advanceMs: number) => {
    gateway.clock.advance(advanceMs);
    await gateway.services.withdrawals.reconcile();
    await gateway.services.refunds.reconcile();
  };
  const statusOf = async (id: string) => (await readTransaction(gateway, merchant, id)).status;
  /** What a withdrawal took from the balance: its amount and fee. */
  const debitOf = async (id: string) => {
    const withdrawal = await readTransaction(gateway, merchant, id);
    return withdrawal.amountCents + withdrawal.feeCents;
  };
  const alertsOf = async (transactionId: string) =>
    ((await gateway.admin('GET', `/admin/v1/alerts?accountId=${merchant.accountId}`)).body.alerts as Record<string, unknown>[]).filter(
      (alert) => alert.transactionId === transactionId,
    );

  it('a withdrawal the PSP took without answering and completed seconds later is paid, never reversed: a 404 inside the settling window proves nothing', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    double.loseNextSendAnswer({ completes: 'after', ms: 6000 });
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created).toMatchObject({ status: 202, body: { status: 'failed_unknown' } });
    const id = created.body.transactionId;
    expect(double.attemptsOf(hex(id)).puts).toBe(3);
    await check(10_000);
    expect(double.attemptsOf(hex(id)).gets).toBe(1); // asked, and not found yet
    expect(await statusOf(id)).toBe('failed_unknown');
    const debit = await debitOf(id);
    expect(await balanceOf(gateway, merchant)).toBe(before - debit);
    await eventually(async () => expect(double.send(hex(id))?.status).toBe('REALIZADO'));
    await check(30_000);
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'paid', endToEndId: double.send(hex(id))?.e2eId });
    expect(await balanceOf(gateway, merchant)).toBe(before - debit);
    expect(await eventNames(gateway, id)).toEqual(['transfer.created', 'transfer.processing', 'transfer.paid']);
  }, 30_000);

  it('a withdrawal the PSP never received is failed once the settling window has passed since its last attempt, its debit back — not a second before', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    double.loseNextSendAnswer({ completes: 'never' });
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created.status).toBe(202);
    const id = created.body.transactionId;
    await check(10_000);
    // The test's clock also runs with real time (the attempts took seconds): 30 s short of the window, still not proof.
    await check(WINDOW_MS - 40_000);
    expect(double.attemptsOf(hex(id)).gets).toBe(2);
    expect(await statusOf(id)).toBe('failed_unknown');
    expect(await balanceOf(gateway, merchant)).toBe(before - (await debitOf(id)));
    await check(30_000);
    expect(await statusOf(id)).toBe('failed');
    expect(await balanceOf(gateway, merchant)).toBe(before);
    expect(await eventNames(gateway, id)).toEqual(['transfer.created', 'transfer.processing', 'transfer.failed']);
    expect(double.send(hex(id))).toBeUndefined();
  }, 30_000);

  it('a completion after the reversal is caught: the withdrawal is paid after all and debited again, and the operator is told', async () => {
    await fund(gateway, merchant, 10_000);
    const before = await balanceOf(gateway, merchant);
    // The PSP breaks its own processing limit: the send appears only after the query that proved it absent.
    double.loseNextSendAnswer({ completes: 'after_first_query' });
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    const id = created.body.transactionId;
    await check(WINDOW_MS);
    expect(await statusOf(id)).toBe('failed');
    expect(await balanceOf(gateway, merchant)).toBe(before);
    await eventually(async () => expect(double.send(hex(id))?.status).toBe('REALIZADO'));
    await check(10_000);
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'paid', endToEndId: double.send(hex(id))?.e2eId });
    expect(await balanceOf(gateway, merchant)).toBe(before - (await debitOf(id)));
    expect(await eventNames(gateway, id)).toEqual(['transfer.created', 'transfer.processing', 'transfer.failed', 'transfer.paid']);
    expect(await alertsOf(id)).toMatchObject([{ kind: 'withdrawal_paid_after_reversal', severity: 'normal', details: { debited: true } }]);
  }, 30_000);

  it('a late completion the balance cannot cover never takes it below zero: the amount is blocked, a high alert, the debit collected once money arrives', async () => {
    const poor = await gateway.createMerchant({
      fees: { ...NO_CHARGE_FEES.fees, withdrawal: { fixedCents: 0, bps: 0, minCents: 0, maxCents: 0 } },
      limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 },
    });
    await fund(gateway, poor, 1000);
    double.loseNextSendAnswer({ completes: 'after_first_query' });
    const created = await gateway.call('POST', '/v1/withdraw', { key: poor.apiKey, body: withdrawalToHolder({ amountCents: 1000 }) });
    const id = created.body.transactionId;
    await check(WINDOW_MS);
    expect((await readTransaction(gateway, poor, id)).status).toBe('failed');
    // The merchant withdraws the returned money again before the PSP's late completion shows.
    const again = await gateway.call('POST', '/v1/withdraw', { key: poor.apiKey, body: withdrawalToHolder({ amountCents: 1000 }) });
    expect(again).toMatchObject({ status: 201, body: { status: 'processing' } });
    await eventually(async () => expect(double.send(hex(id))?.status).toBe('REALIZADO'));
    await check(10_000);
    expect((await readTransaction(gateway, poor, id)).status).toBe('paid');
    const balance = (await gateway.call('GET', '/v1/balance', { key: poor.apiKey })).body;
    expect(balance).toMatchObject({ available: 0, blocked: 1000, withdrawable: -1000 });
    const alerts = ((await gateway.admin('GET', `/admin/v1/alerts?accountId=${poor.accountId}`)).body.alerts as Record<string, unknown>[]).filter(
      (alert) => alert.transactionId === id,
    );
    expect(alerts).toMatchObject([{ kind: 'withdrawal_paid_after_reversal', severity: 'high', details: { debited: false } }]);
    await check(60_000);
    expect((await gateway.call('GET', '/v1/balance', { key: poor.apiKey })).body).toMatchObject({ available: 0, blocked: 1000 }); // still uncovered
    await fund(gateway, poor, 1500);
    await check(60_000);
    expect((await gateway.call('GET', '/v1/balance', { key: poor.apiKey })).body).toMatchObject({ available: 500, blocked: 0, withdrawable: 500 });
  }, 30_000);

  it('a devolução the PSP took without answering stays processing through a 404 and is refunded when the PSP completes it', async () => {
    const { transactionId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    double.loseNextSendAnswer({ completes: 'after', ms: 6000 });
    const created = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: { amountCents: 300 } });
    expect(created).toMatchObject({ status: 201, body: { status: 'processing' } });
    const refundId = created.body.refundId;
    await check(10_000);
    expect(double.attemptsOf(hex(refundId))).toEqual({ puts: 3, gets: 1 });
    expect((await refundsOf(transactionId))[0]).toMatchObject({ status: 'processing' });
    await new Promise((resolve) => setTimeout(resolve, 2500)); // the PSP completes 6 s after the first attempt
    await check(30_000);
    expect((await refundsOf(transactionId))[0]).toMatchObject({ status: 'refunded' });
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'partially_refunded', refundedCents: 300 });
    expect(await balanceOf(gateway, merchant)).toBe(before - 300);
  }, 30_000);

  it('a devolução the PSP never received fails after the settling window, its money back; completed after that, it is refunded and debited again', async () => {
    const { transactionId } = await paidAtPsp();
    const before = await balanceOf(gateway, merchant);
    double.loseNextSendAnswer({ completes: 'after_first_query' });
    const created = await gateway.call('POST', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey, body: { amountCents: 400 } });
    const refundId = created.body.refundId;
    // Its first query comes after the window: not found, proof that the PSP never received it.
    await check(WINDOW_MS);
    expect((await refundsOf(transactionId))[0]).toMatchObject({ refundId, status: 'failed' });
    expect(await balanceOf(gateway, merchant)).toBe(before);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid');
    await new Promise((resolve) => setTimeout(resolve, 100)); // the PSP completes it right after that query
    await check(10_000);
    expect((await refundsOf(transactionId))[0]).toMatchObject({ refundId, status: 'refunded' });
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'partially_refunded', refundedCents: 400 });
    expect(await balanceOf(gateway, merchant)).toBe(before - 400);
    expect(await alertsOf(transactionId)).toMatchObject([{ kind: 'refund_completed_after_reversal', severity: 'normal' }]);
  }, 30_000);
});

describe(`API Pix adapter: static QR codes (${backend})`, () => {
  const createCode = async (body: Record<string, unknown>) => {
    const created = await gateway.call('POST', '/v1/pix/static', { key: merchant.apiKey, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; txid: string; pixPayload: string };
  };
  const paymentsOf = async (codeId: string) =>
    gateway.database.db.selectFrom('transactions').select(['id', 'amountCents', 'endToEndId', 'status']).where('staticQrId', '=', codeId).execute();

  it('carries the PSP key, and credits each PIX paid to it (read back after the notification) once, as a new paid pix_in', async () => {
    const code = await createCode({ description: 'Balcão' });
    expect(parseBrCodeFields(code.pixPayload).get('26')).toContain(PIX_KEY);
    const before = await balanceOf(gateway, merchant);
    const first = await double.payStatic(code.txid, { amountCents: 1_250 });
    const second = await double.payStatic(code.txid, { amountCents: 300, notify: 'twice' });
    await eventually(async () => expect(await paymentsOf(code.id)).toHaveLength(2));
    const payments = await paymentsOf(code.id);
    expect(payments.map((payment) => [payment.endToEndId, payment.amountCents, payment.status]).sort()).toEqual(
      [
        [first, 1_250, 'paid'],
        [second, 300, 'paid'],
      ].sort(),
    );
    // The poller reads them again: nothing is credited twice.
    await (gateway.services.providerInbound[0]?.poll() ?? Promise.resolve(0));
    expect(await paymentsOf(code.id)).toHaveLength(2);
    expect(await balanceOf(gateway, merchant)).toBe(before + 1_550);
    const firstId = payments.find((payment) => payment.endToEndId === first)?.id ?? '';
    expect(await eventNames(gateway, firstId)).toEqual(['transaction.paid']);
  });

  it('credits nothing for a PIX a code cannot take (deactivated, another amount than its fixed one), nor for an unknown txid', async () => {
    const fixed = await createCode({ amountCents: 2_000 });
    const gone = await createCode({});
    expect((await gateway.call('POST', `/v1/pix/static/${gone.id}/deactivate`, { key: merchant.apiKey })).status).toBe(200);
    const before = await balanceOf(gateway, merchant);
    await double.payStatic(fixed.txid, { amountCents: 1_999 });
    await double.payStatic(gone.txid, { amountCents: 500 });
    await double.payStatic('NINGUEM0000000000000000001', { amountCents: 700 });
    await (gateway.services.providerInbound[0]?.poll() ?? Promise.resolve(0));
    expect(await paymentsOf(fixed.id)).toEqual([]);
    expect(await paymentsOf(gone.id)).toEqual([]);
    expect(await balanceOf(gateway, merchant)).toBe(before);
    // Its own amount is taken.
    await double.payStatic(fixed.txid, { amountCents: 2_000 });
    await eventually(async () => expect(await paymentsOf(fixed.id)).toHaveLength(1));
  });
});

/**
 * Alphanumeric CNPJs (DESIGN.md §19) through API Pix: BCB's YAML takes `[0-9A-Z]{14}` wherever a
 * CNPJ is (PessoaJuridica, the query parameters), and the double judges every request by it; the
 * cash-out's favorecido and the PSP's payer extension take them too.
 */
describe(`API Pix adapter: alphanumeric CNPJs (${backend})`, () => {
  it('registers a due-date charge whose payer has one as devedor.cnpj (an immediate charge names no devedor)', async () => {
    const due = await gateway.call('POST', '/v1/pix/due', {
      key: merchant.apiKey,
      body: {
        amountCents: 10_000,
        customer: { name: 'Empresa Pagadora LTDA', document: { number: '00000000e08g12', type: 'cnpj' } },
        dueDate: dayAfter(dayOf(gateway.clock.now()), 10),
      },
    });
    expect(due.status, JSON.stringify(due.body)).toBe(201);
    expect(double.cobv(hex(due.body.transactionId))?.devedor).toMatchObject({ cnpj: '00000000E08G12', nome: 'Empresa Pagadora LTDA' });
  });

  it('credits a PIX whose payer the PSP reports with one', async () => {
    const transactionId = await createCharge(gateway, merchant);
    await double.pay(hex(transactionId), { payer: { nome: 'Empresa Pagadora LTDA', cnpj: 'AB1CD2EF000170', codigoBanco: '87654321' } });
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
    expect((await readTransaction(gateway, merchant, transactionId)).payer).toMatchObject({ document: 'AB1CD2EF000170', documentType: 'cnpj' });
  });

  it('sends a withdrawal to a recipient’s CNPJ key with favorecido.cnpj', async () => {
    await fund(gateway, merchant, 10_000);
    const registered = await registerRecipient(gateway, merchant, {
      legalName: 'Fornecedora Nova LTDA',
      document: '12abc34501de35',
      documentType: 'cnpj',
      pixKey: '12.ABC.345/01DE-35',
      pixKeyType: 'cnpj',
    });
    expect((await reviewRecipient(gateway, merchant, registered.body.recipientId, 'approve')).status).toBe(200);
    const created = await gateway.call('POST', '/v1/withdraw', {
      key: merchant.apiKey,
      body: { amountCents: 1_000, pixKey: '12ABC34501DE35', pixKeyType: 'cnpj', recipientId: registered.body.recipientId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The double took favorecido.cnpj by Efí's pattern and found it the key's holder's document.
    expect(double.send(hex(created.body.transactionId))).toMatchObject({ favorecido: { chave: '12ABC34501DE35', nome: 'Titular CNPJ' } });
  });
});
