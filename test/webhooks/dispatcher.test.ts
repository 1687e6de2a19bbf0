import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { claimDueDeliveries, recordAttempts } from '../../src/webhooks/repository.js';
import { paidCharge, registerEndpoint } from '../helpers/api.js';
import { backend, serverUrl, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Several dispatchers on one database: each attempt is made once, and a dispatcher that dies
 * mid-attempt loses nothing. Real concurrency is proved on the PostgreSQL server (PGlite runs one
 * transaction at a time, so there the same code is exercised without contention).
 */
/** WEBHOOK_TIMEOUT_MS below, and the lease it gives a claim (2 × timeout + 5 s). */
const TIMEOUT_MS = 2000;
const LEASE_MS = 2 * TIMEOUT_MS + 5000;
let gateway: Gateway;
let receiver: Receiver;
const logger = { error: (...args: unknown[]) => console.error(...args), warn: () => undefined };

beforeAll(async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
  receiver = await startReceiver();
});
afterAll(async () => {
  await gateway.close();
  await receiver.close();
});
afterEach(async () => {
  await gateway.services.webhookDispatcher.stop();
  receiver.answerWith(() => ({ status: 200 }));
});

async function paidCharges(merchant: Merchant, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(await paidCharge(gateway, merchant));
  return ids;
}

const deliveriesOf = (accountId: string) =>
  gateway.database.db.selectFrom('webhookDeliveries').select(['id', 'status', 'attemptCount']).where('accountId', '=', accountId).execute();
const attemptCount = async (accountId: string) =>
  (await gateway.database.db.selectFrom('webhookAttempts').select('id').where('accountId', '=', accountId).execute()).length;

describe(`several workers (${backend})`, () => {
  it('two workers deliver every attempt exactly once', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 1000 } });
    for (const path of ['/w1', '/w2']) {
      await registerEndpoint(gateway, merchant, { url: receiver.url(path) });
    }
    await paidCharges(merchant, 40);
    // Slow answers keep attempts in flight so both workers claim at the same time.
    receiver.answerWith(() => ({ status: 200, delayMs: 20 }));
    const second = await gateway.startWorkerServices();
    try {
      gateway.services.webhookDispatcher.start(logger);
      second.services.webhookDispatcher.start(logger);
      await receiver.waitFor(80, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // room for a duplicate to show up
    } finally {
      // Stopping waits for attempts in flight to be recorded.
      await Promise.all([second.close(), gateway.services.webhookDispatcher.stop()]);
    }
    const keys = receiver.received
      .filter((request) => request.path === '/w1' || request.path === '/w2')
      .map((request) => `${request.path} ${String(request.headers['x-svc-event-id'])}`);
    expect(keys).toHaveLength(80);
    expect(new Set(keys).size).toBe(80);
    const deliveries = await deliveriesOf(merchant.accountId);
    expect(deliveries).toHaveLength(80);
    expect(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attemptCount === 1)).toBe(true);
    expect(await attemptCount(merchant.accountId)).toBe(80);
  });

  it("a worker's lapsed lease gives its deliveries back; its late answer writes nothing", async () => {
    const merchant = await gateway.createMerchant();
    await registerEndpoint(gateway, merchant, { url: receiver.url('/lease') });
    await paidCharges(merchant, 3);
    const now = gateway.clock.now();
    const deadLease = newId();
    // A worker claims the deliveries and dies before answering (its lease: 2 × 2 s + 5 s).
    const claimed = await claimDueDeliveries(gateway.database.db, deadLease, now, new Date(now.getTime() + LEASE_MS), 100);
    expect(claimed.filter((delivery) => delivery.accountId === merchant.accountId)).toHaveLength(3);

    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received.filter((request) => request.path === '/lease')).toHaveLength(0);

    gateway.clock.advance(LEASE_MS + 1);
    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received.filter((request) => request.path === '/lease')).toHaveLength(3);
    const deliveries = await deliveriesOf(merchant.accountId);
    expect(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attemptCount === 1)).toBe(true);

    // The dead worker comes back with an answer: its lease is gone, nothing is written.
    const late = await recordAttempts(
      gateway.database.db,
      [
        {
          deliveryId: claimed[0]!.id,
          leaseId: deadLease,
          attemptId: newId(),
          url: 'x',
          attemptedAt: now,
          durationMs: 1,
          httpStatus: 500,
          error: null,
          status: 'pending',
          nextAttemptAt: now,
        },
      ],
      now,
    );
    expect(late.size).toBe(0);
    expect(await attemptCount(merchant.accountId)).toBe(3);
  });
});

describe.runIf(serverUrl)('a worker process killed mid-attempt (PostgreSQL server)', () => {
  it('loses nothing: another worker delivers once the lease ends', async () => {
    const merchant = await gateway.createMerchant();
    await registerEndpoint(gateway, merchant, { url: receiver.url('/killed') });
    receiver.answerWith((request) => (request.path === '/killed' ? 'hang' : { status: 200 }));

    const url = new URL(serverUrl!);
    url.searchParams.set('options', `-c search_path=${gateway.schema}`);
    // A long timeout (lease 45 s): the attempt is still in flight when the process dies.
    const child = spawn(process.execPath, ['dist/cli.js', 'worker'], {
      env: { ...process.env, ...gateway.environment, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent', WEBHOOK_TIMEOUT_MS: '20000' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await paidCharges(merchant, 1);
      await receiver.waitFor(receiver.received.length + 1, 30_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(await attemptCount(merchant.accountId)).toBe(0);
    const [pending] = await deliveriesOf(merchant.accountId);
    expect(pending).toMatchObject({ status: 'pending', attemptCount: 0 });

    // The dead worker's lease still runs: nobody else takes the delivery until it ends.
    receiver.answerWith(() => ({ status: 200 }));
    const { nextAttemptAt: leaseEnd } = await gateway.database.db
      .selectFrom('webhookDeliveries')
      .select('nextAttemptAt')
      .where('id', '=', pending!.id)
      .executeTakeFirstOrThrow();
    expect(leaseEnd.getTime()).toBeGreaterThan(gateway.clock.now().getTime());
    await gateway.services.webhookDispatcher.deliverDue();
    expect(receiver.received.filter((request) => request.path === '/killed')).toHaveLength(1);
    gateway.clock.advance(leaseEnd.getTime() - gateway.clock.now().getTime() + 1);
    await gateway.services.webhookDispatcher.deliverDue();
    const deliveries = receiver.received.filter((request) => request.path === '/killed');
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]!.headers['x-svc-event-id']).toBe(deliveries[0]!.headers['x-svc-event-id']);
    expect(await deliveriesOf(merchant.accountId)).toMatchObject([{ status: 'succeeded', attemptCount: 1 }]);
  }, 60_000);
});
