import { isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrCodeFields } from '../../src/pix/brcode.js';
import { balanceOf, readTransaction, startNextHour } from '../helpers/api.js';
import { chargeBody, customerWith, PUBLIC_HOST, startGateway, validCustomer, type Gateway, type Merchant } from '../helpers/gateway.js';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const HOUR = 3_600_000;
const DAY = 86_400_000;

const documentWith = (document: unknown) => customerWith({ document });

describe('POST /v1/pix validation (one row per rule, in the order of the spec)', () => {
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await gateway.createMerchant();
  });

  const amountMessage = 'amountCents deve ser inteiro ≥ 100 (R$1,00 mínimo).';
  const rows: [string, unknown, string][] = [
    ['amount missing', { customer: validCustomer() }, amountMessage],
    ['amount below 100', chargeBody({ amountCents: 99 }), amountMessage],
    ['amount zero', chargeBody({ amountCents: 0 }), amountMessage],
    ['amount negative', chargeBody({ amountCents: -500 }), amountMessage],
    ['amount fractional', chargeBody({ amountCents: 100.5 }), amountMessage],
    ['amount as string', chargeBody({ amountCents: '1000' }), amountMessage],
    ['amount null', chargeBody({ amountCents: null }), amountMessage],
    ['amount error comes before customer errors', { amountCents: 1, customer: {} }, amountMessage],
    ['customer missing', { amountCents: 1000 }, 'customer.name obrigatório.'],
    ['customer.name missing', chargeBody({ customer: customerWith({ name: undefined }) }), 'customer.name obrigatório.'],
    ['customer.name blank', chargeBody({ customer: customerWith({ name: '   ' }) }), 'customer.name obrigatório.'],
    ['customer.name not a string', chargeBody({ customer: customerWith({ name: 42 }) }), 'customer.name obrigatório.'],
    ['customer.name over 100', chargeBody({ customer: customerWith({ name: 'a'.repeat(101) }) }), 'customer.name deve ter no máximo 100 caracteres.'],
    ['name error comes before document errors', chargeBody({ customer: { document: {} } }), 'customer.name obrigatório.'],
    ['document missing', chargeBody({ customer: customerWith({ document: undefined }) }), 'customer.document.number e customer.document.type obrigatórios.'],
    ['document number and type missing', chargeBody({ customer: documentWith({}) }), 'customer.document.number e customer.document.type obrigatórios.'],
    ['document number missing', chargeBody({ customer: documentWith({ type: 'cpf' }) }), 'customer.document.number e customer.document.type obrigatórios.'],
    ['document type missing', chargeBody({ customer: documentWith({ number: '52998224725' }) }), 'customer.document.type é obrigatório.'],
    ['document type blank', chargeBody({ customer: documentWith({ number: '52998224725', type: ' ' }) }), 'customer.document.type é obrigatório.'],
    [
      'document type invalid',
      chargeBody({ customer: documentWith({ number: '52998224725', type: 'rg' }) }),
      "customer.document.type deve ser 'cpf' ou 'cnpj'. Recebido: 'rg'.",
    ],
    [
      'cpf with 10 digits',
      chargeBody({ customer: documentWith({ number: '529.982.247-2', type: 'cpf' }) }),
      'customer.document.number deve ter 11 dígitos para cpf. Recebido: 10 dígitos.',
    ],
    [
      'cpf with 14 digits',
      chargeBody({ customer: documentWith({ number: '11222333000181', type: 'cpf' }) }),
      'customer.document.number deve ter 11 dígitos para cpf. Recebido: 14 dígitos.',
    ],
    [
      'cnpj with 11 digits',
      chargeBody({ customer: documentWith({ number: '52998224725', type: 'CNPJ' }) }),
      'customer.document.number deve ter 14 dígitos para cnpj. Recebido: 11 dígitos.',
    ],
    [
      'document with letters',
      chargeBody({ customer: documentWith({ number: '5299822472A', type: 'cpf' }) }),
      'customer.document.number deve conter apenas dígitos, pontos, traços e barras.',
    ],
    [
      'document error comes before email errors',
      chargeBody({ customer: customerWith({ document: { number: '1', type: 'cpf' }, email: 'x' }) }),
      'customer.document.number deve ter 11 dígitos para cpf. Recebido: 1 dígitos.',
    ],
    ['email missing', chargeBody({ customer: customerWith({ email: undefined }) }), 'customer.email é obrigatório e deve ser válido.'],
    ['email invalid', chargeBody({ customer: customerWith({ email: 'ana@' }) }), 'customer.email é obrigatório e deve ser válido.'],
    [
      'email over 254',
      chargeBody({ customer: customerWith({ email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` }) }),
      'customer.email é obrigatório e deve ser válido.',
    ],
    ['phone missing', chargeBody({ customer: customerWith({ phone: undefined }) }), 'customer.phone é obrigatório (DDD + número, 10 ou 11 dígitos).'],
    ['phone with 9 digits', chargeBody({ customer: customerWith({ phone: '119876543' }) }), 'customer.phone é obrigatório (DDD + número, 10 ou 11 dígitos).'],
    [
      'phone with 12 digits',
      chargeBody({ customer: customerWith({ phone: '551198765432' }) }),
      'customer.phone é obrigatório (DDD + número, 10 ou 11 dígitos).',
    ],
    [
      'phone with formatting',
      chargeBody({ customer: customerWith({ phone: '(11) 98765-4321' }) }),
      'customer.phone é obrigatório (DDD + número, 10 ou 11 dígitos).',
    ],
    ['phone as number', chargeBody({ customer: customerWith({ phone: 11987654321 }) }), 'customer.phone é obrigatório (DDD + número, 10 ou 11 dígitos).'],
    ['externalRef empty', chargeBody({ externalRef: '' }), 'externalRef deve ser um texto de 1 a 100 caracteres.'],
    ['externalRef over 100', chargeBody({ externalRef: 'r'.repeat(101) }), 'externalRef deve ser um texto de 1 a 100 caracteres.'],
    ['externalRef not a string', chargeBody({ externalRef: 7 }), 'externalRef deve ser um texto de 1 a 100 caracteres.'],
    ['expiresInDays 0', chargeBody({ expiresInDays: 0 }), 'expiresInDays deve ser um inteiro entre 1 e 30.'],
    ['expiresInDays 31', chargeBody({ expiresInDays: 31 }), 'expiresInDays deve ser um inteiro entre 1 e 30.'],
    ['expiresInDays fractional', chargeBody({ expiresInDays: 1.5 }), 'expiresInDays deve ser um inteiro entre 1 e 30.'],
    ['expiresInDays as string', chargeBody({ expiresInDays: '2' }), 'expiresInDays deve ser um inteiro entre 1 e 30.'],
    ['amount above the default maximum', chargeBody({ amountCents: 10_000_001 }), 'Valor acima do máximo (R$ 100.000,00).'],
    ['amount far above any maximum', chargeBody({ amountCents: 1e20 }), 'Valor acima do máximo (R$ 100.000,00).'],
  ];

  it.each(rows)('%s → 400', async (_name, body, message) => {
    const reply = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
  });

  it('creates nothing when validation fails', async () => {
    const list = await gateway.call('GET', '/v1/transactions', { key: merchant.apiKey });
    expect(list.body.count).toBe(0);
  });

  it("uses the account's own minimum and maximum, in Brazilian format", async () => {
    const limited = await gateway.createMerchant({ limits: { chargeMinCents: 500, chargeMaxCents: 123_456 } });
    const below = await gateway.call('POST', '/v1/pix', { key: limited.apiKey, body: chargeBody({ amountCents: 499 }) });
    expect(below).toMatchObject({ status: 400, body: { error: 'Valor abaixo do mínimo (R$ 5,00).' } });
    const above = await gateway.call('POST', '/v1/pix', { key: limited.apiKey, body: chargeBody({ amountCents: 123_457 }) });
    expect(above).toMatchObject({ status: 400, body: { error: 'Valor acima do máximo (R$ 1.234,56).' } });
    const atMaximum = await gateway.call('POST', '/v1/pix', { key: limited.apiKey, body: chargeBody({ amountCents: 123_456 }) });
    expect(atMaximum.status).toBe(201);
  });
});

describe('POST /v1/pix success', () => {
  it('normalizes the document type and strips document formatting', async () => {
    const merchant = await gateway.createMerchant();
    const cases: [string, string][] = [
      ['529.982.247-25', ' CPF '],
      ['11.222.333/0001-81', 'Cnpj'],
      ['11222333000181', 'cnpj'],
    ];
    for (const [number, type] of cases) {
      const reply = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ customer: documentWith({ number, type }) }) });
      expect(reply.status).toBe(201);
      const stored = await gateway.database.db
        .selectFrom('transactions')
        .select('customer')
        .where('id', '=', reply.body.transactionId)
        .executeTakeFirstOrThrow();
      expect(stored.customer?.document).toEqual({ number: number.replace(/\D/g, ''), type: type.trim().toLowerCase() });
    }
  });

  it('answers 201 with the charge, status pending, expiry in seconds (default 2 days, or expiresInDays)', async () => {
    const merchant = await gateway.createMerchant();
    const before = gateway.clock.now().getTime();
    const reply = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 2500 }) });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(['amountCents', 'expiresAt', 'pixPayload', 'status', 'transactionId']);
    expect(reply.body.status).toBe('pending');
    expect(reply.body.amountCents).toBe(2500);
    expect(reply.body.transactionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(reply.body.expiresAt).toBeGreaterThanOrEqual(Math.floor((before + 2 * DAY) / 1000));
    expect(reply.body.expiresAt).toBeLessThanOrEqual(Math.floor((gateway.clock.now().getTime() + 2 * DAY) / 1000));

    for (const days of [1, 30]) {
      const start = gateway.clock.now().getTime();
      const custom = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ expiresInDays: days }) });
      expect(custom.status).toBe(201);
      expect(Math.abs(custom.body.expiresAt - Math.floor((start + days * DAY) / 1000))).toBeLessThanOrEqual(1);
    }
  });

  it('returns a dynamic BR Code that independent parsers accept, with our location, name and city', async () => {
    const merchant = await gateway.createMerchant({}, { name: 'Padaria São João Comércio de Pães Ltda', city: 'São José dos Campos' });
    const reply = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    const payload: string = reply.body.pixPayload;

    expect(isValidPixPayload(payload)).toBe(true);
    const parsed = parsePix(payload);
    expect(hasError(parsed)).toBe(false);
    if (hasError(parsed) || !isDynamicPix(parsed)) throw new Error('expected a dynamic PIX');
    expect(parsed.url).toMatch(new RegExp(`^${PUBLIC_HOST.replace(/\./g, '\\.')}/pix/v2/[0-9a-f]{32}$`));

    const fields = parseBrCodeFields(payload);
    expect(fields.get('00')).toBe('01');
    expect(fields.get('01')).toBe('12');
    const template = parseBrCodeFields(fields.get('26') ?? '');
    expect(template.get('00')).toBe('br.gov.bcb.pix');
    expect(template.get('25')).toBe(parsed.url);
    expect(fields.get('52')).toBe('0000');
    expect(fields.get('53')).toBe('986');
    expect(fields.get('58')).toBe('BR');
    expect(fields.get('59')).toBe('Padaria Sao Joao Comercio');
    expect(fields.get('60')).toBe('Sao Jose dos Ca');
    expect(fields.get('62')).toBe('0503***');
    expect(payload).toMatch(/6304[0-9A-F]{4}$/);
  });

  it('freezes the fee from the plan at creation; later plan changes do not touch it', async () => {
    const merchant = await gateway.createMerchant({ fees: { pixIn: { fixedCents: 10, bps: 150, minCents: 0, maxCents: 100_000 } } });
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 10_000 }) });
    // 10 + 1.5% of 100,00 = 10 + 150
    expect(await readTransaction(gateway, merchant, created.body.transactionId)).toMatchObject({ amountCents: 10_000, feeCents: 160, netCents: 9_840 });

    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { fees: { pixIn: { fixedCents: 500 } } });
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey });
    expect(paid.body).toMatchObject({ feeCents: 160, netCents: 9_840 });
    expect(await balanceOf(gateway, merchant)).toBe(9_840);

    const next = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 10_000 }) });
    expect((await readTransaction(gateway, merchant, next.body.transactionId)).feeCents).toBe(650);
  });

  it.each([
    ['minimum applies', { fixedCents: 0, bps: 99, minCents: 50, maxCents: 1000 }, 1000, 50],
    ['half rounds up', { fixedCents: 0, bps: 50, minCents: 0, maxCents: 1000 }, 101, 1],
    ['maximum applies', { fixedCents: 0, bps: 1000, minCents: 0, maxCents: 300 }, 10_000, 300],
    ['never above the amount', { fixedCents: 500, bps: 0, minCents: 0, maxCents: 1000 }, 100, 100],
  ])('fee: %s', async (_name, plan, amountCents, feeCents) => {
    const merchant = await gateway.createMerchant({ fees: { pixIn: plan } });
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents }) });
    expect(await readTransaction(gateway, merchant, created.body.transactionId)).toMatchObject({ feeCents, netCents: amountCents - feeCents });
  });
});

describe('POST /v1/pix idempotency by externalRef', () => {
  it('returns the original charge with 200 and idempotent: true, creating nothing new', async () => {
    const merchant = await gateway.createMerchant();
    const first = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'order-1' }) });
    expect(first.status).toBe(201);
    const retry = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'order-1', amountCents: 99_999 }) });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ ...first.body, idempotent: true });
    const list = await gateway.call('GET', '/v1/transactions', { key: merchant.apiKey });
    expect(list.body.count).toBe(1);
  });

  it('is scoped to the account: another merchant may use the same externalRef', async () => {
    const [a, b] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const first = await gateway.call('POST', '/v1/pix', { key: a.apiKey, body: chargeBody({ externalRef: 'shared-ref' }) });
    const second = await gateway.call('POST', '/v1/pix', { key: b.apiKey, body: chargeBody({ externalRef: 'shared-ref' }) });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.transactionId).not.toBe(first.body.transactionId);
  });

  it('shows the current status of the original charge on a retry', async () => {
    const merchant = await gateway.createMerchant();
    const first = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'paid-later' }) });
    await gateway.call('POST', `/sandbox/v1/pix/${first.body.transactionId}/pay`, { key: merchant.apiKey });
    const retry = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'paid-later' }) });
    expect(retry.body).toMatchObject({ transactionId: first.body.transactionId, status: 'paid', idempotent: true });
  });

  it('keeps the key 7 days from creation; after that the same externalRef creates a new charge', async () => {
    const merchant = await gateway.createMerchant();
    const first = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'weekly' }) });
    gateway.clock.advance(7 * DAY - 60_000);
    const withinRetention = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'weekly' }) });
    expect(withinRetention).toMatchObject({ status: 200, body: { transactionId: first.body.transactionId, idempotent: true } });
    gateway.clock.advance(120_000);
    const afterRetention = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'weekly' }) });
    expect(afterRetention.status).toBe(201);
    expect(afterRetention.body.transactionId).not.toBe(first.body.transactionId);
    const again = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'weekly' }) });
    expect(again.body).toMatchObject({ transactionId: afterRetention.body.transactionId, idempotent: true });
  });

  it('without externalRef every call creates a new charge', async () => {
    const merchant = await gateway.createMerchant();
    const a = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    const b = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.transactionId).not.toBe(b.body.transactionId);
  });
});

describe('POST /v1/pix hourly rate limit', () => {
  it('defaults to 200 per hour', async () => {
    const merchant = await gateway.createMerchant();
    const account = await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`);
    expect(account.body.limits.pixPerHour).toBe(200);
  });

  it('answers 429 past the limit, per account and not per key, and resets at the UTC hour', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 3 } });
    const secondKey = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/api-keys`);
    // Start right after an hour boundary so the whole test stays in one window.
    startNextHour(gateway);

    const keys = [merchant.apiKey, secondKey.body.apiKey, merchant.apiKey];
    for (const key of keys) expect((await gateway.call('POST', '/v1/pix', { key, body: chargeBody() })).status).toBe(201);
    const limited = await gateway.call('POST', '/v1/pix', { key: secondKey.body.apiKey, body: chargeBody() });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Limite de requisições atingido. Tente em 1 hora.' });
    expect(limited.headers.get('retry-after')).toBeNull();

    // Another account has its own counter.
    const other = await gateway.createMerchant({ limits: { pixPerHour: 3 } });
    expect((await gateway.call('POST', '/v1/pix', { key: other.apiKey, body: chargeBody() })).status).toBe(201);

    gateway.clock.advance(HOUR - 2000); // still the same UTC hour
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(429);
    gateway.clock.advance(1500); // the next UTC hour
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(201);
  });

  it('idempotent retries and rejected requests do not consume the limit', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 2 } });
    startNextHour(gateway);
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'r1' }) })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'r1' }) })).status).toBe(200);
      expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 1 }) })).status).toBe(400);
    }
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(201);
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(429);
    // A retry of a known charge still answers while the limit is reached.
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'r1' }) })).status).toBe(200);
  });

  it('refused requests do not count: a limit raised within the hour gives room at once', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 2 } });
    startNextHour(gateway);
    for (let i = 0; i < 2; i++) expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(429);

    expect((await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { limits: { pixPerHour: 3 } })).status).toBe(200);
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(201);
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(429);
    const stored = await gateway.database.db.selectFrom('transactions').select('id').where('accountId', '=', merchant.accountId).execute();
    expect(stored).toHaveLength(3);
  });

  it('a new externalRef refused by the limit is not kept: next hour it creates the charge', async () => {
    const merchant = await gateway.createMerchant({ limits: { pixPerHour: 1 } });
    startNextHour(gateway);
    expect((await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() })).status).toBe(201);
    const refused = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'late' }) });
    expect(refused).toMatchObject({ status: 429, body: { error: 'Limite de requisições atingido. Tente em 1 hora.' } });

    gateway.clock.advance(HOUR);
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'late' }) });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('idempotent');
    const stored = await gateway.database.db
      .selectFrom('transactions')
      .select('externalRef')
      .where('accountId', '=', merchant.accountId)
      .orderBy('createdAt')
      .execute();
    expect(stored.map((row) => row.externalRef)).toEqual([null, 'late']);
  });
});

describe('POST /v1/pix provider failure', () => {
  it('answers 502 and creates nothing; a retry with the same externalRef then succeeds', async () => {
    const merchant = await gateway.createMerchant();
    const armed = await gateway.call('POST', '/sandbox/v1/provider/next-charge', { key: merchant.apiKey, body: { outcome: 'provider_error' } });
    expect(armed.status).toBe(201);
    const failed = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'retry-me' }) });
    expect(failed).toMatchObject({ status: 502, body: { error: 'Erro ao comunicar com gateway. Tente novamente.' } });
    expect((await gateway.call('GET', '/v1/transactions', { key: merchant.apiKey })).body.count).toBe(0);
    const retry = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ externalRef: 'retry-me' }) });
    expect(retry.status).toBe(201);
  });
});
