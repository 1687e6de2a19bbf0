import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer } from '../../src/operations/routes.js';
import { paidCharge } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** /metrics as a Prometheus server reads it: parsed by a real text-format parser. */
let gateway: Gateway;
let merchant: Merchant;
let receiver: Receiver;

beforeAll(async () => {
  gateway = await startGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  merchant = await gateway.createMerchant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await gateway.close();
});

async function scrape() {
  const response = await fetch(`${gateway.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await response.text());
  return (name: string) => families.find((family) => family.name === name);
}

describe('/metrics (no key needed)', () => {
  it('counts requests and their durations by route template and status, never by raw URL', async () => {
    await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    await gateway.call('GET', '/v1/balance');
    await gateway.call('GET', `/v1/transactions/${'0'.repeat(8)}-0000-7000-8000-000000000000`, { key: merchant.apiKey });
    const family = await scrape();
    const requests = family('pix_gateway_http_requests_total');
    expect(requests?.type).toBe('COUNTER');
    const count = (route: string, status: string) =>
      Number(
        requests?.metrics.find((sample) => sample.labels?.route === route && sample.labels.status === status && sample.labels.method === 'GET')?.value ?? 0,
      );
    expect(count('/v1/balance', '200')).toBeGreaterThanOrEqual(1);
    expect(count('/v1/balance', '401')).toBeGreaterThanOrEqual(1);
    expect(count('/v1/transactions/:id', '404')).toBeGreaterThanOrEqual(1);
    expect(requests?.metrics.some((sample) => sample.labels?.route?.includes('0000-7000'))).toBe(false);
    const durations = family('pix_gateway_http_request_duration_seconds');
    expect(durations?.type).toBe('HISTOGRAM');
    // This text parser merges a histogram's series (buckets without labels): the labels are checked on the registry itself.
    expect(new Set(Object.keys(durations?.metrics[0]?.buckets ?? {}))).toEqual(
      new Set(['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']),
    );
    const histogram = (await gateway.services.metrics.registry.getMetricsAsJSON()).find(
      (metric) => metric.name === 'pix_gateway_http_request_duration_seconds',
    );
    const balanceCount = histogram?.values.find(
      (value) =>
        'metricName' in value &&
        value.metricName === 'pix_gateway_http_request_duration_seconds_count' &&
        value.labels.route === '/v1/balance' &&
        value.labels.status === '200',
    );
    expect(balanceCount?.value).toBeGreaterThanOrEqual(1);
  });

  it('shows the database pool', async () => {
    const pool = (await scrape())('pix_gateway_db_pool_connections');
    expect(pool?.type).toBe('GAUGE');
    expect(pool?.metrics.map((sample) => sample.labels?.state).sort()).toEqual(['idle', 'in_use', 'total', 'waiting']);
    expect(Number(pool?.metrics.find((sample) => sample.labels?.state === 'total')?.value)).toBeGreaterThanOrEqual(1);
  });

  it('shows the outbox backlog and its age, then the deliveries by outcome once delivered', async () => {
    await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints`, { url: receiver.url('/metrics') });
    await paidCharge(gateway, merchant);
    gateway.clock.advance(5_000);
    let family = await scrape();
    expect(Number(family('pix_gateway_webhook_deliveries_due')?.metrics[0]?.value)).toBe(1);
    expect(Number(family('pix_gateway_webhook_oldest_due_seconds')?.metrics[0]?.value)).toBeGreaterThanOrEqual(5);

    await gateway.services.webhookDispatcher.deliverDue();
    family = await scrape();
    expect(Number(family('pix_gateway_webhook_deliveries_due')?.metrics[0]?.value)).toBe(0);
    expect(Number(family('pix_gateway_webhook_oldest_due_seconds')?.metrics[0]?.value)).toBe(0);
    const attempts = family('pix_gateway_webhook_attempts_total');
    expect(Number(attempts?.metrics.find((sample) => sample.labels?.outcome === 'delivered')?.value)).toBe(1);
  });

  it('counts the running MED cases', async () => {
    const other = await gateway.createMerchant();
    const before = Number((await scrape())('pix_gateway_med_cases_open')?.metrics[0]?.value);
    const first = await paidCharge(gateway, other);
    const second = await paidCharge(gateway, other);
    const open = (id: string) => gateway.call('POST', `/sandbox/v1/pix/${id}/infraction`, { key: other.apiKey, body: { reason: 'fraud', amountCents: 100 } });
    const cases = [(await open(first)).body.infractionId, (await open(second)).body.infractionId];
    expect(Number((await scrape())('pix_gateway_med_cases_open')?.metrics[0]?.value)).toBe(before + 2);
    expect((await gateway.admin('POST', `/admin/v1/infractions/${cases[0]}/reject`)).status).toBe(200);
    const family = (await scrape())('pix_gateway_med_cases_open');
    expect(family?.type).toBe('GAUGE');
    expect(Number(family?.metrics[0]?.value)).toBe(before + 1);
  });

  it('includes the process metrics (memory, CPU, event loop)', async () => {
    const family = await scrape();
    expect(family('pix_gateway_process_resident_memory_bytes')).toBeDefined();
    expect(family('pix_gateway_nodejs_eventloop_lag_seconds')).toBeDefined();
  });
});

describe('METRICS_PORT', () => {
  it('moves /metrics off the API port onto a port of its own', async () => {
    const probe = await startReceiver(); // a free port: take it, then give it back
    const port = Number(new URL(probe.url('/')).port);
    await probe.close();
    const separate = await startGateway({ METRICS_PORT: String(port) });
    try {
      expect(await separate.call('GET', '/metrics')).toMatchObject({ status: 404, body: { error: 'Rota não encontrada.' } });
      const server = await startMetricsServer(separate.services.metrics, port, '127.0.0.1');
      try {
        const response = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(response.status).toBe(200);
        expect(parsePrometheusTextFormat(await response.text()).some((family) => family.name === 'pix_gateway_http_requests_total')).toBe(true);
      } finally {
        await server.close();
      }
    } finally {
      await separate.close();
    }
  });
});
