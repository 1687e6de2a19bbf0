import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fund } from '../helpers/api.js';
import {
  ADMIN_TOKEN,
  backend,
  chargeBody,
  NO_CHARGE_FEES,
  providersFile,
  startGateway,
  withdrawalToHolder,
  type Gateway,
  type Merchant,
} from '../helpers/gateway.js';

/**
 * Reconciliation per PSP (DESIGN.md §14) with two simulated providers: their records agree with
 * the ledger after charges, payments, withdrawals and refunds at both; every kind of difference is
 * found once a PSP's records disagree, with an alert, the metric and the accountant's CSV.
 */
const HOUR = 3_600_000;

describe(`reconciliation per PSP (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  const route = async (providerId: string) =>
    expect(
      (
        await gateway.admin('PUT', '/admin/v1/routing', {
          charges: [{ providerId, weight: 1 }],
          withdrawals: [{ providerId, weight: 1 }],
        })
      ).status,
    ).toBe(200);
  const period = () => ({ from: gateway.clock.now().getTime() - HOUR, to: gateway.clock.now().getTime() + HOUR });
  const reconcile = async (body: Record<string, unknown>) => {
    const answer = await gateway.admin('POST', '/admin/v1/reconciliation', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.runs as { runId: string; [field: string]: unknown }[];
  };
  const paid: Record<string, string[]> = { 'psp-a': [], 'psp-b': [] };
  const withdrawals: Record<string, string[]> = { 'psp-a': [], 'psp-b': [] };

  beforeAll(async () => {
    gateway = await startGateway({
      PROVIDERS_FILE: providersFile([
        { id: 'psp-a', kind: 'simulated', timeoutMs: 20 },
        { id: 'psp-b', kind: 'simulated', timeoutMs: 20 },
      ]),
      SANDBOX_SETTLE_MS: 'manual',
    });
    merchant = await gateway.createMerchant({ ...NO_CHARGE_FEES, limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
    await fund(gateway, merchant, 100_000);
    for (const providerId of ['psp-a', 'psp-b']) {
      await route(providerId);
      for (let index = 0; index < 3; index++) {
        const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 1000 + index }) });
        expect((await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
        paid[providerId]?.push(created.body.transactionId);
      }
      for (const outcome of ['paid', 'failed'] as const) {
        const sent = await gateway.call('POST', '/v1/withdraw', { key: merchant.apiKey, body: withdrawalToHolder({ amountCents: 2000 }) });
        expect(sent.status).toBe(201);
        const settled = await gateway.call('POST', `/sandbox/v1/withdrawals/${sent.body.transactionId}/settle`, { key: merchant.apiKey, body: { outcome } });
        expect(settled.status).toBe(200);
        withdrawals[providerId]?.push(sent.body.transactionId);
      }
      const refund = await gateway.call('POST', `/v1/transactions/${paid[providerId]?.[0]}/refunds`, { key: merchant.apiKey, body: { amountCents: 300 } });
      expect(refund.status).toBe(201);
      expect(
        (await gateway.call('POST', `/sandbox/v1/refunds/${refund.body.refundId}/settle`, { key: merchant.apiKey, body: { outcome: 'refunded' } })).status,
      ).toBe(200);
    }
  });
  afterAll(() => gateway.close());

  it("finds every PSP's records equal to the ledger: nothing to report, totals in and out on both sides", async () => {
    const runs = await reconcile(period());
    expect(runs.map((run) => [run.providerId, run.status, run.differenceCount])).toEqual([
      ['psp-a', 'done', 0],
      ['psp-b', 'done', 0],
    ]);
    for (const run of runs) {
      // 3 payments (1000 + 1001 + 1002), a paid withdrawal (2000), a failed one (never sent: matches), a refund (300).
      expect(run).toMatchObject({ matched: 6, ledgerInCents: 3003, pspInCents: 3003, ledgerOutCents: 2300, pspOutCents: 2300, error: null });
    }
    const alerts = await gateway.admin('GET', '/admin/v1/alerts');
    expect(alerts.body.alerts.filter((alert: { kind: string }) => alert.kind === 'reconciliation_differences')).toEqual([]);
  });

  it('lists every difference with its kind and amounts, alerts, counts it in /metrics, and gives the accountant a CSV', async () => {
    const db = gateway.database.db;
    const [firstPayment, secondPayment] = await db
      .selectFrom('transactions')
      .select(['id', 'endToEndId', 'amountCents'])
      .where('id', 'in', paid['psp-a'] ?? [])
      .orderBy('amountCents')
      .execute();
    const [paidWithdrawal, failedWithdrawal] = withdrawals['psp-a'] ?? [];
    if (!firstPayment?.endToEndId || !secondPayment || !paidWithdrawal || !failedWithdrawal) throw new Error('fixtures missing');
    // The PSP's records disagree: a PIX it never lists, one it lists that the ledger never saw, a withdrawal of another amount, a failed one it paid.
    await db.deleteFrom('sandboxPayments').where('endToEndId', '=', firstPayment.endToEndId).execute();
    await db
      .insertInto('sandboxPayments')
      .values({
        endToEndId: 'E99999999202611261200zzzzzzzzzzz',
        providerId: 'psp-a',
        transactionId: secondPayment.id,
        accountId: merchant.accountId,
        amountCents: 777,
        paidAt: gateway.clock.now(),
      })
      .execute();
    await db.updateTable('sandboxWithdrawals').set({ amountCents: 1999 }).where('transactionId', '=', paidWithdrawal).execute();
    await db.updateTable('sandboxWithdrawals').set({ outcome: 'paid' }).where('transactionId', '=', failedWithdrawal).execute();

    const window = period();
    const [run] = await reconcile({ ...window, providerId: 'psp-a' });
    expect(run).toMatchObject({ providerId: 'psp-a', status: 'done', differenceCount: 4, matched: 3, ledgerInCents: 3003, pspInCents: 2003 + 777 });
    const detail = await gateway.admin('GET', `/admin/v1/reconciliation/${run?.runId ?? ''}`);
    expect(detail.status).toBe(200);
    const byKind = Object.fromEntries(detail.body.differences.map((difference: { kind: string }) => [difference.kind, difference]));
    expect(byKind.missing_at_psp).toMatchObject({
      movement: 'payment',
      reference: firstPayment.endToEndId,
      transactionId: firstPayment.id,
      ledgerCents: 1000,
      pspCents: null,
    });
    expect(byKind.missing_in_ledger).toMatchObject({
      movement: 'payment',
      reference: 'E99999999202611261200zzzzzzzzzzz',
      ledgerCents: null,
      pspCents: 777,
      accountId: null,
    });
    expect(byKind.amount).toMatchObject({ movement: 'withdrawal', reference: paidWithdrawal, ledgerCents: 2000, pspCents: 1999 });
    expect(byKind.status).toMatchObject({ movement: 'withdrawal', reference: failedWithdrawal, ledgerStatus: 'failed', pspStatus: 'settled' });

    const alerts = (await gateway.admin('GET', '/admin/v1/alerts')).body.alerts;
    expect(alerts.find((alert: { kind: string }) => alert.kind === 'reconciliation_differences')).toMatchObject({
      accountId: null,
      severity: 'high',
      details: { runId: run?.runId, providerId: 'psp-a', differences: 4 },
    });
    const metrics = await gateway.call('GET', '/metrics');
    expect(metrics.body).toContain('pix_gateway_reconciliation_differences{provider="psp-a"} 4');
    expect(metrics.body).toContain('pix_gateway_reconciliation_differences{provider="psp-b"} 0');

    const csv = await gateway.call('GET', `/admin/v1/reconciliation/${run?.runId ?? ''}/report.csv`, { key: ADMIN_TOKEN });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="conciliacao-psp-a-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = String(csv.body).split('\r\n');
    expect(lines[0]).toBe(
      'provedor,periodo_inicio_utc,periodo_fim_utc,linha,movimento,referencia,conta,transacao,valor_razao,valor_psp,status_razao,status_psp',
    );
    const start = `psp-a,${new Date(window.from).toISOString()},${new Date(window.to).toISOString()}`;
    expect(lines[1]).toBe(`${start},total,entradas,,,,30.03,27.80,,`);
    expect(lines[2]).toBe(`${start},total,saidas,,,,23.00,42.99,,`);
    expect(lines).toContain(`${start},amount,withdrawal,${paidWithdrawal},${merchant.accountId},${paidWithdrawal},20.00,19.99,settled,settled`);
    expect(lines).toContain(`${start},missing_in_ledger,payment,E99999999202611261200zzzzzzzzzzz,,,,7.77,,settled`);
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(1 + 2 + 4 + 1);
  });

  it('a PSP that cannot list its records fails its run and says why; bad requests are refused', async () => {
    await gateway.call('POST', '/sandbox/v1/providers/psp-b/outage', { key: ADMIN_TOKEN, body: { mode: 'down' } });
    const [run] = await reconcile({ ...period(), providerId: 'psp-b' });
    expect(run).toMatchObject({ status: 'failed', error: 'simulated provider psp-b is down (connection refused)', differenceCount: 0 });
    await gateway.call('POST', '/sandbox/v1/providers/psp-b/outage', { key: ADMIN_TOKEN, body: { mode: 'up' } });

    const now = gateway.clock.now().getTime();
    const periodError = { error: 'from e to devem ser instantes em milissegundos, com from antes de to e no máximo 31 dias entre eles.' };
    for (const body of [{ from: now, to: now }, { from: now, to: now - 1 }, { from: now - 32 * 24 * HOUR, to: now }, { from: 'ontem', to: now }, { to: now }]) {
      const refused = await gateway.admin('POST', '/admin/v1/reconciliation', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toEqual(periodError);
    }
    const unknown = await gateway.admin('POST', '/admin/v1/reconciliation', { ...period(), providerId: 'psp-z' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Provedor não encontrado.' });
    expect((await gateway.admin('GET', '/admin/v1/reconciliation/not-a-run')).body).toEqual({ error: 'runId inválido.' });
    const missing = await gateway.admin('GET', '/admin/v1/reconciliation/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Conciliação não encontrada.' });
    expect((await gateway.call('GET', '/admin/v1/reconciliation', { key: merchant.apiKey })).status).toBe(401);
    const audit = await gateway.admin('GET', '/admin/v1/audit');
    expect(audit.body.entries.some((entry: { action: string }) => entry.action === 'POST /admin/v1/reconciliation')).toBe(true);
  });

  it('the daily job compares yesterday once per provider, whatever the number of workers', async () => {
    gateway.clock.advance(24 * HOUR);
    const other = await gateway.startWorkerServices();
    const made = await Promise.all([gateway.services.reconciliation.runDaily(), other.services.reconciliation.runDaily()]);
    expect(made.reduce((sum, count) => sum + count, 0)).toBe(2);
    expect(await gateway.services.reconciliation.runDaily()).toBe(0);
    const listed = (await gateway.admin('GET', '/admin/v1/reconciliation')).body.runs.filter((run: { requestedBy: string }) => run.requestedBy === 'schedule');
    expect(listed.map((run: { providerId: string }) => run.providerId).sort()).toEqual(['psp-a', 'psp-b']);
    // Yesterday once its 6 hours of grace have passed (what its last minutes left in flight has landed).
    const dayStart = Math.floor((gateway.clock.now().getTime() - 6 * HOUR) / (24 * HOUR)) * 24 * HOUR;
    expect(listed.every((run: { from: number; to: number }) => run.to === dayStart && run.from === dayStart - 24 * HOUR)).toBe(true);
  });

  it('a scheduled run that failed (the PSP could not list its records) is run again at the next look', async () => {
    gateway.clock.advance(24 * HOUR);
    await gateway.call('POST', '/sandbox/v1/providers/psp-b/outage', { key: ADMIN_TOKEN, body: { mode: 'down' } });
    expect(await gateway.services.reconciliation.runDaily()).toBe(2);
    expect(await gateway.services.reconciliation.runDaily()).toBe(1);
    await gateway.call('POST', '/sandbox/v1/providers/psp-b/outage', { key: ADMIN_TOKEN, body: { mode: 'up' } });
    expect(await gateway.services.reconciliation.runDaily()).toBe(1);
    expect(await gateway.services.reconciliation.runDaily()).toBe(0);
    const runs = (await gateway.admin('GET', '/admin/v1/reconciliation?providerId=psp-b')).body.runs.slice(0, 3);
    expect(runs.map((run: { status: string }) => run.status)).toEqual(['done', 'failed', 'failed']);
  });
});
