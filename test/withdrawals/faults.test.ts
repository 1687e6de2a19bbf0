import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fund, paidCharge } from '../helpers/api.js';
import { serverUrl, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { freePort, gatewayProcesses } from '../helpers/processes.js';

/**
 * Faults between a withdrawal's debit and the PSP's acknowledgement, on real processes against the
 * PostgreSQL server: every connection killed while withdrawals and refunds are created (the
 * statement, the provider's write or the COMMIT's answer lost), then the `serve` process killed
 * with requests in flight. The merchant retries with the same externalRef, a worker runs, and then
 * nothing is left processing, the simulated network got each withdrawal at most once, and the
 * ledger holds: each withdrawal debited once, and credited back once when it failed.
 */
const APPLICATION = `gateway-faults-${process.pid}`;

describe.runIf(serverUrl)('faults between the debit and the PSP (PostgreSQL server)', { timeout: 180_000 }, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  let processes: ReturnType<typeof gatewayProcesses>;

  const post = async (base: string, path: string, body: unknown) => {
    try {
      const response = await fetch(base + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    } catch {
      return { status: 0, body: {} }; // the process died with the request in flight
    }
  };

  const serve = async (name: string) => {
    const port = await freePort();
    // On the server, serve runs no worker: settlement and resends are the worker's (a send taken is paid 1.5 s later).
    await processes.start(name, ['serve'], { PORT: String(port), HOST: '127.0.0.1', SANDBOX_SETTLE_MS: '1500' }).waitFor(/listening on/);
    return `http://127.0.0.1:${port}`;
  };

  beforeAll(async () => {
    gateway = await startGateway();
    processes = gatewayProcesses(gateway, APPLICATION);
    merchant = await gateway.createMerchant({ limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } });
    await fund(gateway, merchant, 10_000_000);
  }, 90_000);

  afterAll(async () => {
    processes?.killAll();
    await gateway?.close();
  });

  it('leaves nothing processing, sends each withdrawal and refund at most once and debits it once, whatever fails', async () => {
    // Paid charges to refund: every fourth request is a refund of R$ 2,00 of one of them.
    const charges = await Promise.all(Array.from({ length: 40 }, () => paidCharge(gateway, merchant)));
    const first = await serve('serve-1');
    const refs = Array.from({ length: 160 }, (_, index) => `fault-${index}`);
    const requestOf = (ref: string) => {
      const index = Number(ref.slice('fault-'.length));
      return index % 4 === 3
        ? { path: `/v1/transactions/${charges[Math.floor(index / 4)]}/refunds`, body: { amountCents: 200, externalRef: ref } }
        : { path: '/v1/withdraw', body: withdrawalToHolder({ externalRef: ref }) };
    };
    /** Four clients sending one request after another: requests at every step of their way when a fault strikes. */
    const streams = (base: string, batch: string[]) =>
      Promise.all(
        [0, 1, 2, 3].map(async (stream) => {
          const answers: { ref: string; status: number }[] = [];
          for (const ref of batch.filter((_, index) => index % 4 === stream)) {
            const { path, body } = requestOf(ref);
            answers.push({ ref, status: (await post(base, path, body)).status });
          }
          return answers;
        }),
      ).then((lists) => lists.flat());
    // Wave 1: every connection killed every 30–90 ms while the first 80 are created.
    let killing = true;
    const killer = (async () => {
      while (killing) {
        await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 60));
        await processes.dropConnections();
      }
    })();
    const wave1 = await streams(first, refs.slice(0, 80));
    killing = false;
    await killer;
    // Wave 2: the process killed with the other 80 on their way.
    const wave2 = streams(first, refs.slice(80));
    await new Promise((resolve) => setTimeout(resolve, 300));
    processes.children.find((child) => child.name === 'serve-1')?.child.kill('SIGKILL');
    const answers = [...wave1, ...(await wave2)];
    // Every answer is one the spec allows: created, replayed, unknown, a clean 503 or 502, or no answer at all.
    for (const answer of answers) expect([0, 200, 201, 202, 502, 503]).toContain(answer.status);
    // The faults struck: refused requests while the connections died, requests cut with the process.
    expect(answers.some((answer) => answer.status === 503)).toBe(true);
    expect(answers.some((answer) => answer.status === 0)).toBe(true);

    // The merchant retries everything it did not get a 2xx for, with the same externalRef, on a new process.
    const second = await serve('serve-2');
    for (const answer of answers) {
      if (answer.status >= 200 && answer.status < 300) continue;
      const { path, body } = requestOf(answer.ref);
      const retry = await post(second, path, body);
      expect([200, 201, 202, 502]).toContain(retry.status);
    }
    await processes.start('worker', ['worker'], { SANDBOX_SETTLE_MS: '1500', LOG_LEVEL: 'info' }).waitFor(/worker started/);

    // Within a lease (5 s), the worker's resend and the settlement (1.5 s), everything ends.
    const db = gateway.database.db;
    await expect
      .poll(
        async () =>
          (await db.selectFrom('refunds').select('id').where('accountId', '=', merchant.accountId).where('status', '=', 'processing').execute()).length,
        {
          timeout: 60_000,
          interval: 500,
        },
      )
      .toBe(0);
    await expect
      .poll(
        async () =>
          (
            await db
              .selectFrom('transactions')
              .select(sql<number>`count(*)::int8`.as('open'))
              .where('accountId', '=', merchant.accountId)
              .where('type', '=', 'withdrawal')
              .where('status', 'in', ['processing', 'failed_unknown'])
              .executeTakeFirstOrThrow()
          ).open,
        { timeout: 60_000, interval: 500 },
      )
      .toBe(0);
    const withdrawals = await db
      .selectFrom('transactions')
      .select(['id', 'status', 'amountCents', 'feeCents', 'externalRef'])
      .where('accountId', '=', merchant.accountId)
      .where('type', '=', 'withdrawal')
      .execute();
    // One withdrawal per externalRef that reached the database (a 502's released one may have a successor).
    const paid = withdrawals.filter((row) => row.status === 'paid');
    expect(paid.length + withdrawals.filter((row) => row.status === 'failed').length).toBe(withdrawals.length);
    expect(new Set(paid.map((row) => row.externalRef)).size).toBe(paid.length);
    // The network got each paid withdrawal once, and none of the failed ones.
    const received = await db.selectFrom('sandboxWithdrawals').select('transactionId').where('accountId', '=', merchant.accountId).execute();
    expect(received.map((row) => row.transactionId).sort()).toEqual(paid.map((row) => row.id).sort());
    // Debited once each; credited back once for each failed one; the balance is what left.
    /** Each row's debit movement exactly once, and its reversal exactly once when it failed (`key`: the ledger column naming the row). */
    const expectDebitedOnce = async (rows: { id: string; status: string }[], key: 'transactionId' | 'memo', debit: string, reversal: string) => {
      const movements = await db
        .selectFrom('ledgerEntries')
        .select([key, 'kind', sql<number>`count(DISTINCT movement_id)::int8`.as('count')])
        .where('accountId', '=', merchant.accountId)
        .where('kind', 'in', [debit, reversal])
        .groupBy([key, 'kind'])
        .execute();
      const countOf = (id: string, kind: string) => movements.find((movement) => movement[key] === id && movement.kind === kind)?.count;
      for (const row of rows) {
        expect(countOf(row.id, debit)).toBe(1);
        expect(countOf(row.id, reversal)).toBe(row.status === 'failed' ? 1 : undefined);
      }
    };
    await expectDebitedOnce(withdrawals, 'transactionId', 'withdrawal_debit', 'withdrawal_reversal');
    // Refunds: none processing, the network got exactly the refunded ones, one reserve each and one reversal per failure.
    const refunds = await db.selectFrom('refunds').select(['id', 'status', 'amountCents']).where('accountId', '=', merchant.accountId).execute();
    expect(refunds.filter((refund) => refund.status === 'processing')).toEqual([]);
    const refunded = refunds.filter((refund) => refund.status === 'refunded');
    const sentRefunds = await db.selectFrom('sandboxRefunds').select('refundId').where('accountId', '=', merchant.accountId).execute();
    expect(sentRefunds.map((row) => row.refundId).sort()).toEqual(refunded.map((refund) => refund.id).sort());
    await expectDebitedOnce(refunds, 'memo', 'refund_reserve', 'refund_reversal');
    const spent = paid.reduce((sum, row) => sum + row.amountCents + row.feeCents, 0) + refunded.reduce((sum, refund) => sum + refund.amountCents, 0);
    const credited = await db
      .selectFrom('transactions')
      .select(sql<number>`coalesce(sum(net_cents), 0)::int8`.as('net'))
      .where('accountId', '=', merchant.accountId)
      .where('type', '=', 'pix_in')
      .executeTakeFirstOrThrow();
    expect((await gateway.services.ledger.balanceOf(merchant.accountId)).available).toBe(10_000_000 + credited.net - spent);
    const open = await db
      .selectFrom('providerSends')
      .select(['id', 'state'])
      .where('accountId', '=', merchant.accountId)
      .where('state', '<>', 'closed')
      .execute();
    expect(open).toEqual([]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
