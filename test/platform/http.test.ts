import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { readTransaction } from '../helpers/api.js';
import { ADMIN_TOKEN, chargeBody, customerWith, startGateway, type Gateway, type Merchant, type Reply } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

const ROUTE_NOT_FOUND = 'Rota não encontrada.';
const BODY_MALFORMED = 'Corpo da requisição não é um JSON válido.';
const BODY_NOT_JSON = 'Content-Type deve ser application/json.';
const BODY_NOT_OBJECT = 'Corpo da requisição deve ser um objeto JSON.';

/** Runs per property; each property stays well under a few seconds on either backend. */
const NUM_RUNS = 200;

let gateway: Gateway;
let merchant: Merchant;
beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant({ limits: { pixPerHour: 1_000_000 } });
});
afterAll(() => gateway.close());

/** The one error shape: an object with exactly one key, `error`, holding a non-empty string. */
function expectErrorShape(reply: Reply, context = ''): void {
  const detail = `${context} → ${reply.status} ${JSON.stringify(reply.body)}`;
  expect(reply.body, detail).toBeTypeOf('object');
  expect(reply.body, detail).not.toBeNull();
  expect(Object.keys(reply.body as object), detail).toEqual(['error']);
  expect(errorOf(reply.body), detail).toBeTypeOf('string');
  expect(errorOf(reply.body)?.length, detail).toBeGreaterThan(0);
}

/** Never a 5xx; every non-2xx answer in the one error shape. */
const INVALID_TEXT = { error: 'Corpo da requisição contém texto inválido (caractere NUL ou UTF-16 malformado).' };

function expectRefusedText(reply: Reply): void {
  expect(reply.status).toBe(400);
  expect(reply.body).toEqual(INVALID_TEXT);
}

function expectHandled(reply: Reply, context: string): void {
  expect(reply.status, `${context} → ${reply.status} ${JSON.stringify(reply.body)}`).toBeLessThan(500);
  if (reply.status < 200 || reply.status >= 300) expectErrorShape(reply, context);
}

const postJson = (path: string, rawBody: string, key: string | null = merchant.apiKey) =>
  gateway.call('POST', path, { key, rawBody, headers: { 'content-type': 'application/json' } });

describe('unknown routes', () => {
  it.each([
    ['GET', '/nope', null],
    ['GET', '/v1/nope', 'key'],
    ['GET', '/v1/nope', null],
    ['POST', '/v2/pix', 'key'],
    ['POST', '/v2/pix', null],
    ['GET', '/v1', 'key'],
    ['DELETE', '/v1/pix', 'key'],
  ] as const)('%s %s (key: %s) → 404 Rota não encontrada.', async (method, path, key) => {
    const reply = await gateway.call(method, path, { key: key ? merchant.apiKey : null });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: ROUTE_NOT_FOUND });
  });
});

describe('POST /v1/pix body plumbing', () => {
  it('malformed JSON → 400', async () => {
    const reply = await postJson('/v1/pix', '{bad');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: BODY_MALFORMED });
  });

  it('truncated JSON → 400', async () => {
    const reply = await postJson('/v1/pix', JSON.stringify(chargeBody()).slice(0, -1));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: BODY_MALFORMED });
  });

  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'text/json',
    'application/jsonx',
  ])('Content-Type: %s → 400 Content-Type deve ser application/json.', async (contentType) => {
    const reply = await gateway.call('POST', '/v1/pix', {
      key: merchant.apiKey,
      rawBody: JSON.stringify(chargeBody()),
      headers: { 'content-type': contentType },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: BODY_NOT_JSON });
  });

  it('a JSON text sent without a Content-Type (fetch labels it text/plain) → 400', async () => {
    const reply = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, rawBody: JSON.stringify(chargeBody()) });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: BODY_NOT_JSON });
  });

  it('application/json; charset=utf-8 is accepted', async () => {
    const reply = await gateway.call('POST', '/v1/pix', {
      key: merchant.apiKey,
      rawBody: JSON.stringify(chargeBody()),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(reply.status).toBe(201);
  });

  it('JSON content type with an empty body → 400 (body must be an object)', async () => {
    const reply = await postJson('/v1/pix', '');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: BODY_NOT_OBJECT });
  });

  it.each([
    ['an array', '[]'],
    ['an array of a charge', JSON.stringify([chargeBody()])],
    ['a string', '"texto"'],
    ['a number', '42'],
    ['true', 'true'],
    ['null', 'null'],
  ])('JSON %s → 400 (body must be an object)', async (_label, rawBody) => {
    const reply = await postJson('/v1/pix', rawBody);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: BODY_NOT_OBJECT });
  });

  it('a body over 64 KiB → 413 with an error message', async () => {
    const rawBody = JSON.stringify(chargeBody({ padding: 'x'.repeat(65 * 1024) }));
    const reply = await postJson('/v1/pix', rawBody);
    expect(reply.status).toBe(413);
    expectErrorShape(reply);
  });

  it('a body just under 64 KiB is read (then validated normally)', async () => {
    const base = JSON.stringify(chargeBody({ padding: '' }));
    const rawBody = JSON.stringify(chargeBody({ padding: 'x'.repeat(64 * 1024 - base.length - 10) }));
    expect(Buffer.byteLength(rawBody)).toBeLessThan(64 * 1024);
    const reply = await postJson('/v1/pix', rawBody);
    expect(reply.status).not.toBe(413);
    expect(reply.status).toBeLessThan(500);
  });

  it.each([
    ['__proto__', '{"__proto__": {"x": 1}}'],
    ['__proto__ inside a charge', JSON.stringify(chargeBody()).replace(/^\{/, '{"__proto__": {"isAdmin": true},')],
    ['constructor.prototype', '{"constructor": {"prototype": {"x": 1}}}'],
    ['nested __proto__', '{"customer": {"__proto__": {"name": "x"}}}'],
  ])('prototype poisoning (%s) → 4xx, not 5xx', async (_label, rawBody) => {
    const reply = await postJson('/v1/pix', rawBody);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expectErrorShape(reply);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('without a key, body problems are not revealed: 401 first', async () => {
    const reply = await postJson('/v1/pix', '{bad', null);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: 'API key obrigatória. Use: Authorization: Bearer <key>' });
  });
});

describe('malformed percent-encoding in the path', () => {
  it.each([
    ['GET', '/v1/transactions/%', 'merchant'],
    ['GET', '/v1/transactions/%E0%A4', 'merchant'],
    ['GET', '/v1/transactions/%zz', 'merchant'],
    ['GET', '/v1/transactions/%', 'none'],
    ['POST', '/sandbox/v1/pix/%/pay', 'merchant'],
    ['PATCH', '/admin/v1/accounts/%', 'admin'],
    ['GET', '/nope%', 'none'],
  ] as const)('%s %s (%s key) → 400 URL inválida.', async (method, path, who) => {
    const key = who === 'merchant' ? merchant.apiKey : who === 'admin' ? ADMIN_TOKEN : null;
    const reply = await gateway.call(method, path, { key, ...(method === 'GET' ? {} : { body: {} }) });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'URL inválida.' });
  });
});

describe('text the database cannot store (NUL, lone surrogates) is refused, never a 5xx', () => {
  it.each([
    ['customer.name with NUL', () => chargeBody({ customer: customerWith({ name: 'Ana\u0000' }) })],
    ['customer.name with a lone surrogate', () => chargeBody({ customer: customerWith({ name: 'Ana\ud800' }) })],
    ['externalRef with NUL', () => chargeBody({ externalRef: 'pedido\u0000' })],
  ])('POST /v1/pix, %s', async (label, body) => {
    expectRefusedText(await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: body() }));
  });

  it.each([
    ['payer.name with NUL', 'Pagador\u0000'],
    ['payer.name with a lone surrogate', 'Pagador\udc00'],
  ])('POST /sandbox/v1/pix/{id}/pay, %s', async (label, name) => {
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(created.status).toBe(201);
    const payer = { name, document: '52998224725', documentType: 'cpf', bankAccount: { ispb: '99999999', branch: '0001', account: '123456' } };
    const reply = await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: merchant.apiKey, body: { payer } });
    expectRefusedText(reply);
    expect((await readTransaction(gateway, merchant, created.body.transactionId)).status).toBe('pending');
  });

  const account = (patch: Record<string, unknown>) => ({
    name: 'Loja',
    email: 'loja@example.com',
    responsible: { name: 'Maria', cpf: '52998224725' },
    ...patch,
  });
  it.each([
    ['name with NUL', account({ name: 'Loja\u0000' })],
    ['city with NUL', account({ city: 'Curitiba\u0000' })],
    ['responsible.name with NUL', account({ responsible: { name: 'Maria\u0000', cpf: '52998224725' } })],
  ])('POST /admin/v1/accounts, %s', async (label, body) => {
    expectRefusedText(await gateway.admin('POST', '/admin/v1/accounts', body));
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests: whatever the body, query or path, never a 5xx and always the one error shape.
// ---------------------------------------------------------------------------------------------

/** Characters that trouble storage and encodings; uniform random code points almost never hit them. */
const nastyString = fc
  .array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '\u0000',
          '\ud800',
          '\udfff',
          '\u0001',
          '\u001f',
          '\u007f',
          '\u0085',
          '\u2028',
          '\ufeff',
          '\uffff',
          '\u{1F600}',
          'é',
          "'",
          '"',
          '\\',
          '%',
          ' ',
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(''));

/** Strings of every kind (fast-check's default is printable ASCII). */
const anyString = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), nastyString);

/** A field value: any type, sometimes a sensible one. */
const wild = fc.oneof(fc.integer(), fc.double(), anyString, fc.constant(null), fc.bigInt().map(String), fc.boolean(), fc.anything());
const field = (...plausible: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> => fc.oneof(...plausible, wild);

const chargeShaped = fc.record(
  {
    amountCents: field(
      fc.integer({ min: 100, max: 100_000 }),
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constant(null),
      fc.bigInt().map(String),
      fc.constantFrom(99, 100, 10_000_000, 10_000_001, Number.MAX_SAFE_INTEGER, 2 ** 63, 1e308, -0, 100.5),
    ),
    customer: fc.oneof(
      fc.anything(),
      fc.record(
        {
          name: field(fc.constantFrom('Ana', ' ', 'x'.repeat(100), 'x'.repeat(101)), anyString),
          email: field(fc.constantFrom('ana@example.com', 'a@b', '@', `${'a'.repeat(250)}@x.io`), fc.emailAddress()),
          phone: field(fc.constantFrom('11987654321', '1198765432', '119876543210', '(11) 98765-4321'), fc.stringMatching(/^\d{0,12}$/)),
          document: fc.oneof(
            wild,
            fc.record(
              {
                number: field(fc.constantFrom('529.982.247-25', '52998224725', '11.222.333/0001-81', '1', ''), fc.stringMatching(/^[\d./-]{0,20}$/)),
                type: field(fc.constantFrom('cpf', 'cnpj', ' CPF ', 'CNPJ', 'rg', '')),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    externalRef: field(fc.string({ minLength: 1, maxLength: 100 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }), fc.constant('')),
    expiresInDays: field(fc.integer({ min: 1, max: 30 }), fc.integer({ min: -5, max: 40 }), fc.constant(1.5)),
  },
  { requiredKeys: [] },
);

const partyShaped = fc.record(
  {
    name: field(fc.constantFrom('Pagador', 'x'.repeat(120), 'x'.repeat(121)), anyString),
    document: field(fc.constantFrom('52998224725', '11222333000181', '123'), fc.stringMatching(/^\d{0,15}$/)),
    documentType: field(fc.constantFrom('cpf', 'cnpj', 'CPF')),
    bankAccount: fc.oneof(
      wild,
      fc.record(
        {
          ispb: field(fc.constantFrom('99999999', '0000000A', 'abc'), fc.stringMatching(/^[0-9A-Z]{7,9}$/)),
          branch: field(fc.constantFrom('0001', '1234567'), fc.stringMatching(/^\d{0,7}$/)),
          account: field(fc.constantFrom('123456', '98765-4'), fc.stringMatching(/^[0-9A-Za-z-]{0,21}$/)),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

const payShaped = fc.record({ payer: fc.oneof(wild, partyShaped), amountCents: field(fc.constantFrom(1000, 999, 1001)) }, { requiredKeys: [] });

const cpfField = field(fc.constantFrom('529.982.247-25', '52998224725', '111.111.111-11', '123'), fc.stringMatching(/^[\d.-]{0,16}$/));
const accountShaped = fc.record(
  {
    name: field(fc.constantFrom('Loja', '', 'x'.repeat(121)), anyString),
    email: field(fc.constantFrom('loja@example.com', 'nope'), fc.emailAddress()),
    emailVerified: field(fc.boolean()),
    city: field(fc.constantFrom('Curitiba', ''), anyString),
    responsible: fc.oneof(wild, fc.record({ name: field(fc.constant('Maria'), anyString), cpf: cpfField }, { requiredKeys: [] })),
    company: fc.oneof(
      wild,
      fc.record(
        { legalName: field(fc.constant('Loja LTDA'), anyString), cnpj: field(fc.constantFrom('11.222.333/0001-81', '11222333000181', '00000000000000')) },
        { requiredKeys: [] },
      ),
    ),
    kycStatus: field(fc.constantFrom('approved', 'pending', 'rejected', 'APPROVED')),
    withdrawalMode: field(fc.constantFrom('automatic', 'manual', 'auto')),
  },
  { requiredKeys: [] },
);

const cents = field(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom(-1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 1.5));
const limitNames = [
  'pixPerHour',
  'withdrawPerSecond',
  'withdrawPerMinute',
  'withdrawPerHour',
  'recipientsPerHour',
  'chargeMinCents',
  'chargeMaxCents',
  'withdrawMinCents',
  'withdrawMaxCents',
  'withdrawDailyCents',
  'withdrawMonthlyCents',
] as const;
const feePlanShaped = fc.oneof(
  wild,
  fc.record(
    { fixedCents: cents, bps: field(fc.integer({ min: 0, max: 10_000 }), fc.constant(10_001)), minCents: cents, maxCents: cents },
    { requiredKeys: [] },
  ),
);
const patchShaped = fc.record(
  {
    kycStatus: field(fc.constantFrom('approved', 'pending', 'rejected')),
    blocked: field(fc.boolean()),
    emailVerified: field(fc.boolean()),
    withdrawalMode: field(fc.constantFrom('automatic', 'manual')),
    ipAllowlist: fc.oneof(
      wild,
      fc.array(field(fc.constantFrom('10.0.0.0/8', '127.0.0.1', '::1', '2001:db8::/32', '999.1.1.1', '10.0.0.0/33', ''), fc.ipV4(), fc.ipV6()), {
        maxLength: 5,
      }),
    ),
    allowedPixKeyTypes: fc.oneof(wild, fc.array(field(fc.constantFrom('cpf', 'cnpj', 'email', 'phone', 'evp', 'CPF')), { maxLength: 6 })),
    recipientLimit: field(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom(-1, 10_001)),
    limits: fc.oneof(wild, fc.record(Object.fromEntries(limitNames.map((name) => [name, cents])), { requiredKeys: [] })),
    fees: fc.oneof(wild, fc.record({ pixIn: feePlanShaped, withdrawal: feePlanShaped }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

/** Every path (to objects and leaves) inside a JSON object. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

const REMOVE = Symbol('remove');

/**
 * A valid body with one field replaced by a random value (any string included: NUL, lone
 * surrogates, control characters) or removed: these get past most validation, to the database.
 */
function nearValid(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const value = fc.oneof(
    { weight: 4, arbitrary: nastyString },
    { weight: 1, arbitrary: wild },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: fc.constant(REMOVE) },
  );
  return fc.tuple(fc.constantFrom(...pathsOf(valid)), value).map(([path, replacement]) => {
    const body = structuredClone(valid);
    let parent: Record<string, unknown> = body;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
    const last = path[path.length - 1] as string;
    if (replacement === REMOVE) delete parent[last];
    else parent[last] = replacement;
    return body;
  });
}

const validCharge = { ...chargeBody(), externalRef: 'pedido-1', expiresInDays: 3 };
/** A charge with a due date, days ahead of the real clock (the gateway's here is not moved). */
const dayAhead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const validDueCharge = {
  amountCents: 10_000,
  customer: { name: 'Maria', document: { number: '52998224725', type: 'cpf' } },
  dueDate: dayAhead(10),
  validityAfterDueDays: 5,
  fine: { percent: 2 },
  interest: { percent: 1, per: 'month', days: 'business' },
  abatement: { amountCents: 100 },
  discount: { until: [{ date: dayAhead(5), percent: 1.5 }] },
};
const validPayer = {
  name: 'Pagador Teste',
  document: '52998224725',
  documentType: 'cpf',
  bankAccount: { ispb: '99999999', branch: '0001', account: '123456' },
};
const validAccount = {
  name: 'Loja Fuzz',
  email: 'fuzz@example.com',
  emailVerified: true,
  city: 'Curitiba',
  responsible: { name: 'Maria Responsável', cpf: '529.982.247-25' },
  company: { legalName: 'Loja Fuzz LTDA', cnpj: '11.222.333/0001-81' },
  kycStatus: 'approved',
  withdrawalMode: 'automatic',
};
const validPatch = {
  kycStatus: 'approved',
  blocked: false,
  emailVerified: true,
  withdrawalMode: 'manual',
  ipAllowlist: ['10.0.0.0/8', '127.0.0.1', '::1'],
  allowedPixKeyTypes: ['cpf', 'email'],
  recipientLimit: 10,
  limits: { pixPerHour: 500, chargeMinCents: 100, chargeMaxCents: 1_000_000 },
  fees: { pixIn: { fixedCents: 0, bps: 99, minCents: 50, maxCents: 1000 }, withdrawal: { fixedCents: 100 } },
};

/** A request body: any JSON value, any object, a shaped one, a near-valid one, or text that is not JSON. */
type Body = { raw: string } | { json: unknown };
const bodies = (shaped: fc.Arbitrary<unknown>, valid: Record<string, unknown>): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.anything().map((json) => ({ json })) },
    { weight: 2, arbitrary: fc.object().map((json) => ({ json })) },
    { weight: 4, arbitrary: shaped.map((json) => ({ json })) },
    { weight: 6, arbitrary: nearValid(valid).map((json) => ({ json })) },
    { weight: 1, arbitrary: anyString.map((raw) => ({ raw })) },
  );

/** Sends the body as JSON text; a value JSON cannot encode (undefined) goes as an empty body. */
function send(method: string, path: string, body: Body, key: string | null): Promise<Reply> {
  const rawBody = 'raw' in body ? body.raw : (JSON.stringify(body.json) ?? '');
  return gateway.call(method, path, { key, rawBody, headers: { 'content-type': 'application/json' } });
}

const describeBody = (body: Body) => ('raw' in body ? `raw ${JSON.stringify(body.raw)}` : `json ${JSON.stringify(body.json)}`);

describe('property: random bodies never cause a 5xx', () => {
  it('POST /v1/pix', async () => {
    await fc.assert(
      fc.asyncProperty(bodies(chargeShaped, validCharge), async (body) => {
        expectHandled(await send('POST', '/v1/pix', body, merchant.apiKey), `POST /v1/pix ${describeBody(body)}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST /v1/pix/due, and its batch', async () => {
    await fc.assert(
      fc.asyncProperty(bodies(fc.anything(), validDueCharge), async (body) => {
        expectHandled(await send('POST', '/v1/pix/due', body, merchant.apiKey), `POST /v1/pix/due ${describeBody(body)}`);
      }),
      { numRuns: NUM_RUNS },
    );
    const batches = fc.array(nearValid(validDueCharge), { minLength: 1, maxLength: 4 }).map((charges) => ({ charges }));
    await fc.assert(
      fc.asyncProperty(bodies(batches, { charges: [validDueCharge] }), async (body) => {
        expectHandled(await send('POST', '/v1/pix/due/batch', body, merchant.apiKey), `POST /v1/pix/due/batch ${describeBody(body)}`);
      }),
      { numRuns: NUM_RUNS / 4 },
    );
  });

  it('POST /sandbox/v1/pix/{id}/pay', async () => {
    // The id: a fresh pending charge (so valid payers get through to the payment), an unknown
    // UUID v7, or a random path segment.
    const target = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'fresh' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
      { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.string({ minLength: 1 })).map((segment) => ({ kind: 'segment' as const, segment })) },
    );
    await fc.assert(
      fc.asyncProperty(target, bodies(payShaped, { payer: validPayer, amountCents: 1000 }), async (to, body) => {
        let id: string;
        if (to.kind === 'fresh') {
          const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
          expect(created.status).toBe(201);
          id = created.body.transactionId;
        } else if (to.kind === 'unknown') {
          id = newId();
        } else {
          id = encodeURIComponent(to.segment);
        }
        const path = `/sandbox/v1/pix/${id}/pay`;
        expectHandled(await send('POST', path, body, merchant.apiKey), `POST ${path} ${describeBody(body)}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST /admin/v1/accounts', async () => {
    await fc.assert(
      fc.asyncProperty(bodies(accountShaped, validAccount), async (body) => {
        expectHandled(await send('POST', '/admin/v1/accounts', body, ADMIN_TOKEN), `POST /admin/v1/accounts ${describeBody(body)}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('PATCH /admin/v1/accounts/{id}', async () => {
    // A throwaway account: random patches may block it or change its limits.
    const target = await gateway.createMerchant();
    const ids = fc.oneof(
      { weight: 5, arbitrary: fc.constant(target.accountId) },
      { weight: 1, arbitrary: fc.constant(null).map(() => newId()) },
      { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.string({ minLength: 1 })).map((segment) => encodeURIComponent(segment)) },
    );
    await fc.assert(
      fc.asyncProperty(ids, bodies(patchShaped, validPatch), async (id, body) => {
        const path = `/admin/v1/accounts/${id}`;
        expectHandled(await send('PATCH', path, body, ADMIN_TOKEN), `PATCH ${path} ${describeBody(body)}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('property: random queries and paths never cause a 5xx', () => {
  /** Characters that matter to query and path parsing, plus anything else. */
  const urlChar = fc.oneof(
    fc.constantFrom('%', '&', '=', '[', ']', '+', '.', '/', '?', '#', ';', ',', ' ', '%00', '%zz', '%E0%A4', '%C3%A9', '%25', '\\'),
    fc.string({ maxLength: 1 }),
  );
  const rawUrlPart = fc.array(urlChar, { maxLength: 20 }).map((parts) => parts.join(''));
  const paramValue = fc.oneof(
    fc.constantFrom('pix_in', 'withdrawal', '', '1', '50', '100', '101', '0', '-1', '1.5', '1e2', '0x10', ' 5', '5 ', '+5', '007', '9'.repeat(400)),
    fc.string({ unit: 'grapheme' }),
    fc.integer().map(String),
  );
  const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom('type', 'limit', 'type[]', 'limit[0]', '__proto__', 'constructor'), fc.string()), paramValue), {
    maxLength: 5,
  });
  const query = fc.oneof(
    pairs.map((entries) => new URLSearchParams(entries).toString()),
    rawUrlPart,
  );

  it('GET /v1/transactions?<random>', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const path = `/v1/transactions?${q}` as const;
        const reply = await gateway.call('GET', path, { key: merchant.apiKey });
        expectHandled(reply, `GET ${path}`);
        expect([200, 400], `GET ${path} → ${reply.status} ${JSON.stringify(reply.body)}`).toContain(reply.status);
        if (reply.status === 200) expect(reply.body.count).toBe(reply.body.transactions.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('GET /v1/transactions/{random}', async () => {
    const segment = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1 }).map((s) => encodeURIComponent(s)),
      fc.uuid().map((s) => encodeURIComponent(s)),
      rawUrlPart.filter((s) => s.length > 0),
    );
    await fc.assert(
      fc.asyncProperty(segment, async (x) => {
        const path = `/v1/transactions/${x}`;
        const reply = await gateway.call('GET', path, { key: merchant.apiKey });
        expectHandled(reply, `GET ${path}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
