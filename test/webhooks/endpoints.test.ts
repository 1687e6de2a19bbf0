import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCharge, readTransaction } from '../helpers/api.js';
import { backend, chargeBody, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const endpoints = (merchant: Merchant) => `/admin/v1/accounts/${merchant.accountId}/webhook-endpoints` as const;
const register = (merchant: Merchant, body: unknown) => gateway.admin('POST', endpoints(merchant), body);

describe('registering webhook endpoints (operator API)', () => {
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await gateway.createMerchant();
  });

  const rows: [string, unknown, number, string][] = [
    ['no body', undefined, 400, 'Corpo da requisição deve ser um objeto JSON.'],
    ['url missing', { events: ['cashin'] }, 400, 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).'],
    ['url not a URL', { url: 'hooks.example.com/pix' }, 400, 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).'],
    ['http URL', { url: 'http://hooks.example.com/pix' }, 400, 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).'],
    ['ftp URL', { url: 'ftp://hooks.example.com/pix' }, 400, 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).'],
    ['credentials in the URL', { url: 'https://user:pass@hooks.example.com/pix' }, 400, 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).'],
    ['URL over 2048', { url: `https://hooks.example.com/${'a'.repeat(2030)}` }, 400, 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).'],
    ['loopback', { url: 'https://127.0.0.1/pix' }, 400, 'url deve apontar para um endereço público.'],
    ['private', { url: 'https://10.1.2.3/pix' }, 400, 'url deve apontar para um endereço público.'],
    ['metadata', { url: 'https://169.254.169.254/latest' }, 400, 'url deve apontar para um endereço público.'],
    ['CGNAT', { url: 'https://100.64.1.1/pix' }, 400, 'url deve apontar para um endereço público.'],
    ['IPv6 loopback', { url: 'https://[::1]/pix' }, 400, 'url deve apontar para um endereço público.'],
    ['IPv4-mapped IPv6', { url: 'https://[::ffff:10.0.0.1]/pix' }, 400, 'url deve apontar para um endereço público.'],
    ['localhost', { url: 'https://localhost/pix' }, 400, 'url deve apontar para um endereço público.'],
    [
      'events not a list',
      { url: 'https://hooks.example.com/pix', events: 'cashin' },
      400,
      'events deve ser uma lista (até 50) de nomes de eventos ou categorias.',
    ],
    [
      'unknown event',
      { url: 'https://hooks.example.com/pix', events: ['cashin', 'transaction.created'] },
      400,
      "events contém um evento ou categoria desconhecido: 'transaction.created'.",
    ],
    ['event not a string', { url: 'https://hooks.example.com/pix', events: [42] }, 400, "events contém um evento ou categoria desconhecido: '42'."],
  ];
  for (const [name, body, status, error] of rows) {
    it(`refuses ${name}`, async () => {
      expect(await register(merchant, body)).toMatchObject({ status, body: { error } });
    });
  }

  it('normalizes the filter: categories and canonical names kept, former names mapped, duplicates dropped', async () => {
    const created = await register(merchant, {
      url: 'https://hooks.example.com/a',
      events: [
        'cashout',
        'med.opened',
        'transaction.infraction',
        'chargeback.applied',
        'transaction.refunded.partial',
        'funds.blocked',
        'protest.opened',
        'dispute.opened',
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual([
      'cashout',
      'transaction.infraction',
      'transaction.chargeback',
      'transaction.partially_refunded',
      'transaction.blocked',
      'transaction.protest',
      'transaction.dispute',
    ]);
    expect(created.body).toMatchObject({ url: 'https://hooks.example.com/a', previousSecretExpiresAt: null, createdAt: expect.any(Number) });
    const read = await gateway.admin('GET', `${endpoints(merchant)}/${created.body.endpointId}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body.events).toEqual(created.body.events);
  });

  it('keeps the secret encrypted at rest', async () => {
    const created = await register(merchant, { url: 'https://hooks.example.com/b' });
    const row = await gateway.database.db.selectFrom('webhookEndpoints').selectAll().where('id', '=', created.body.endpointId).executeTakeFirstOrThrow();
    const secretBytes = created.body.secret.slice('whsec_'.length);
    expect(JSON.stringify(row)).not.toContain(secretBytes);
    expect(row.secretEncrypted).toMatch(/^v1:/);
  });
});

describe('at most 6 URLs per account', () => {
  it('refuses the 7th with 422, counts only live endpoints, and lists them oldest first', async () => {
    const merchant = await gateway.createMerchant();
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      const created = await register(merchant, { url: `https://hooks.example.com/${index}` });
      expect(created.status).toBe(201);
      ids.push(created.body.endpointId);
    }
    expect(await register(merchant, { url: 'https://hooks.example.com/7' })).toMatchObject({
      status: 422,
      body: { error: 'Limite de 6 URLs de webhook atingido.' },
    });
    const list = await gateway.admin('GET', endpoints(merchant));
    expect(list.body.count).toBe(6);
    expect(list.body.endpoints.map((endpoint: { endpointId: string }) => endpoint.endpointId)).toEqual(ids);
    expect(list.body.endpoints.every((endpoint: object) => !('secret' in endpoint))).toBe(true);

    expect((await gateway.admin('DELETE', `${endpoints(merchant)}/${ids[0]}`)).status).toBe(204);
    expect(await gateway.admin('DELETE', `${endpoints(merchant)}/${ids[0]}`)).toMatchObject({
      status: 404,
      body: { error: 'Endpoint de webhook não encontrado.' },
    });
    expect(await gateway.admin('GET', `${endpoints(merchant)}/${ids[0]}`)).toMatchObject({
      status: 404,
      body: { error: 'Endpoint de webhook não encontrado.' },
    });
    expect((await register(merchant, { url: 'https://hooks.example.com/7' })).status).toBe(201);
  });

  it(`holds under concurrent registrations (${backend})`, async () => {
    const merchant = await gateway.createMerchant();
    const replies = await Promise.all(Array.from({ length: 15 }, (_, index) => register(merchant, { url: `https://hooks.example.com/c${index}` })));
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(6);
    expect(replies.filter((reply) => reply.status === 422)).toHaveLength(9);
    expect((await gateway.admin('GET', endpoints(merchant))).body.count).toBe(6);
  });

  it('endpoints belong to their account', async () => {
    const [owner, other] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const created = await register(owner, { url: 'https://hooks.example.com/own' });
    expect((await gateway.admin('GET', `${endpoints(other)}/${created.body.endpointId}`)).status).toBe(404);
    expect((await gateway.admin('DELETE', `${endpoints(other)}/${created.body.endpointId}`)).status).toBe(404);
    expect((await gateway.admin('GET', endpoints(other))).body.count).toBe(0);
  });

  it('answers 400 / 404 for bad or unknown ids, 401 without the operator token', async () => {
    const unknownAccount = '01966b8e-7c5a-7000-8000-000000000000';
    expect(await gateway.admin('POST', `/admin/v1/accounts/${unknownAccount}/webhook-endpoints`, { url: 'https://hooks.example.com/x' })).toMatchObject({
      status: 404,
      body: { error: 'Conta não encontrada.' },
    });
    expect(await gateway.admin('GET', `/admin/v1/accounts/${unknownAccount}/webhook-endpoints`)).toMatchObject({
      status: 404,
      body: { error: 'Conta não encontrada.' },
    });
    expect(await gateway.admin('GET', `/admin/v1/accounts/${unknownAccount}/webhook-deliveries`)).toMatchObject({
      status: 404,
      body: { error: 'Conta não encontrada.' },
    });
    expect(await gateway.admin('GET', '/admin/v1/accounts/abc/webhook-endpoints')).toMatchObject({ status: 400, body: { error: 'accountId inválido.' } });
    const merchant = await gateway.createMerchant();
    expect(await gateway.admin('GET', `${endpoints(merchant)}/abc`)).toMatchObject({ status: 400, body: { error: 'endpointId inválido.' } });
    expect(await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-deliveries?eventId=x`)).toMatchObject({
      status: 400,
      body: { error: 'eventId inválido.' },
    });
    expect(await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-deliveries?transactionId=x`)).toMatchObject({
      status: 400,
      body: { error: 'transactionId inválido.' },
    });
    expect(await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}/webhook-deliveries?limit=0`)).toMatchObject({
      status: 400,
      body: { error: 'limit deve ser um inteiro entre 1 e 100.' },
    });
    const anonymous = await gateway.call('POST', endpoints(merchant), { body: { url: 'https://hooks.example.com/x' } });
    expect(anonymous.status).toBe(401);
    const withMerchantKey = await gateway.call('GET', endpoints(merchant), { key: merchant.apiKey });
    expect(withMerchantKey.status).toBe(401);
  });
});

describe('events and deliveries are written with the change', () => {
  it('queues one delivery per matching endpoint in the transaction of the status change', async () => {
    const merchant = await gateway.createMerchant();
    await register(merchant, { url: 'https://hooks.example.com/all' });
    await register(merchant, { url: 'https://hooks.example.com/cashout', events: ['cashout'] });
    const charge = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    const transactionId = charge.body.transactionId;
    const deliveriesOf = () => gateway.database.db.selectFrom('webhookDeliveries').selectAll().where('transactionId', '=', transactionId).execute();
    expect(await deliveriesOf()).toEqual([]); // a new charge is no status change
    expect((await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey })).status).toBe(200);
    const deliveries = await deliveriesOf();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ status: 'pending', attemptCount: 0, accountId: merchant.accountId });
    expect(deliveries[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // A refused change (paying twice) writes neither event nor delivery.
    expect((await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey })).status).toBe(422);
    expect(await deliveriesOf()).toHaveLength(1);
    const events = await gateway.database.db.selectFrom('events').select('id').where('transactionId', '=', transactionId).execute();
    expect(events.map((event) => event.id)).toEqual([deliveries[0]!.eventId]);
  });

  it('removing an endpoint stops its pending deliveries and keeps its history', async () => {
    const merchant = await gateway.createMerchant();
    const created = await register(merchant, { url: 'https://hooks.example.com/gone' });
    await paidCharge(gateway, merchant);
    expect((await gateway.admin('DELETE', `${endpoints(merchant)}/${created.body.endpointId}`)).status).toBe(204);
    const deliveries = await gateway.database.db.selectFrom('webhookDeliveries').select('status').where('endpointId', '=', created.body.endpointId).execute();
    expect(deliveries).toEqual([{ status: 'failed' }]);
  });
});

describe('60-day history', () => {
  it('purges deliveries, attempts and events older than 60 days; keeps newer ones', async () => {
    const merchant = await gateway.createMerchant();
    const created = await register(merchant, { url: 'https://hooks.example.com/old' });
    const old = await paidCharge(gateway, merchant);
    // Finished (the endpoint is gone, so its delivery stopped), then 59 days pass and a newer one is written.
    expect((await gateway.admin('DELETE', `${endpoints(merchant)}/${created.body.endpointId}`)).status).toBe(204);
    await register(merchant, { url: 'https://hooks.example.com/new' });
    gateway.clock.advance(59 * 86_400_000);
    const recent = await paidCharge(gateway, merchant);
    await gateway.database.db.updateTable('webhookDeliveries').set({ status: 'succeeded' }).where('transactionId', '=', recent).execute();
    const countFor = async (transactionId: string) => ({
      deliveries: (await gateway.database.db.selectFrom('webhookDeliveries').select('id').where('transactionId', '=', transactionId).execute()).length,
      events: (await gateway.database.db.selectFrom('events').select('id').where('transactionId', '=', transactionId).execute()).length,
    });

    expect(await gateway.services.webhooks.purgeHistory()).toBe(0);
    gateway.clock.advance(1 * 86_400_000 + 1000);
    expect(await gateway.services.webhooks.purgeHistory()).toBeGreaterThanOrEqual(1);
    expect(await countFor(old)).toEqual({ deliveries: 0, events: 0 });
    expect(await countFor(recent)).toEqual({ deliveries: 1, events: 1 });
    // The transaction itself stays readable.
    expect((await readTransaction(gateway, merchant, old)).status).toBe('paid');
  });
});
