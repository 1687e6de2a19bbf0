import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request as send } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiPixInbound } from '../../src/provider/apipix/inbound.js';
import { createCharge, eventually, fund, readTransaction } from '../helpers/api.js';
import { ADMIN_TOKEN, backend, NO_CHARGE_FEES, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { makePspCertificates, type PspCertificates } from '../psp/certificates.js';
import { CLIENT_ID, CLIENT_SECRET, startPspDouble, type PspDouble } from '../psp/double.js';

/**
 * Reconciliation per PSP (DESIGN.md §14) against an API Pix PSP from a PROVIDERS_FILE: the adapter
 * reads the PSP's own records (`GET /pix?inicio&fim` with their devoluções, Efí's `GET
 * /gn/pix/enviados?inicio&fim`, both paged) and the run compares them with the ledger. After
 * charges paid at the PSP, refunds, a payment returned, withdrawals paid, failed and still
 * processing, the two sides agree; once the PSP's records are tampered with, every kind of
 * difference is found with its amounts and is in the accountant's CSV. Every request the adapter
 * makes is judged by the double (`violations`), and the ledger holds after each test.
 */
const PROVIDER = 'efi';
const PIX_KEY = 'recebimentos@gateway.example';
const HOUR = 3_600_000;
const STARTING_BALANCE = 100_000_000;
/** Records of others the PSP lists before the gateway's: the adapter reads 100 a page, so the gateway's own are on page 2. */
const FOREIGN = 120;
const hex = (id: string) => id.replaceAll('-', '');
const reais = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

let folder: string;
let certificates: PspCertificates;
let double: PspDouble;
let gateway: Gateway;
let merchant: Merchant;

/** Calls the PSP as the gateway does (its client certificate, a token of its credentials): the double's Efí routes the gateway does not read yet. */
async function pspGet(path: string, query: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const agent = new Agent({
    connect: { cert: readFileSync(certificates.gatewayClientCert), key: readFileSync(certificates.gatewayClientKey), ca: readFileSync(certificates.caCert) },
  });
  try {
    const token = await send(double.tokenUrl, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const { access_token: accessToken } = (await token.body.json()) as { access_token: string };
    const answer = await send(`${double.baseUrl}${path}?${new URLSearchParams(query).toString()}`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> };
  } finally {
    await agent.close();
  }
}

const period = () => ({ from: gateway.clock.now().getTime() - HOUR, to: gateway.clock.now().getTime() + HOUR });
async function reconcile(body: Record<string, unknown>) {
  const answer = await gateway.admin('POST', '/admin/v1/reconciliation', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.runs as { runId: string; [field: string]: unknown }[];
}
type Difference = {
  kind: string;
  movement: string;
  reference: string;
  accountId: string | null;
  transactionId: string | null;
  ledgerCents: number | null;
  pspCents: number | null;
  ledgerStatus: string | null;
  pspStatus: string | null;
};
async function differencesOf(runId: string): Promise<Difference[]> {
  const detail = await gateway.admin('GET', `/admin/v1/reconciliation/${runId}`);
  expect(detail.status).toBe(200);
  return detail.body.differences;
}

const refundsOf = async (transactionId: string) =>
  (await gateway.call('GET', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey })).body.refunds as { refundId: string; status: string }[];

/** A charge of `amountCents` paid at the PSP and credited from its notification. */
async function paidAtPsp(amountCents: number): Promise<{ transactionId: string; endToEndId: string }> {
  const transactionId = await createCharge(gateway, merchant, { amountCents });
  const endToEndId = await double.pay(hex(transactionId));
  await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
  return { transactionId, endToEndId };
}

/** A refund asked of the PSP (a devolução) and settled by it as `outcome`. */
async function refundAtPsp(payment: { transactionId: string; endToEndId: string }, amountCents: number | undefined, outcome: 'DEVOLVIDO' | 'NAO_REALIZADO') {
  const created = await gateway.call('POST', `/v1/transactions/${payment.transactionId}/refunds`, {
    key: merchant.apiKey,
    body: amountCents === undefined ? {} : { amountCents },
  });
  expect(created).toMatchObject({ status: 201, body: { status: 'processing' } });
  const refundId = created.body.refundId;
  await double.settleRefund(payment.endToEndId, hex(refundId), outcome);
  const settled = outcome === 'DEVOLVIDO' ? 'refunded' : 'failed';
  await eventually(async () => expect((await refundsOf(payment.transactionId)).find((refund) => refund.refundId === refundId)?.status).toBe(settled));
  return refundId;
}

async function withdrawal(amountCents: number): Promise<string> {
  const created = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents }) });
  expect(created).toMatchObject({ status: 201, body: { status: 'processing' } });
  return created.body.transactionId;
}

/** What the gateway made at the PSP (beforeAll). */
const made = {} as {
  payments: { transactionId: string; endToEndId: string }[];
  /** A charge cancelled, then paid at the PSP: returned to its payer in full. */
  returned: { transactionId: string; endToEndId: string; refundId: string };
  refundSettled: string;
  refundFailed: string;
  withdrawalPaid: string;
  withdrawalFailed: string;
  withdrawalProcessing: string;
  otherWithdrawalPaid: string;
};

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'apipix-reconciliation-'));
  certificates = makePspCertificates(join(folder, 'certificates'));
  double = await startPspDouble(certificates, { pixKey: PIX_KEY, startingBalanceCents: STARTING_BALANCE });
  const secretFile = join(folder, `${PROVIDER}.secret`);
  writeFileSync(secretFile, `${CLIENT_SECRET}\n`, { mode: 0o600 });
  const providersFile = join(folder, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: [
        {
          id: PROVIDER,
          kind: 'apipix',
          baseUrl: double.baseUrl,
          tokenUrl: double.tokenUrl,
          clientId: CLIENT_ID,
          clientSecretFile: secretFile,
          certFile: certificates.gatewayClientCert,
          keyFile: certificates.gatewayClientKey,
          caFile: certificates.caCert,
          pixKey: PIX_KEY,
          timeoutMs: 1000,
          webhookPort: 0,
          webhookCertFile: certificates.gatewayServerCert,
          webhookKeyFile: certificates.gatewayServerKey,
          webhookClientCaFile: certificates.caCert,
        },
      ],
    }),
  );
  gateway = await startGateway({ PROVIDERS_FILE: providersFile });
  const inbound = gateway.services.providerInbound.find((candidate) => candidate.providerId === PROVIDER);
  if (!(inbound instanceof ApiPixInbound)) throw new Error(`no API Pix inbound for ${PROVIDER}`);
  const listening = await inbound.listen();
  if (!listening) throw new Error('no notification listener');
  double.setWebhook(listening);
  merchant = await gateway.createMerchant({ ...NO_CHARGE_FEES, limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
  await fund(gateway, merchant, 100_000);

  // Others' records first, so that the gateway's own are on each list's second page: the account's
  // sends made by other means (ids that are not the gateway's), and PIX received just before the
  // period (listed within the hour the run reads beyond it, not judged by it).
  const earlier = new Date(Date.now() - 90 * 60_000);
  for (let index = 0; index < FOREIGN; index++) {
    double.recordStraySend({ idEnvio: `ERP${String(index).padStart(6, '0')}`, amountCents: 100 });
    double.receiveStray({ amountCents: 100, at: earlier });
  }

  made.payments = [await paidAtPsp(1000), await paidAtPsp(1001), await paidAtPsp(1002)];
  const [first, second] = made.payments;
  if (!first || !second) throw new Error('payments missing');
  made.refundSettled = await refundAtPsp(first, 300, 'DEVOLVIDO');
  made.refundFailed = await refundAtPsp(second, undefined, 'NAO_REALIZADO');

  const cancelledId = await createCharge(gateway, merchant, { amountCents: 500 });
  expect((await gateway.call('POST', `/v1/pix/${cancelledId}/cancel`, { key: merchant.apiKey })).status).toBe(200);
  const returnedEndToEndId = await double.pay(hex(cancelledId));
  await eventually(async () => expect(await refundsOf(cancelledId)).toHaveLength(1));
  const [returnedRefund] = await refundsOf(cancelledId);
  if (!returnedRefund) throw new Error('no returned payment');
  await double.settleRefund(returnedEndToEndId, hex(returnedRefund.refundId), 'DEVOLVIDO');
  await eventually(async () => expect((await refundsOf(cancelledId))[0]?.status).toBe('refunded'));
  made.returned = { transactionId: cancelledId, endToEndId: returnedEndToEndId, refundId: returnedRefund.refundId };

  made.withdrawalPaid = await withdrawal(2000);
  made.withdrawalFailed = await withdrawal(2000);
  made.withdrawalProcessing = await withdrawal(1500);
  made.otherWithdrawalPaid = await withdrawal(1200);
  double.settleSend(hex(made.withdrawalPaid), 'REALIZADO');
  double.settleSend(hex(made.withdrawalFailed), 'NAO_REALIZADO');
  double.settleSend(hex(made.otherWithdrawalPaid), 'REALIZADO');
  gateway.clock.advance(61_000);
  await gateway.services.withdrawals.reconcile();
  for (const [id, status] of [
    [made.withdrawalPaid, 'paid'],
    [made.withdrawalFailed, 'failed'],
    [made.withdrawalProcessing, 'processing'],
    [made.otherWithdrawalPaid, 'paid'],
  ] as const) {
    expect((await readTransaction(gateway, merchant, id)).status).toBe(status);
  }
}, 60_000);

afterEach(async () => {
  expect(double.violations.splice(0)).toEqual([]);
  expect(await gateway.ledgerProblems()).toEqual([]);
});

afterAll(async () => {
  await gateway?.close();
  await double?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe(`API Pix reconciliation: the PSP double's Efí lists and balance (${backend})`, () => {
  it("lists the PIX sent in a period by their request time, paged as API Pix's GET /pix, and answers the balance the records make", async () => {
    const inicio = new Date(Date.now() - HOUR).toISOString();
    const fim = new Date(Date.now() + HOUR).toISOString();
    const sends = FOREIGN + 4;
    const secondPage = await pspGet('/gn/pix/enviados', { inicio, fim, 'paginacao.paginaAtual': '1', 'paginacao.itensPorPagina': '100' });
    expect(secondPage.status).toBe(200);
    expect(secondPage.body.parametros).toEqual({
      inicio,
      fim,
      paginacao: { paginaAtual: 1, itensPorPagina: 100, quantidadeDePaginas: 2, quantidadeTotalDeItens: sends },
    });
    const listed = secondPage.body.pix as Record<string, unknown>[];
    expect(listed).toHaveLength(sends - 100);
    const paid = double.send(hex(made.withdrawalPaid));
    expect(listed.find((item) => item.idEnvio === hex(made.withdrawalPaid))).toEqual({
      endToEndId: paid?.e2eId,
      idEnvio: hex(made.withdrawalPaid),
      valor: '20.00',
      chave: PIX_KEY,
      status: 'REALIZADO',
      horario: { solicitacao: paid?.solicitacao, liquidacao: paid?.liquidacao },
      favorecido: { chave: '52998224725', identificacao: { nome: 'Titular CPF', cpf: '***.456.789-**' } },
    });
    expect(listed.find((item) => item.idEnvio === hex(made.withdrawalProcessing))).toMatchObject({
      status: 'EM_PROCESSAMENTO',
      horario: { solicitacao: expect.any(String) },
    });
    expect(listed.find((item) => item.idEnvio === hex(made.withdrawalProcessing))).not.toHaveProperty('horario.liquidacao');
    // The same paging as API Pix's list of received PIX.
    const received = await pspGet('/pix', { inicio, fim, 'paginacao.paginaAtual': '0', 'paginacao.itensPorPagina': '2' });
    const sent = await pspGet('/gn/pix/enviados', { inicio, fim, 'paginacao.paginaAtual': '0', 'paginacao.itensPorPagina': '2' });
    expect(Object.keys((sent.body.parametros as Record<string, unknown>).paginacao as object)).toEqual(
      Object.keys((received.body.parametros as Record<string, unknown>).paginacao as object),
    );
    expect(sent.body.pix).toHaveLength(2);
    // A filter by status, and a period before any send.
    const failed = await pspGet('/gn/pix/enviados', { inicio, fim, status: 'NAO_REALIZADO' });
    expect((failed.body.pix as { idEnvio: string }[]).map((item) => item.idEnvio)).toEqual([hex(made.withdrawalFailed)]);
    const before = await pspGet('/gn/pix/enviados', {
      inicio: new Date(Date.now() - 3 * HOUR).toISOString(),
      fim: new Date(Date.now() - 2 * HOUR).toISOString(),
    });
    expect(before.body).toMatchObject({ parametros: { paginacao: { quantidadeDePaginas: 1, quantidadeTotalDeItens: 0 } }, pix: [] });

    // Received: the foreign PIX and the four payments; devolvido: 3.00 and the 5.00 returned; sent (REALIZADO): the foreign sends, 20.00 and 12.00.
    const expected = STARTING_BALANCE + FOREIGN * 100 + (1000 + 1001 + 1002 + 500) - (300 + 500) - (FOREIGN * 100 + 2000 + 1200);
    expect(double.balanceCents()).toBe(expected);
    expect(await pspGet('/gn/saldo')).toEqual({ status: 200, body: { saldo: reais(expected) } });
    expect((await pspGet('/gn/saldo', { bloqueios: 'true' })).body).toEqual({
      saldo: reais(expected),
      bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' },
    });

    // Efí's published parameters only: anything else is a violation (and a 400).
    expect((await pspGet('/gn/pix/enviados', { inicio })).status).toBe(400);
    expect((await pspGet('/gn/pix/enviados', { inicio: 'ontem', fim })).status).toBe(400);
    expect((await pspGet('/gn/saldo', { conta: '1' })).status).toBe(400);
    expect(double.violations.splice(0)).toEqual([
      'GET /gn/pix/enviados: fim required',
      'GET /gn/pix/enviados: inicio must be an RFC 3339 date-time',
      'GET /gn/saldo: unknown parameters conta',
    ]);
  });
});

describe(`API Pix reconciliation: the ledger against the PSP's records (${backend})`, () => {
  it("finds the PSP's records equal to the ledger: no difference, the same totals in and out on both sides, every page read", async () => {
    const listsBefore = double.calls.filter((call) => call === 'GET /api/v2/pix' || call === 'GET /api/v2/gn/pix/enviados').length;
    const runs = await reconcile(period());
    expect(runs).toHaveLength(1);
    const [run] = runs;
    // Payments 1000 + 1001 + 1002 and the 500 returned; out: the refund of 300, the 500 returned, withdrawals of 2000 and 1200.
    // Matched: 4 payments, 3 refunds (one failed on both sides), 3 withdrawals (one failed on both sides); the one processing on both sides is left to the checks.
    expect(run).toMatchObject({
      providerId: PROVIDER,
      status: 'done',
      error: null,
      differenceCount: 0,
      matched: 10,
      ledgerInCents: 3503,
      pspInCents: 3503,
      ledgerOutCents: 4000,
      pspOutCents: 4000,
    });
    expect(await differencesOf(run?.runId ?? '')).toEqual([]);
    // Two pages of each list.
    expect(double.calls.filter((call) => call === 'GET /api/v2/pix' || call === 'GET /api/v2/gn/pix/enviados').length - listsBefore).toBe(4);
    const alerts = await gateway.admin('GET', '/admin/v1/alerts');
    expect(alerts.body.alerts.filter((alert: { kind: string }) => alert.kind === 'reconciliation_differences')).toEqual([]);
    const metrics = await gateway.call('GET', '/metrics');
    expect(metrics.body).toContain(`pix_gateway_reconciliation_differences{provider="${PROVIDER}"} 0`);
  });

  it("finds every kind of difference once the PSP's records disagree, with its amounts, and puts each in the CSV", async () => {
    const [first, second, third] = made.payments;
    if (!first || !second || !third) throw new Error('payments missing');
    // Payments: one the PSP lost, one of another amount, one the ledger never saw.
    double.dropPix(third.endToEndId);
    double.alterPix(second.endToEndId, { valor: '10.11' });
    const stray = double.receiveStray({ amountCents: 777 });
    // Refunds: one of another amount, one the PSP did not make.
    double.alterDevolucao(first.endToEndId, hex(made.refundSettled), { valor: '2.50' });
    double.alterDevolucao(made.returned.endToEndId, hex(made.returned.refundId), { status: 'NAO_REALIZADO' });
    // Withdrawals: another amount, made though failed here, made though still processing here, lost, and one under an id of ours the ledger never used.
    double.alterSend(hex(made.withdrawalPaid), { valor: '19.99' });
    double.alterSend(hex(made.withdrawalFailed), { status: 'REALIZADO' });
    double.alterSend(hex(made.withdrawalProcessing), { status: 'REALIZADO' });
    double.dropSend(hex(made.otherWithdrawalPaid));
    const unknownId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    double.recordStraySend({ idEnvio: hex(unknownId), amountCents: 1234 });

    const window = period();
    const [run] = await reconcile({ ...window, providerId: PROVIDER });
    // Matched: the first payment, the payment returned, the failed refund.
    expect(run).toMatchObject({
      providerId: PROVIDER,
      status: 'done',
      differenceCount: 10,
      matched: 3,
      ledgerInCents: 3503,
      pspInCents: 1000 + 1011 + 500 + 777,
      ledgerOutCents: 4000,
      pspOutCents: 250 + 1999 + 2000 + 1500 + 1234,
    });
    const differences = await differencesOf(run?.runId ?? '');
    const account = merchant.accountId;
    const expected: Difference[] = [
      {
        kind: 'missing_at_psp',
        movement: 'payment',
        reference: third.endToEndId,
        accountId: account,
        transactionId: third.transactionId,
        ledgerCents: 1002,
        pspCents: null,
        ledgerStatus: 'settled',
        pspStatus: null,
      },
      {
        kind: 'amount',
        movement: 'payment',
        reference: second.endToEndId,
        accountId: account,
        transactionId: second.transactionId,
        ledgerCents: 1001,
        pspCents: 1011,
        ledgerStatus: 'settled',
        pspStatus: 'settled',
      },
      {
        kind: 'missing_in_ledger',
        movement: 'payment',
        reference: stray,
        accountId: null,
        transactionId: null,
        ledgerCents: null,
        pspCents: 777,
        ledgerStatus: null,
        pspStatus: 'settled',
      },
      {
        kind: 'amount',
        movement: 'refund',
        reference: made.refundSettled,
        accountId: account,
        transactionId: first.transactionId,
        ledgerCents: 300,
        pspCents: 250,
        ledgerStatus: 'settled',
        pspStatus: 'settled',
      },
      {
        kind: 'status',
        movement: 'refund',
        reference: made.returned.refundId,
        accountId: account,
        transactionId: made.returned.transactionId,
        ledgerCents: 500,
        pspCents: 500,
        ledgerStatus: 'settled',
        pspStatus: 'failed',
      },
      {
        kind: 'amount',
        movement: 'withdrawal',
        reference: made.withdrawalPaid,
        accountId: account,
        transactionId: made.withdrawalPaid,
        ledgerCents: 2000,
        pspCents: 1999,
        ledgerStatus: 'settled',
        pspStatus: 'settled',
      },
      {
        kind: 'status',
        movement: 'withdrawal',
        reference: made.withdrawalFailed,
        accountId: account,
        transactionId: made.withdrawalFailed,
        ledgerCents: 2000,
        pspCents: 2000,
        ledgerStatus: 'failed',
        pspStatus: 'settled',
      },
      {
        kind: 'status',
        movement: 'withdrawal',
        reference: made.withdrawalProcessing,
        accountId: account,
        transactionId: made.withdrawalProcessing,
        ledgerCents: 1500,
        pspCents: 1500,
        ledgerStatus: 'pending',
        pspStatus: 'settled',
      },
      {
        kind: 'missing_at_psp',
        movement: 'withdrawal',
        reference: made.otherWithdrawalPaid,
        accountId: account,
        transactionId: made.otherWithdrawalPaid,
        ledgerCents: 1200,
        pspCents: null,
        ledgerStatus: 'settled',
        pspStatus: null,
      },
      {
        kind: 'missing_in_ledger',
        movement: 'withdrawal',
        reference: unknownId,
        accountId: null,
        transactionId: null,
        ledgerCents: null,
        pspCents: 1234,
        ledgerStatus: null,
        pspStatus: 'settled',
      },
    ];
    const order = (list: Difference[]) =>
      [...list].sort((a, b) => `${a.movement}${a.kind}${a.reference}`.localeCompare(`${b.movement}${b.kind}${b.reference}`));
    expect(order(differences)).toEqual(order(expected));

    const alerts = (await gateway.admin('GET', '/admin/v1/alerts')).body.alerts;
    expect(alerts.find((alert: { kind: string }) => alert.kind === 'reconciliation_differences')).toMatchObject({
      accountId: null,
      severity: 'high',
      details: { runId: run?.runId, providerId: PROVIDER, differences: 10 },
    });
    expect((await gateway.call('GET', '/metrics')).body).toContain(`pix_gateway_reconciliation_differences{provider="${PROVIDER}"} 10`);

    const csv = await gateway.call('GET', `/admin/v1/reconciliation/${run?.runId ?? ''}/report.csv`, { key: ADMIN_TOKEN });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="conciliacao-${PROVIDER}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    const lines = String(csv.body).split('\r\n');
    expect(lines[0]).toBe(
      'provedor,periodo_inicio_utc,periodo_fim_utc,linha,movimento,referencia,conta,transacao,valor_razao,valor_psp,status_razao,status_psp',
    );
    const start = `${PROVIDER},${new Date(window.from).toISOString()},${new Date(window.to).toISOString()}`;
    expect(lines[1]).toBe(`${start},total,entradas,,,,35.03,32.88,,`);
    expect(lines[2]).toBe(`${start},total,saidas,,,,40.00,69.83,,`);
    const cell = (cents: number | null) => (cents === null ? '' : reais(cents));
    for (const difference of expected) {
      expect(lines).toContain(
        [
          start,
          difference.kind,
          difference.movement,
          difference.reference,
          difference.accountId ?? '',
          difference.transactionId ?? '',
          cell(difference.ledgerCents),
          cell(difference.pspCents),
          difference.ledgerStatus ?? '',
          difference.pspStatus ?? '',
        ].join(','),
      );
    }
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(1 + 2 + expected.length + 1);
  });
});

describe(`API Pix reconciliation: a PSP that cannot list its records (${backend})`, () => {
  it('fails the run and says why when the PSP does not answer its lists; the next run reads them', async () => {
    double.failNext(3);
    const [run] = await reconcile({ ...period(), providerId: PROVIDER });
    expect(run).toMatchObject({ providerId: PROVIDER, status: 'failed', differenceCount: 0, matched: 0 });
    expect(run?.error).toMatch(/^PSP /);
    const [next] = await reconcile({ ...period(), providerId: PROVIDER });
    expect(next).toMatchObject({ status: 'done', error: null });
  });

  // A list page the adapter's schema refuses is the PSP failing (as `read` takes an answer of an
  // unexpected shape): never a 400 to the operator, never a run left `running`.
  it('fails the run, rather than the request, when the PSP answers a list of an unexpected shape', async () => {
    const foreign = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
    double.recordStraySend({ idEnvio: hex(foreign), amountCents: 100 });
    double.alterSend(hex(foreign), { valor: '1.5' });
    const answer = await gateway.admin('POST', '/admin/v1/reconciliation', { ...period(), providerId: PROVIDER });
    double.dropSend(hex(foreign));
    const runs = (await gateway.admin('GET', `/admin/v1/reconciliation?providerId=${PROVIDER}`)).body.runs as { status: string }[];
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.runs).toMatchObject([{ status: 'failed', error: expect.stringMatching(/^PSP /) }]);
    expect(runs.filter((listed) => listed.status === 'running')).toEqual([]);
  });
});

describe(`API Pix reconciliation: refunds of PIX received before the period (${backend})`, () => {
  // A devolução is listed only inside the PIX it returns, which `GET /pix?inicio&fim` lists by the
  // PIX's own time: a refund made today of a PIX received yesterday is asked for by its id.
  it('matches a refund made in the period of a PIX received hours before it', async () => {
    const payment = await paidAtPsp(800);
    gateway.clock.advance(3 * HOUR);
    const refundId = await refundAtPsp(payment, 200, 'DEVOLVIDO');
    const [run] = await reconcile({ ...period(), providerId: PROVIDER });
    expect(await differencesOf(run?.runId ?? '')).toEqual([]);
    expect(run).toMatchObject({ status: 'done', differenceCount: 0, matched: 1, ledgerOutCents: 200, pspOutCents: 200 });
    expect(double.pix(payment.endToEndId)?.devolucoes).toMatchObject([{ id: hex(refundId), status: 'DEVOLVIDO', valor: '2.00' }]);
  });
});
