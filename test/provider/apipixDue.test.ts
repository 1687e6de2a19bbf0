import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { parseBrCodeFields } from '../../src/pix/brcode.js';
import { balanceOf, eventNames, eventually, readTransaction } from '../helpers/api.js';
import { backend, NO_CHARGE_FEES, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { makePspCertificates, type PspCertificates } from '../psp/certificates.js';
import { CLIENT_ID, CLIENT_SECRET, startPspDouble, type PspDouble } from '../psp/double.js';

/**
 * Charges with a due date (BCB's cobv, docs/due-charges.md) through the API Pix adapter, against
 * the PSP double: registered by `PUT /cobv/{txid}` with their parts in BCB's modalities, cancelled
 * by `PATCH /cobv/{txid}`, paid by a PIX of the amount due that day. Every request, answer and
 * notification is judged by Banco Central's OpenAPI (the double's `violations`).
 */
const PIX_KEY = 'recebimentos@gateway.example';
const hex = (id: string) => id.replaceAll('-', '');

let certificates: PspCertificates;
let double: PspDouble;
let gateway: Gateway;
let merchant: Merchant;
let certificateDir: string;

beforeAll(async () => {
  certificateDir = mkdtempSync(join(tmpdir(), 'psp-due-'));
  certificates = makePspCertificates(certificateDir);
  // The double's calendar follows the gateway's clock, moved to the test's days (never a date that runs out).
  double = await startPspDouble(certificates, { pixKey: PIX_KEY, now: () => gateway.clock.now() });
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
  merchant = await gateway.createMerchant(NO_CHARGE_FEES);
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

/**
 * Moves the gateway's clock to noon of a day in Brazil. The days are years ahead: the double
 * refuses a due date before the day it registers the cobv (its own clock is the real one).
 */
const setDay = (day: string) => gateway.clock.advance(new Date(`${day}T12:00:00-03:00`).getTime() - gateway.clock.now().getTime());

/** Monday 2031-03-03 is "today"; the charges fall due on Monday 2031-03-10 (no holiday near). */
const TODAY = '2031-03-03';
const DUE_DATE = '2031-03-10';
const CPF = '52998224725';

const dueBody = (overrides: Record<string, unknown> = {}) => ({
  amountCents: 150_000,
  customer: { name: 'Maria Pagadora', document: { number: CPF, type: 'cpf' } },
  dueDate: DUE_DATE,
  ...overrides,
});
const createDue = (body: Record<string, unknown>) => gateway.call('POST', '/v1/pix/due', { key: merchant.apiKey, body });
async function dueCharge(overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await createDue(dueBody(overrides));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.transactionId;
}
const refundsOf = async (transactionId: string) =>
  (await gateway.call('GET', `/v1/transactions/${transactionId}/refunds`, { key: merchant.apiKey })).body.refunds as Record<string, unknown>[];
const callsAbout = (transactionId: string) => double.calls.filter((call) => call.includes(hex(transactionId)));

describe(`API Pix adapter: charges with a due date (${backend})`, () => {
  it('registers a cobv (201; no immediate cob stands in) with its dates, named payer and every part in BCB’s modalities', async () => {
    setDay(TODAY);
    const calls = double.calls.length;
    const created = await createDue(
      dueBody({
        validityAfterDueDays: 15,
        fine: { percent: 2 },
        interest: { percent: 1, per: 'month', days: 'calendar' },
        abatement: { amountCents: 5000 },
        discount: {
          until: [
            { date: '2031-03-05', amountCents: 3000 },
            { date: '2031-03-07', amountCents: 1550 },
          ],
        },
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { transactionId } = created.body;
    expect(double.calls.slice(calls).filter((call) => call.startsWith('PUT '))).toEqual([`PUT /api/v2/cobv/${hex(transactionId)}`]);
    const cobv = double.cobv(hex(transactionId));
    expect(cobv).toMatchObject({ status: 'ATIVA', chave: PIX_KEY, revisao: 0 });
    expect(cobv?.calendario).toEqual({ dataDeVencimento: DUE_DATE, validadeAposVencimento: 15 });
    expect(cobv?.devedor).toEqual({ cpf: CPF, nome: 'Maria Pagadora' });
    expect(cobv?.valor).toEqual({
      original: '1500.00',
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 3, valorPerc: '1.00' },
      abatimento: { modalidade: 1, valorPerc: '50.00' },
      desconto: {
        modalidade: 1,
        descontoDataFixa: [
          { data: '2031-03-05', valorPerc: '30.00' },
          { data: '2031-03-07', valorPerc: '15.50' },
        ],
      },
    });
    expect(double.cob(hex(transactionId))).toBeUndefined();
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'pending', amountCents: 150_000 });
  });

  it('maps each fine, interest, abatement and discount modality, and a CNPJ payer', async () => {
    setDay(TODAY);
    const cases: { body: Record<string, unknown>; valor: Record<string, unknown> }[] = [
      {
        body: {
          fine: { amountCents: 1500 },
          interest: { amountCents: 50 },
          abatement: { percent: 1.5 },
          discount: { until: [{ date: DUE_DATE, percent: 3 }] },
        },
        valor: {
          multa: { modalidade: 1, valorPerc: '15.00' },
          juros: { modalidade: 1, valorPerc: '0.50' },
          abatimento: { modalidade: 2, valorPerc: '1.50' },
          desconto: { modalidade: 2, descontoDataFixa: [{ data: DUE_DATE, valorPerc: '3.00' }] },
        },
      },
      {
        body: { fine: { percent: 2.5 }, interest: { percent: 0.05, per: 'day' }, discount: { perDayEarly: { amountCents: 100, days: 'calendar' } } },
        valor: { multa: { modalidade: 2, valorPerc: '2.50' }, juros: { modalidade: 2, valorPerc: '0.05' }, desconto: { modalidade: 3, valorPerc: '1.00' } },
      },
      {
        body: { interest: { percent: 12, per: 'year' }, discount: { perDayEarly: { amountCents: 100, days: 'business' } } },
        valor: { juros: { modalidade: 4, valorPerc: '12.00' }, desconto: { modalidade: 4, valorPerc: '1.00' } },
      },
      {
        body: { interest: { amountCents: 50, days: 'business' }, discount: { perDayEarly: { percent: 0.25, days: 'calendar' } } },
        valor: { juros: { modalidade: 5, valorPerc: '0.50' }, desconto: { modalidade: 5, valorPerc: '0.25' } },
      },
      {
        body: { interest: { percent: 0.05, per: 'day', days: 'business' }, discount: { perDayEarly: { percent: 0.25, days: 'business' } } },
        valor: { juros: { modalidade: 6, valorPerc: '0.05' }, desconto: { modalidade: 6, valorPerc: '0.25' } },
      },
      { body: { interest: { percent: 1, per: 'month', days: 'business' } }, valor: { juros: { modalidade: 7, valorPerc: '1.00' } } },
      {
        body: {
          interest: { percent: 12, per: 'year', days: 'business' },
          customer: { name: 'Empresa Pagadora Ltda', document: { number: '11222333000181', type: 'cnpj' } },
        },
        valor: { juros: { modalidade: 8, valorPerc: '12.00' } },
      },
    ];
    const held = [];
    for (const { body, valor } of cases) {
      const cobv = double.cobv(hex(await dueCharge(body)));
      expect(cobv?.valor, JSON.stringify(body)).toEqual({ original: '1500.00', ...valor });
      // BCB's default validity when none is given: 30 days.
      expect(cobv?.calendario).toEqual({ dataDeVencimento: DUE_DATE, validadeAposVencimento: 30 });
      held.push(cobv);
    }
    expect(held.at(-1)?.devedor).toEqual({ cnpj: '11222333000181', nome: 'Empresa Pagadora Ltda' });
  });

  it('answers the PSP’s BR Code: the cobv’s location and no amount; one that does not check, or that carries an amount, is a 502 with nothing recorded', async () => {
    setDay(TODAY);
    const created = await createDue(dueBody({ fine: { percent: 2 } }));
    expect(created.status).toBe(201);
    const cobv = double.cobv(hex(created.body.transactionId));
    const fields = parseBrCodeFields(created.body.pixPayload);
    expect(parseBrCodeFields(fields.get('26') ?? '').get('25')).toBe(cobv?.location);
    expect(fields.has('54')).toBe(false);
    expect(created.body.pixPayload).toBe(cobv?.pixCopiaECola);

    for (const how of ['crc', 'location', 'amount'] as const) {
      const listed = (await gateway.call('GET', '/v1/transactions?type=pix_in&limit=100', { key: merchant.apiKey })).body.count;
      double.tamperNextBrCode(how);
      const refused = await createDue(dueBody());
      expect(refused, how).toMatchObject({ status: 502, body: { error: messages.providerChargeFailed } });
      expect((await gateway.call('GET', '/v1/transactions?type=pix_in&limit=100', { key: merchant.apiKey })).body.count).toBe(listed);
    }
  });

  it('cancels at the PSP by PATCH /cobv (REMOVIDA_PELO_USUARIO_RECEBEDOR) before the charge shows cancelled', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge({ fine: { percent: 2 } });
    const cancelled = await gateway.call('POST', `/v1/pix/${transactionId}/cancel`, { key: merchant.apiKey });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect(double.cobv(hex(transactionId))).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 1 });
    expect(callsAbout(transactionId).filter((call) => call.startsWith('PATCH '))).toEqual([`PATCH /api/v2/cobv/${hex(transactionId)}`]);
  });

  it('fails a cobv the PSP removed (REMOVIDA_PELO_PSP), found by the poller through GET /cobv', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge();
    double.removeCharge(hex(transactionId));
    await (gateway.services.providerInbound[0]?.poll() ?? Promise.resolve(0));
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('failed');
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.failed']);
    expect(double.calls).toContain('GET /api/v2/cobv');
  });

  it('keeps the charge pending when the PSP says it was paid (CONCLUIDA), and credits the PIX once it is reported', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge();
    const before = await balanceOf(gateway, merchant);
    await double.payCobv(hex(transactionId), { amountCents: 150_000, parts: { original: 150_000 }, notify: 'late', at: gateway.clock.now() });
    const refused = await gateway.call('POST', `/v1/pix/${transactionId}/cancel`, { key: merchant.apiKey });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.providerCancelFailed } });
    expect(callsAbout(transactionId)).toEqual(expect.arrayContaining([`PATCH /api/v2/cobv/${hex(transactionId)}`, `GET /api/v2/cobv/${hex(transactionId)}`]));
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
    await double.flush();
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
    expect(await balanceOf(gateway, merchant)).toBe(before + 150_000);
  });

  it('credits a PIX paid late for the amount due that day (2% fine, 1% a month), with its parts', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge({ fine: { percent: 2 }, interest: { percent: 1, per: 'month', days: 'calendar' } });
    // Friday 2031-03-14, 4 days after the due date (a business day, not moved).
    setDay('2031-03-14');
    // Fine: 2% of 1.500,00 = 30,00. Interest: 1% ÷ 30 × 4 days = 0.001333 (six decimals, truncated) × 1.500,00 = 1,9995 → 1,99.
    const due = 150_000 + 3_000 + 199;
    const before = await balanceOf(gateway, merchant);
    const endToEndId = await double.payCobv(hex(transactionId), {
      amountCents: due,
      parts: { original: 150_000, multa: 3_000, juros: 199 },
      at: gateway.clock.now(),
    });
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
    const paid = await readTransaction(gateway, merchant, transactionId);
    expect(paid).toMatchObject({ status: 'paid', endToEndId, amountCents: 153_199, feeCents: 0, netCents: 153_199 });
    expect(paid.due).toMatchObject({
      originalAmountCents: 150_000,
      paid: { date: '2031-03-14', abatementCents: 0, discountCents: 0, interestCents: 199, fineCents: 3_000 },
    });
    expect(await balanceOf(gateway, merchant)).toBe(before + 153_199);
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.paid']);
    expect(double.calls).toContain(`GET /api/v2/pix/${endToEndId}`);
    expect(double.cobv(hex(transactionId))?.status).toBe('CONCLUIDA');
  });

  it('judges a PIX by the day it was paid, not the day it is reported: paid at 23:59 on the due date, reported the next day, the original is due', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge({ fine: { percent: 2 }, interest: { percent: 1, per: 'month', days: 'calendar' } });
    setDay('2031-03-11');
    const endToEndId = await double.payCobv(hex(transactionId), {
      amountCents: 150_000,
      parts: { original: 150_000 },
      at: new Date(`${DUE_DATE}T23:59:00-03:00`),
    });
    await eventually(async () => expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('paid'));
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({
      endToEndId,
      amountCents: 150_000,
      due: { paid: { date: DUE_DATE, interestCents: 0, fineCents: 0 } },
    });
  });

  it('believes a PSP time no earlier than the charge: a PIX "paid" before it was created earns no extra days of discount', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge({ discount: { perDayEarly: { percent: 1, days: 'calendar' } } });
    // The PSP says 2031-02-21, 17 days early (17%); the charge was created 2031-03-03, 7 days early (7%).
    const endToEndId = await double.payCobv(hex(transactionId), { amountCents: 124_500, at: new Date('2031-02-21T12:00:00-03:00') });
    await eventually(async () => expect(await refundsOf(transactionId)).toMatchObject([{ amountCents: 124_500, status: 'processing' }]));
    expect(double.pix(endToEndId)?.devolucoes).toHaveLength(1);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
  });

  it('returns a PIX of another amount than the amount due that day (the original, paid late), never crediting it', async () => {
    setDay(TODAY);
    const transactionId = await dueCharge({ fine: { percent: 2 }, interest: { percent: 1, per: 'month', days: 'calendar' } });
    setDay('2031-03-14');
    const before = await balanceOf(gateway, merchant);
    const endToEndId = await double.payCobv(hex(transactionId), { amountCents: 150_000, at: gateway.clock.now() });
    await eventually(async () => expect(await refundsOf(transactionId)).toMatchObject([{ amountCents: 150_000, status: 'processing' }]));
    const [returned] = await refundsOf(transactionId);
    expect(double.pix(endToEndId)?.devolucoes).toMatchObject([{ id: hex(String(returned?.refundId)), natureza: 'ORIGINAL', valor: '1500.00' }]);
    expect((await readTransaction(gateway, merchant, transactionId)).status).toBe('pending');
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it('removes an orphan cobv (its answer lost): the kind unknown, PATCH /cob finds nothing, then PATCH /cobv removes it', async () => {
    setDay(TODAY);
    const orphans = () => gateway.database.db.selectFrom('orphanCharges').selectAll().where('removedAt', 'is', null).execute();
    expect(await orphans()).toEqual([]);
    // Every attempt answers after the adapter gave up; the first registered the cobv.
    double.slowNext(3, 1500);
    const refused = await createDue(dueBody({ fine: { percent: 2 } }));
    expect(refused).toMatchObject({ status: 502, body: { error: messages.providerChargeFailed } });
    const [orphan] = await orphans();
    if (!orphan) throw new Error('no orphan recorded');
    const txid = hex(orphan.transactionId);
    await eventually(() => expect(double.cobv(txid)?.status).toBe('ATIVA'));
    await new Promise((resolve) => setTimeout(resolve, 600)); // the last slow attempt ends at the double

    expect(await gateway.services.charges.removeOrphans()).toBe(1);
    expect(double.cobv(txid)?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(callsAbout(orphan.transactionId).filter((call) => !call.startsWith('PUT '))).toEqual([
      `PATCH /api/v2/cob/${txid}`,
      `GET /api/v2/cob/${txid}`,
      `PATCH /api/v2/cobv/${txid}`,
    ]);
    expect(await orphans()).toEqual([]);
  }, 20_000);
});
