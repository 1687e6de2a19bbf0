import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiPixInbound } from '../../src/provider/apipix/inbound.js';
import type { ProviderInbound } from '../../src/provider/provider.js';
import { balanceOf, createCharge, eventNames, eventually, fund, readTransaction } from '../helpers/api.js';
import { backend, NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { makePspCertificates } from '../psp/certificates.js';
import { CLIENT_ID, CLIENT_SECRET, startPspDouble, type PspDouble } from '../psp/double.js';

/**
 * Two API Pix PSPs at once (DESIGN.md §14) from a PROVIDERS_FILE, each a PSP double with its own
 * CA, certificates and pix key: routing rules choose where new charges and withdrawals go, every
 * later call about a transaction goes to the PSP it is bound to, and a PSP's notification or poller
 * never applies what the other PSP received. Every request, answer and notification of either PSP is
 * judged by Banco Central's OpenAPI (each double's `violations`), and the ledger holds after each test.
 */
const A = 'efi-a';
const B = 'efi-b';
const PIX_KEYS = { [A]: 'recebimentos-a@gateway.example', [B]: 'recebimentos-b@gateway.example' } as const;
const hex = (id: string) => id.replaceAll('-', '');

let folder: string;
const doubles: Record<string, PspDouble> = {};
/** Each provider's notification listener, as `listen()` answered it: `https://localhost:<port>/apipix/<id>`. */
const listeners: Record<string, string> = {};
let gateway: Gateway;
let merchant: Merchant;

const inboundOf = (providerId: string): ProviderInbound => {
  const inbound = gateway.services.providerInbound.find((candidate) => candidate.providerId === providerId);
  if (!inbound) throw new Error(`no inbound for ${providerId}`);
  return inbound;
};
/** Waits until the provider's listener has read back every PIX it was notified of (and applied what its PSP answered). */
async function readBack(providerId: string): Promise<void> {
  const inbound = inboundOf(providerId);
  if (!(inbound instanceof ApiPixInbound)) throw new Error(`${providerId} is not an API Pix provider`);
  await inbound.settled();
}

const providerOf = async (transactionId: string) => {
  const read = await gateway.admin('GET', `/admin/v1/transactions/${transactionId}`);
  expect(read.status).toBe(200);
  return read.body.providerId;
};
const statusOf = async (transactionId: string) => (await readTransaction(gateway, merchant, transactionId)).status;
/** The calls a PSP received that name this id (its txid, idEnvio or devolução id) anywhere in their path. */
const callsAbout = (providerId: string, id: string) => (doubles[providerId]?.calls ?? []).filter((call) => call.includes(hex(id)));
const double = (providerId: string): PspDouble => {
  const found = doubles[providerId];
  if (!found) throw new Error(`no double ${providerId}`);
  return found;
};

async function route(rules: { charges: string; withdrawals: string }): Promise<void> {
  const put = await gateway.admin('PUT', '/admin/v1/routing', {
    charges: [{ providerId: rules.charges, weight: 1 }],
    withdrawals: [{ providerId: rules.withdrawals, weight: 1 }],
    accounts: {},
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'two-psps-'));
  const entries = [];
  for (const id of [A, B] as const) {
    // Each PSP its own CA: neither trusts the other's certificates.
    const own = makePspCertificates(join(folder, id));
    doubles[id] = await startPspDouble(own, { pixKey: PIX_KEYS[id] });
    const secretFile = join(folder, `${id}.secret`);
    writeFileSync(secretFile, `${CLIENT_SECRET}\n`, { mode: 0o600 });
    entries.push({
      id,
      kind: 'apipix',
      baseUrl: double(id).baseUrl,
      tokenUrl: double(id).tokenUrl,
      clientId: CLIENT_ID,
      clientSecretFile: secretFile,
      certFile: own.gatewayClientCert,
      keyFile: own.gatewayClientKey,
      caFile: own.caCert,
      pixKey: PIX_KEYS[id],
      timeoutMs: 1000,
      webhookPort: 0,
      webhookCertFile: own.gatewayServerCert,
      webhookKeyFile: own.gatewayServerKey,
      webhookClientCaFile: own.caCert,
    });
  }
  const providersFile = join(folder, 'providers.json');
  writeFileSync(providersFile, JSON.stringify({ providers: entries }));
  gateway = await startGateway({ PROVIDERS_FILE: providersFile });
  expect(gateway.services.providerInbound.map((inbound) => inbound.providerId)).toEqual([A, B]);
  for (const id of [A, B]) {
    const url = await inboundOf(id).listen();
    if (!url) throw new Error(`no notification listener for ${id}`);
    listeners[id] = url;
    double(id).setWebhook(url);
  }
  merchant = await gateway.createMerchant({ ...NO_CHARGE_FEES, limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
}, 60_000);

afterEach(async () => {
  expect(double(A).violations.splice(0)).toEqual([]);
  expect(double(B).violations.splice(0)).toEqual([]);
  expect(await gateway.ledgerProblems()).toEqual([]);
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all(Object.values(doubles).map((each) => each.close()));
  rmSync(folder, { recursive: true, force: true });
});

describe(`two API Pix PSPs: configuration (${backend})`, () => {
  it('runs one listener per PSP, each on its own port at /apipix/<id>, and lists both providers', async () => {
    const urlA = new URL(listeners[A] ?? '');
    const urlB = new URL(listeners[B] ?? '');
    expect(urlA.pathname).toBe(`/apipix/${A}`);
    expect(urlB.pathname).toBe(`/apipix/${B}`);
    expect(urlA.port).not.toBe(urlB.port);
    const providers = await gateway.admin('GET', '/admin/v1/providers');
    expect(providers.body.providers.map((provider: { id: string; kind: string }) => [provider.id, provider.kind])).toEqual([
      [A, 'apipix'],
      [B, 'apipix'],
    ]);
  });
});

describe(`two API Pix PSPs: charges follow the routing rules and stay bound (${backend})`, () => {
  it('registers a charge at the routed PSP only, credits its payment from that PSP, and keeps old charges at the PSP that issued them after the rules change', async () => {
    await route({ charges: A, withdrawals: A });
    const before = await balanceOf(gateway, merchant);
    const paidAtA = await createCharge(gateway, merchant);
    const pendingAtA = await createCharge(gateway, merchant);
    const laterPaidAtA = await createCharge(gateway, merchant);
    for (const id of [paidAtA, pendingAtA, laterPaidAtA]) {
      expect(await providerOf(id)).toBe(A);
      expect(double(A).cob(hex(id))).toMatchObject({ status: 'ATIVA', valor: '10.00', chave: PIX_KEYS[A] });
      expect(double(B).cob(hex(id))).toBeUndefined();
      expect(callsAbout(B, id)).toEqual([]);
    }
    // The merchant's view never names the provider.
    expect(await readTransaction(gateway, merchant, paidAtA)).not.toHaveProperty('providerId');

    const endToEndId = await double(A).pay(hex(paidAtA));
    await eventually(async () => expect(await statusOf(paidAtA)).toBe('paid'));
    expect(await readTransaction(gateway, merchant, paidAtA)).toMatchObject({ endToEndId });
    expect(double(A).calls).toContain(`GET /api/v2/pix/${endToEndId}`);
    expect(double(B).calls.filter((call) => call.includes(endToEndId))).toEqual([]);

    // The rules now send charges to B: new charges go there, nothing new reaches A.
    await route({ charges: B, withdrawals: A });
    const atB = await createCharge(gateway, merchant);
    expect(await providerOf(atB)).toBe(B);
    expect(double(B).cob(hex(atB))).toMatchObject({ status: 'ATIVA', chave: PIX_KEYS[B] });
    expect(double(A).cob(hex(atB))).toBeUndefined();
    expect(callsAbout(A, atB)).toEqual([]);
    await double(B).pay(hex(atB));
    await eventually(async () => expect(await statusOf(atB)).toBe('paid'));

    // A charge issued at A is still paid at A.
    await double(A).pay(hex(laterPaidAtA));
    await eventually(async () => expect(await statusOf(laterPaidAtA)).toBe('paid'));
    expect(callsAbout(B, laterPaidAtA)).toEqual([]);

    // ... cancelled at A: the PATCH reaches A only.
    const cancelled = await gateway.call('POST', `/v1/pix/${pendingAtA}/cancel`, { key: merchant.apiKey });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect(double(A).cob(hex(pendingAtA))?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(callsAbout(A, pendingAtA)).toContain(`PATCH /api/v2/cob/${hex(pendingAtA)}`);
    expect(callsAbout(B, pendingAtA)).toEqual([]);
    expect(double(B).calls.some((call) => call.startsWith('PATCH '))).toBe(false);

    // ... and refunded at A: the devolução is asked of A and settled by A's notification.
    const refund = await gateway.call('POST', `/v1/transactions/${paidAtA}/refunds`, { key: merchant.apiKey, body: { amountCents: 400 } });
    expect(refund).toMatchObject({ status: 201, body: { status: 'processing', amountCents: 400 } });
    const refundId = refund.body.refundId;
    expect(double(A).pix(endToEndId)?.devolucoes).toMatchObject([{ id: hex(refundId), natureza: 'ORIGINAL', valor: '4.00' }]);
    expect(callsAbout(A, refundId)).toContain(`PUT /api/v2/pix/${endToEndId}/devolucao/${hex(refundId)}`);
    expect(callsAbout(B, refundId)).toEqual([]);
    await double(A).settleRefund(endToEndId, hex(refundId), 'DEVOLVIDO');
    await eventually(async () => expect(await readTransaction(gateway, merchant, paidAtA)).toMatchObject({ status: 'partially_refunded', refundedCents: 400 }));
    expect(await balanceOf(gateway, merchant)).toBe(before + 3 * 1000 - 400);
  });
});

describe(`two API Pix PSPs: a notification reaches only its own provider (${backend})`, () => {
  it("B's listener serves only B's path: A's path (and the single provider's /apipix/pix) is a 404, and A's PSP certificate is refused there", async () => {
    await route({ charges: A, withdrawals: A });
    const transactionId = await createCharge(gateway, merchant);
    const endToEndId = await double(A).pay(hex(transactionId), { notify: 'none' });
    const body = { pix: [{ endToEndId }] };
    const portOfB = new URL(listeners[B] ?? '').port;
    try {
      // B's PSP (its certificate is one B's listener trusts) posting to B's port on A's path.
      double(B).setWebhook(`https://localhost:${portOfB}/apipix/${A}`);
      expect(await double(B).notifyRaw(body)).toBe(404);
      double(B).setWebhook(`https://localhost:${portOfB}/apipix`);
      expect(await double(B).notifyRaw(body)).toBe(404);
      // A's PSP posting to B's listener: A's CA is not B's, the handshake fails.
      double(A).setWebhook(listeners[B] ?? '');
      await expect(double(A).notifyRaw(body)).rejects.toThrow();
    } finally {
      double(A).setWebhook(listeners[A] ?? '');
      double(B).setWebhook(listeners[B] ?? '');
    }
    await readBack(A);
    await readBack(B);
    expect(double(A).calls).not.toContain(`GET /api/v2/pix/${endToEndId}`);
    expect(double(B).calls).not.toContain(`GET /api/v2/pix/${endToEndId}`);
    expect(await statusOf(transactionId)).toBe('pending');
    // A's own notification on A's path credits it.
    expect(await double(A).notifyRaw(body)).toBe(200);
    await eventually(async () => expect(await statusOf(transactionId)).toBe('paid'));
  });

  it("a notification of A's PIX on B's own path is answered 200 and changes nothing: B reads it back from its PSP, which does not know it; B's poller does not find it either; A's notification credits it", async () => {
    await route({ charges: A, withdrawals: A });
    const before = await balanceOf(gateway, merchant);
    const transactionId = await createCharge(gateway, merchant);
    const endToEndId = await double(A).pay(hex(transactionId), { notify: 'none' });
    const pix = double(A).pix(endToEndId);
    // Well-formed, as A's PSP would have sent it.
    const body = { pix: [{ endToEndId, txid: pix?.txid, valor: pix?.valor, chave: pix?.chave, horario: pix?.horario }] };

    expect(await double(B).notifyRaw(body)).toBe(200);
    await eventually(() => expect(double(B).calls).toContain(`GET /api/v2/pix/${endToEndId}`));
    await readBack(B);
    expect(double(A).calls).not.toContain(`GET /api/v2/pix/${endToEndId}`);
    expect(await statusOf(transactionId)).toBe('pending');
    expect(await balanceOf(gateway, merchant)).toBe(before);

    const listsOfB = double(B).calls.filter((call) => call === 'GET /api/v2/pix').length;
    expect(await inboundOf(B).poll()).toBe(0);
    expect(double(B).calls.filter((call) => call === 'GET /api/v2/pix').length).toBe(listsOfB + 1);
    expect(await statusOf(transactionId)).toBe('pending');
    expect(await balanceOf(gateway, merchant)).toBe(before);

    expect(await double(A).notifyRaw(body)).toBe(200);
    await eventually(async () => expect(await statusOf(transactionId)).toBe('paid'));
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ endToEndId });
    expect(await balanceOf(gateway, merchant)).toBe(before + 1000);
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.paid']);
  });

  it("a PIX that B's PSP did receive for a charge bound to A (the orphan cob of a failover, paid) is never credited: B returns it to its payer, once, and the operator is told", async () => {
    // Charges go to B first; B takes the cob but never answers in time, so the charge fails over to A.
    const put = await gateway.admin('PUT', '/admin/v1/routing', {
      charges: [
        { providerId: B, weight: 1e12 },
        { providerId: A, weight: 1e-12 },
      ],
      withdrawals: [{ providerId: A, weight: 1 }],
      accounts: {},
    });
    expect(put.status).toBe(200);
    const before = await balanceOf(gateway, merchant);
    double(B).slowNext(3, 1300);
    const transactionId = await createCharge(gateway, merchant);
    expect(await providerOf(transactionId)).toBe(A);
    expect(double(A).cob(hex(transactionId))?.status).toBe('ATIVA');
    await eventually(() => expect(double(B).cob(hex(transactionId))?.status).toBe('ATIVA'));

    // The orphan at B is paid after all (its BR Code was never shown: a payer who had it anyway).
    const paidAtB = await double(B).pay(hex(transactionId));
    await eventually(() => expect(double(B).calls).toContain(`GET /api/v2/pix/${paidAtB}`));
    await readBack(B);
    expect(await statusOf(transactionId)).toBe('pending');
    expect(await inboundOf(B).poll()).toBe(0);
    expect(await statusOf(transactionId)).toBe('pending');
    expect(await balanceOf(gateway, merchant)).toBe(before);
    // Returned in full through B (devolução ORIGINAL), once however often B reports it; the merchant's balance never moves.
    const refunds = await gateway.call('GET', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey });
    expect(refunds.body.refunds).toHaveLength(1);
    const returned = refunds.body.refunds[0]!;
    expect(returned).toMatchObject({ amountCents: 1000 });
    expect(double(B).pix(paidAtB)?.devolucoes).toMatchObject([{ id: hex(returned.refundId), natureza: 'ORIGINAL', valor: '10.00' }]);
    expect(callsAbout(A, returned.refundId)).toEqual([]);
    const alerts = (await gateway.admin('GET', `/admin/v1/alerts?accountId=${merchant.accountId}`)).body.alerts;
    expect(alerts.filter((alert: { kind: string }) => alert.kind === 'payment_to_orphan_charge')).toMatchObject([
      { transactionId, details: { providerId: B, boundTo: A, endToEndId: paidAtB, amountCents: 1000 } },
    ]);

    // Paid at A, the PSP it is bound to: credited.
    const paidAtA = await double(A).pay(hex(transactionId));
    await eventually(async () => expect(await statusOf(transactionId)).toBe('paid'));
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ endToEndId: paidAtA });
    expect(await balanceOf(gateway, merchant)).toBe(before + 1000);
    // B's report of its own PIX, read again, still changes nothing.
    await inboundOf(B).poll();
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid', endToEndId: paidAtA });
    expect(await balanceOf(gateway, merchant)).toBe(before + 1000);
  }, 30_000);
});

describe(`two API Pix PSPs: withdrawals (${backend})`, () => {
  const reconcile = async () => {
    gateway.clock.advance(61_000);
    await gateway.services.withdrawals.reconcile();
  };

  it('sends a withdrawal to the PSP of the withdrawal rules only and asks that PSP for its outcome, even after the rules change', async () => {
    await route({ charges: A, withdrawals: A });
    await fund(gateway, merchant, 10_000);
    const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(created).toMatchObject({ status: 201, body: { status: 'processing' } });
    const id = created.body.transactionId;
    expect(await providerOf(id)).toBe(A);
    expect(double(A).send(hex(id))).toMatchObject({ valor: '10.00', status: 'EM_PROCESSAMENTO' });
    expect(callsAbout(A, id)).toEqual([`PUT /api/v2/gn/pix/${hex(id)}`]);
    expect(double(B).send(hex(id))).toBeUndefined();
    expect(callsAbout(B, id)).toEqual([]);

    // Withdrawals now go to B; the one A sent is still asked about at A.
    await route({ charges: A, withdrawals: B });
    double(A).settleSend(hex(id), 'REALIZADO');
    await reconcile();
    expect(callsAbout(A, id)).toContain(`GET /api/v2/gn/pix/enviados/id-envio/${hex(id)}`);
    expect(callsAbout(B, id)).toEqual([]);
    expect(await readTransaction(gateway, merchant, id)).toMatchObject({ status: 'paid', endToEndId: double(A).send(hex(id))?.e2eId });

    const beforeAtB = await balanceOf(gateway, merchant);
    const atB = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder() });
    expect(atB).toMatchObject({ status: 201, body: { status: 'processing' } });
    const idAtB = atB.body.transactionId;
    expect(await providerOf(idAtB)).toBe(B);
    expect(callsAbout(B, idAtB)).toEqual([`PUT /api/v2/gn/pix/${hex(idAtB)}`]);
    expect(callsAbout(A, idAtB)).toEqual([]);
    expect(await balanceOf(gateway, merchant)).toBeLessThan(beforeAtB);
    double(B).settleSend(hex(idAtB), 'NAO_REALIZADO');
    await reconcile();
    expect(callsAbout(B, idAtB)).toContain(`GET /api/v2/gn/pix/enviados/id-envio/${hex(idAtB)}`);
    expect(callsAbout(A, idAtB)).toEqual([]);
    expect(await statusOf(idAtB)).toBe('failed');
    expect(await balanceOf(gateway, merchant)).toBe(beforeAtB);
  });
});
