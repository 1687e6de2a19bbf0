import { setTimeout as sleep } from 'node:timers/promises';
import { callJson, expectJson, mapConcurrently } from './api.js';
import { queryDatabase } from './postgres.js';
import type { BenchConfig } from './config.js';
import { millisecondsPer, processCpu, startCpuWindow } from './cpuTime.js';
import { chargeBody, type Merchant } from './merchants.js';
import { ADMIN_TOKEN, startWorker, type HttpProcess, type NodeProcess } from './processes.js';
import type { ScenarioResult } from './results.js';
import { merchantOf, onGateway, scenarioMeters, unavailableScenario, type Fleet } from './scenarios.js';
import { epochMillis, startWebhookReceiver, type WebhookReceiver } from './webhookReceiver.js';

const ID = '5';
const TITLE = 'sandbox pay → webhook delivered';
const PAID_EVENT = 'transaction.paid';
/** Worker processes next to serve: on a server database, serve does not dispatch webhooks. */
const WORKERS = 2;
/** Give up waiting when no delivery arrived for this long. */
const QUIET_LIMIT_MS = 20_000;

const percentile = (sorted: number[], p: number): number | null =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null) : null;

class WebhooksUnavailable extends Error {}

/** One endpoint per merchant, all to the local receiver; 404 = the gateway has no webhook endpoints yet. */
async function registerEndpoints(gateway: HttpProcess, merchants: Merchant[], receiver: WebhookReceiver): Promise<void> {
  await mapConcurrently(merchants, 8, async (merchant, index) => {
    const reply = await callJson(gateway.url, 'POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, {
      token: ADMIN_TOKEN,
      body: { url: `${receiver.url}/merchant-${index}` },
    });
    if (reply.status === 404) throw new WebhooksUnavailable(`POST …/webhook-endpoints answered 404 ${JSON.stringify(reply.body)}`);
    if (reply.status !== 201) throw new Error(`webhook endpoint registration: ${reply.status} ${JSON.stringify(reply.body)}`);
  });
}

/** Waits until every paid charge's event arrived, or none arrived for QUIET_LIMIT_MS. */
async function awaitDeliveries(receiver: WebhookReceiver, expected: number): Promise<void> {
  let seen = receiver.deliveries.size;
  let lastProgress = Date.now();
  while (receiver.deliveries.size < expected && Date.now() - lastProgress < QUIET_LIMIT_MS) {
    await sleep(100);
    if (receiver.deliveries.size !== seen) {
      seen = receiver.deliveries.size;
      lastProgress = Date.now();
    }
  }
}

/**
 * Scenario 5: charges are created first; then sandbox pay calls (as many in flight as the load
 * has connections) make them paid, and the receiver notes when each `transaction.paid` arrives.
 * Latency runs from the state change (the event's occurredAt, stamped in the paying transaction;
 * the pay call's answer when the body has none) to the receiver; the rate is deliveries over the
 * time from the first pay call to the last delivery.
 */
export async function webhookScenario(config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> {
  const receiver = await startWebhookReceiver();
  const workers: NodeProcess[] = [];
  try {
    return await onGateway(
      config,
      ID,
      fleet,
      async (gateway, merchants) => {
        await registerEndpoints(gateway, merchants, receiver);
        for (let index = 0; index < WORKERS; index++) workers.push(startWorker(`worker ${index + 1}`, fleet.databaseUrl, { WEBHOOK_ALLOW_PRIVATE: 'true' }));

        const charges = await mapConcurrently(
          Array.from({ length: config.webhookPayments }, (_, index) => index),
          config.connections,
          async (index) => {
            const merchant = merchantOf(merchants, index);
            const charge = await expectJson<{ transactionId: string }>(201, gateway.url, 'POST', '/v1/pix', {
              token: merchant.apiKey,
              body: JSON.parse(chargeBody),
            });
            return { merchant, transactionId: charge.transactionId };
          },
        );
        await sleep(1000); // the workers are up and polling before the clock starts

        const answeredAt = new Map<string, number>();
        const statusCodes: Record<string, number> = {};
        const meters = [...scenarioMeters(gateway, fleet.backend), ...workers.map((worker) => processCpu('workers', worker.pid))];
        const endCpuWindow = startCpuWindow(meters);
        const firstPayAt = epochMillis();
        await mapConcurrently(charges, config.connections, async ({ merchant, transactionId }) => {
          const reply = await callJson(gateway.url, 'POST', `/sandbox/v1/pix/${transactionId}/pay`, { token: merchant.apiKey });
          statusCodes[reply.status] = (statusCodes[reply.status] ?? 0) + 1;
          if (reply.status >= 200 && reply.status < 300) answeredAt.set(transactionId, epochMillis());
        });
        const lastPayAt = epochMillis();
        await awaitDeliveries(receiver, answeredAt.size);
        const cpu = endCpuWindow();

        const paidDeliveries = [...receiver.deliveries.values()].filter((delivery) => delivery.event === PAID_EVENT && answeredAt.has(delivery.transactionId));
        const latencies = paidDeliveries
          .map((delivery) => delivery.receivedAt - (delivery.occurredAt ?? answeredAt.get(delivery.transactionId) ?? delivery.receivedAt))
          .sort((a, b) => a - b);
        const lastDeliveryAt = Math.max(...paidDeliveries.map((delivery) => delivery.receivedAt), firstPayAt);
        const seconds = (lastDeliveryAt - firstPayAt) / 1000;
        const fromOccurredAt = paidDeliveries.some((delivery) => delivery.occurredAt !== null);
        const non2xx = Object.entries(statusCodes).reduce((sum, [code, count]) => (code.startsWith('2') ? sum : sum + count), 0);
        const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);
        return {
          id: ID,
          title: TITLE,
          database: fleet.backend,
          requestsPerSecond: seconds > 0 ? paidDeliveries.length / seconds : null,
          unit: 'deliveries/s',
          p50Ms: round(percentile(latencies, 50)),
          p99Ms: round(percentile(latencies, 99)),
          non2xx,
          errors: answeredAt.size - paidDeliveries.length,
          statusCodes,
          // Pay call and delivery together, per delivered event (both workers summed).
          cpuMsPerRequest: millisecondsPer(cpu, paidDeliveries.length),
          othersPercentOfCore: cpu.othersPercentOfCore,
          target: null,
          baseline: null,
          checks: [],
          notes: [
            `${paidDeliveries.length.toLocaleString('en-US')} of ${answeredAt.size.toLocaleString('en-US')} paid charges delivered (errors = not delivered within ${QUIET_LIMIT_MS / 1000} s of the last one)`,
            `pay calls: ${(answeredAt.size / ((lastPayAt - firstPayAt) / 1000)).toFixed(0)}/s; ${WORKERS} worker processes; latency from ${fromOccurredAt ? "the event's occurredAt" : 'the pay call answer'}`,
            ...(receiver.duplicates() ? [`${receiver.duplicates()} duplicate deliveries`] : []),
            ...(receiver.malformed() ? [`${receiver.malformed()} deliveries without transactionId/event`] : []),
            `worker peak RSS: ${workers.map((worker) => `${((worker.peakRssBytes() ?? 0) / 2 ** 20).toFixed(0)} MiB`).join(', ')}`,
            ...workers
              .filter((worker) => !worker.running())
              .map((worker) => `${worker.name} exited: ${worker.output().trim().split('\n').slice(-3).join(' / ')}`),
          ],
        };
      },
      { WEBHOOK_ALLOW_PRIVATE: 'true' },
    );
  } catch (error) {
    if (error instanceof WebhooksUnavailable) return unavailableScenario(ID, TITLE, fleet.backend, `n/a (webhooks not available: ${error.message})`);
    throw error;
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await receiver.close();
  }
}

const DRAIN_ID = '5b';
const DRAIN_TITLE = 'webhook backlog drained by 2 workers';
const DRAIN_START_DELAY_MS = 15_000;

/**
 * Scenario 5b: delivery throughput alone. Charges are paid while no worker runs, so their
 * `transaction.paid` deliveries wait in the outbox; two worker processes start, and the backlog
 * falls due once they are up. The rate is deliveries over the time from the first to the last
 * one received: what dispatching sustains, not what paying does.
 */
export async function webhookDrainScenario(config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> {
  const receiver = await startWebhookReceiver();
  const workers: NodeProcess[] = [];
  try {
    return await onGateway(
      config,
      DRAIN_ID,
      fleet,
      async (gateway, merchants) => {
        await registerEndpoints(gateway, merchants, receiver);
        const charges = await mapConcurrently(
          Array.from({ length: config.webhookPayments }, (_, index) => index),
          config.connections,
          async (index) => {
            const merchant = merchantOf(merchants, index);
            const charge = await expectJson<{ transactionId: string }>(201, gateway.url, 'POST', '/v1/pix', {
              token: merchant.apiKey,
              body: JSON.parse(chargeBody),
            });
            await expectJson(200, gateway.url, 'POST', `/sandbox/v1/pix/${charge.transactionId}/pay`, { token: merchant.apiKey });
            return charge.transactionId;
          },
        );

        // The backlog falls due at once a few seconds from now, when both workers are up: the
        // figure is dispatch alone, not process start-up.
        await queryDatabase(fleet.databaseUrl, `UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => $1) WHERE status = 'pending'`, [
          DRAIN_START_DELAY_MS / 1000,
        ]);
        for (let index = 0; index < WORKERS; index++) workers.push(startWorker(`worker ${index + 1}`, fleet.databaseUrl, { WEBHOOK_ALLOW_PRIVATE: 'true' }));
        await sleep(DRAIN_START_DELAY_MS - 500);
        const endCpuWindow = startCpuWindow([...scenarioMeters(gateway, fleet.backend), ...workers.map((worker) => processCpu('workers', worker.pid))]);
        await awaitDeliveries(receiver, charges.length);
        const cpu = endCpuWindow();

        const received = [...receiver.deliveries.values()]
          .filter((delivery) => delivery.event === PAID_EVENT)
          .map((delivery) => delivery.receivedAt)
          .sort((a, b) => a - b);
        const seconds = received.length > 1 ? ((received.at(-1) ?? 0) - (received[0] ?? 0)) / 1000 : 0;
        return {
          id: DRAIN_ID,
          title: DRAIN_TITLE,
          database: fleet.backend,
          requestsPerSecond: seconds > 0 ? (received.length - 1) / seconds : null,
          unit: 'deliveries/s',
          p50Ms: null,
          p99Ms: null,
          non2xx: 0,
          errors: charges.length - received.length,
          statusCodes: {},
          cpuMsPerRequest: millisecondsPer(cpu, received.length),
          othersPercentOfCore: cpu.othersPercentOfCore,
          target: null,
          baseline: null,
          checks: [],
          notes: [
            `${received.length.toLocaleString('en-US')} of ${charges.length.toLocaleString('en-US')} queued deliveries received in ${seconds.toFixed(2)} s by ${WORKERS} worker processes (target ≥ 1,000/s)`,
            ...(receiver.duplicates() ? [`${receiver.duplicates()} duplicate deliveries`] : []),
          ],
        };
      },
      { WEBHOOK_ALLOW_PRIVATE: 'true' },
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await receiver.close();
  }
}
