import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_EVENTS } from '../../src/webhooks/events.js';
import { OPERATION_IDS } from '../../src/platform/openapi.js';
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from '../helpers/contract.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';

let gateway: Gateway;
let document: OpenApiDocument;

beforeAll(async () => {
  gateway = await startGateway();
  const reply = await gateway.call<OpenApiDocument>('GET', '/openapi.json');
  expect(reply.status).toBe(200);
  document = reply.body;
});
afterAll(() => gateway.close());

/** Follows a local `$ref` (`#/components/...`) until a schema object is reached. */
function resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema;
  for (let depth = 0; current?.$ref !== undefined && depth < 10; depth += 1) {
    const ref: string = current.$ref;
    expect(ref.startsWith('#/')).toBe(true);
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, part) =>
          typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined,
        document,
      );
    // What a $ref of the document names is a schema.
    current = target as JsonSchema | undefined;
  }
  return current;
}

const operation = (path: string, method: string): OpenApiOperation | undefined => document.paths[path]?.[method];

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served as JSON', async () => {
    const reply = await gateway.call('GET', '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(typeof document.openapi).toBe('string');
    expect(document.openapi.startsWith('3.1')).toBe(true);
    expect(document.info?.title).toEqual(expect.any(String));
  });

  const operations = [
    { path: '/v1/pix', method: 'post' },
    { path: '/v1/transactions', method: 'get' },
    { path: '/v1/transactions/{id}', method: 'get' },
    { path: '/v1/balance', method: 'get' },
    { path: '/sandbox/v1/pix/{id}/pay', method: 'post' },
    { path: '/admin/v1/accounts', method: 'post' },
  ];

  it.each(operations)('documents $method $path', ({ path, method }) => {
    expect(Object.keys(document.paths ?? {})).toContain(path);
    expect(operation(path, method)).toBeDefined();
    expect(operation(path, method)?.responses).toBeDefined();
  });

  it('the /v1/pix request body requires amountCents and customer', () => {
    const schema = resolve(operation('/v1/pix', 'post')?.requestBody?.content?.['application/json']?.schema);
    expect(schema).toBeDefined();
    expect(schema?.type).toBe('object');
    expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['amountCents', 'customer', 'externalRef', 'expiresInDays']));
    expect(schema?.required).toEqual(expect.arrayContaining(['amountCents', 'customer']));
    expect(schema?.required).not.toContain('externalRef');
    expect(schema?.required).not.toContain('expiresInDays');

    const customer = resolve(schema?.properties?.customer);
    expect(customer?.required).toEqual(expect.arrayContaining(['name', 'email', 'phone', 'document']));
  });

  it('/v1/pix documents 201 and the spec error statuses, errors as { error }', () => {
    const responses = operation('/v1/pix', 'post')?.responses ?? {};
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '429', '502']));

    const created = resolve(responses['201']?.content?.['application/json']?.schema);
    expect(Object.keys(created?.properties ?? {})).toEqual(expect.arrayContaining(['transactionId', 'status', 'pixPayload', 'expiresAt', 'amountCents']));

    const error = resolve(responses['400']?.content?.['application/json']?.schema);
    expect(error?.properties?.error).toMatchObject({ type: 'string' });
    expect(error?.required).toContain('error');
  });

  it.each(['/v1/pix', '/v1/pix/due', '/v1/withdraw', '/v1/recurrences', '/v1/pix/static'])(
    '%s documents its replay (200) with idempotent: true, required',
    (path) => {
      const replay = resolve(operation(path, 'post')?.responses?.['200']?.content?.['application/json']?.schema);
      // z.literal(true) reads `const: true` in a named component, `enum: [true]` inline.
      const idempotent = replay?.properties?.idempotent;
      expect(idempotent?.const ?? idempotent?.enum).toEqual(idempotent?.const === undefined ? [true] : true);
      expect(replay?.required).toContain('idempotent');
    },
  );

  it('declares a bearer security scheme, used by the merchant routes', () => {
    const schemes = document.components.securitySchemes ?? {};
    const bearer = Object.entries(schemes).filter(([, scheme]) => scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer');
    expect(bearer.length).toBeGreaterThan(0);

    const bearerNames = bearer.map(([name]) => name);
    for (const { path, method } of operations.filter((entry) => entry.path.startsWith('/v1') || entry.path.startsWith('/sandbox'))) {
      const security = operation(path, method)?.security ?? document.security ?? [];
      const names = security.flatMap((requirement) => Object.keys(requirement));
      expect(
        names.some((name) => bearerNames.includes(name)),
        `${method} ${path} security`,
      ).toBe(true);
    }
  });

  it('does not list itself', () => {
    expect(Object.keys(document.paths ?? {})).not.toContain('/openapi.json');
  });
});

describe('API reference page', () => {
  it.each(['/docs/', '/docs'])('GET %s → 200 HTML (redirects followed)', async (path) => {
    const response = await fetch(gateway.url + path, { redirect: 'follow' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/<html/i);
  });
});

describe('webhooks section (OpenAPI 3.1)', () => {
  it('documents the 21 canonical events and Pix Automático’s with their headers', () => {
    const names = Object.keys(document.webhooks ?? {});
    expect(names).toEqual([...GATEWAY_EVENTS]);
    expect(names).toContain('recurrence.retry_scheduled');
    expect(names).toContain('recurrence.cycle_skipped');
    expect(names).toContain('transaction.paid');
    expect(names).toContain('transfer.partially_refunded');
    const headers = document.webhooks['transfer.paid']?.post.parameters?.map((parameter) => parameter.name);
    expect(headers).toEqual(['X-Svc-Event', 'X-Svc-Event-Id', 'X-Svc-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
  });

  const bodyOf = (name: string) => resolve(document.webhooks[name]?.post.requestBody?.content['application/json']?.schema);

  it('lists the settlement fields each event carries, and no others', () => {
    const paid = bodyOf('transaction.paid');
    expect(paid?.required).toEqual(
      expect.arrayContaining(['eventId', 'event', 'transactionId', 'type', 'status', 'amountCents', 'externalRef', 'endToEndId', 'payer', 'occurredAt']),
    );
    expect(paid?.properties?.event?.const).toBe('transaction.paid');
    expect(paid?.properties).not.toHaveProperty('beneficiary');
    expect(paid?.properties).not.toHaveProperty('pixPayload');
    expect(resolve(paid?.properties?.payer)?.properties).toHaveProperty('bankAccount');

    const refunded = bodyOf('transfer.refunded');
    expect(refunded?.required).toEqual(expect.arrayContaining(['endToEndId', 'beneficiary', 'refundEndToEndId']));
    expect(refunded?.properties).not.toHaveProperty('payer');
    expect(refunded?.properties?.type?.const).toBe('withdrawal');

    const expired = bodyOf('transaction.expired');
    for (const field of ['endToEndId', 'payer', 'beneficiary', 'refundEndToEndId']) expect(expired?.properties).not.toHaveProperty(field);
  });
});

describe('history (DESIGN.md §15) in the OpenAPI document', () => {
  it('GET /v1/transactions documents its new parameters, hasMore and every 400 message', () => {
    const list = operation('/v1/transactions', 'get');
    const names = list?.parameters?.map((parameter) => parameter.name);
    expect(names).toEqual(expect.arrayContaining(['type', 'limit', 'startingAfter', 'createdFrom', 'createdTo', 'status', 'externalRef', 'endToEndId']));
    const answer = resolve(list?.responses?.['200']?.content?.['application/json']?.schema);
    expect(answer?.required).toEqual(expect.arrayContaining(['transactions', 'count', 'hasMore']));
    for (const message of [
      'startingAfter deve ser o transactionId de uma transação desta conta.',
      'createdFrom deve ser anterior a createdTo.',
      'endToEndId deve ter 32 letras e dígitos.',
      "status deve ser um dos status de transação da documentação. Recebido: '<valor>'.",
    ])
      expect(list?.description).toContain(message);
  });

  it('the export and the statements are documented with their messages', () => {
    const exported = operation('/v1/transactions/export', 'get');
    expect(exported?.parameters?.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['format', 'delimiter', 'createdFrom', 'createdTo', 'type', 'status']),
    );
    expect(exported?.description).toContain('O período de exportação é de no máximo 31 dias.');
    const statement = operation('/v1/statements/{date}', 'get');
    expect(statement?.description).toContain('Data do extrato inválida: use AAAA-MM-DD.');
  });
});

/** Every operation of the document: the paths' and the webhooks'. */
function operations(): { where: string; path: string; method: string; operation: OpenApiOperation }[] {
  const all = [];
  for (const [section, items] of [['paths', document.paths ?? {}] as const, ['webhooks', document.webhooks ?? {}] as const]) {
    for (const [path, item] of Object.entries<Record<string, OpenApiOperation>>(items)) {
      for (const [method, operation] of Object.entries(item)) {
        if (['get', 'put', 'post', 'delete', 'patch'].includes(method))
          all.push({ where: `${section} ${method.toUpperCase()} ${path}`, path, method, operation });
      }
    }
  }
  return all;
}

describe('a document to generate an SDK from (docs/openapi.md)', () => {
  it('lists the APIs and probes only: no page, form, asset or sign-in route', () => {
    const paths = Object.keys(document.paths ?? {});
    expect(paths.filter((path) => !/^\/(v1|sandbox\/v1|admin\/v1)\//.test(path) && !['/healthz', '/readyz', '/metrics'].includes(path))).toEqual([]);
    for (const page of ['/dashboard/entrar', '/dashboard/', '/dashboard/cobrancas', '/backoffice/entrar', '/backoffice/contas', '/docs', '/health'])
      expect(paths).not.toContain(page);
    // The operator API and the sandbox are still there.
    expect(paths.filter((path) => path.startsWith('/admin/v1/')).length).toBeGreaterThan(30);
    expect(paths.filter((path) => path.startsWith('/sandbox/v1/')).length).toBeGreaterThan(10);
  });

  it('every operation has a unique operationId and a summary', () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(100);
    expect(
      all.filter(({ operation }) => typeof operation.operationId !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(operation.operationId)).map(({ where }) => where),
    ).toEqual([]);
    expect(all.filter(({ operation }) => typeof operation.summary !== 'string' || operation.summary === '').map(({ where }) => where)).toEqual([]);
    const ids = all.map(({ operation }) => operation.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('names the merchant operations as the SDK calls them (DESIGN.md §18)', () => {
    const idOf = (method: string, path: string) => operation(path, method)?.operationId;
    expect({
      createCharge: idOf('post', '/v1/pix'),
      createDueCharge: idOf('post', '/v1/pix/due'),
      cancelCharge: idOf('post', '/v1/pix/{id}/cancel'),
      getChargeQrCode: idOf('get', '/v1/pix/{id}/qrcode'),
      getTransaction: idOf('get', '/v1/transactions/{id}'),
      listTransactions: idOf('get', '/v1/transactions'),
      createWithdrawal: idOf('post', '/v1/withdraw'),
      createRecipient: idOf('post', '/v1/recipients'),
      listRecipients: idOf('get', '/v1/recipients'),
      getBalance: idOf('get', '/v1/balance'),
      createRefund: idOf('post', '/v1/transactions/{id}/refunds'),
      listRefunds: idOf('get', '/v1/transactions/{id}/refunds'),
      listInfractions: idOf('get', '/v1/infractions'),
      getInfraction: idOf('get', '/v1/infractions/{id}'),
      defendInfraction: idOf('post', '/v1/infractions/{id}/defense'),
    }).toEqual({
      createCharge: 'createCharge',
      createDueCharge: 'createDueCharge',
      cancelCharge: 'cancelCharge',
      getChargeQrCode: 'getChargeQrCode',
      getTransaction: 'getTransaction',
      listTransactions: 'listTransactions',
      createWithdrawal: 'createWithdrawal',
      createRecipient: 'createRecipient',
      listRecipients: 'listRecipients',
      getBalance: 'getBalance',
      createRefund: 'createRefund',
      listRefunds: 'listRefunds',
      listInfractions: 'listInfractions',
      getInfraction: 'getInfraction',
      defendInfraction: 'defendInfraction',
    });
  });

  it('the operationId table has no line for a route that does not exist', () => {
    const documented = new Set(operations().map(({ where }) => where.replace(/^paths /, '')));
    expect(Object.keys(OPERATION_IDS).filter((key) => !documented.has(key))).toEqual([]);
  });

  it('every operation says who may call it: the API key, the operator token, or no one in particular (probes, webhooks)', () => {
    for (const { where, path, operation } of operations()) {
      const schemes = operation.security?.flatMap((requirement) => Object.keys(requirement));
      const expected =
        path.startsWith('/admin/v1/') || path === '/sandbox/v1/providers/{providerId}/outage'
          ? ['adminToken']
          : /^\/(v1|sandbox\/v1)\//.test(path)
            ? ['apiKey']
            : [];
      expect(schemes, where).toEqual(expected);
    }
  });

  it('every API operation documents its error answers as { error }: authentication, 500 and 503 at least', () => {
    const error = resolve({ $ref: '#/components/schemas/Error' });
    expect(error?.required).toEqual(['error']);
    for (const {
      where,
      path,
      operation: { responses, security },
    } of operations().filter(({ where }) => where.startsWith('paths'))) {
      const statuses = Object.keys(responses);
      expect(statuses, where).toContain('500');
      if (path.startsWith('/healthz') || path.startsWith('/metrics')) continue;
      expect(statuses, where).toContain('503');
      if (path === '/readyz') continue;
      expect(statuses, where).toContain('401');
      if (security?.some((requirement) => 'apiKey' in requirement)) expect(statuses, where).toContain('403');
      for (const status of statuses.filter((code) => Number(code) >= 400)) {
        expect(Object.keys(responses[status]?.content ?? {}), `${where} ${status}`).toEqual(['application/json']);
        expect(responses[status]?.content?.['application/json']?.schema, `${where} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        expect(responses[status]?.description, `${where} ${status}`).not.toBe('Default Response');
      }
    }
  });

  it('the spec errors of a merchant call carry its Portuguese message as the example', () => {
    const responses = operation('/v1/balance', 'get')?.responses;
    expect(responses?.['401']?.content?.['application/json']?.example).toEqual({ error: 'API key obrigatória. Use: Authorization: Bearer <key>' });
    expect(responses?.['503']?.content?.['application/json']?.example).toEqual({
      error: 'Serviço temporariamente indisponível. Tente novamente em instantes.',
    });
  });

  it('a file answer keeps its media types and its errors stay JSON', () => {
    const qr = operation('/v1/pix/{id}/qrcode', 'get')?.responses;
    expect(Object.keys(qr?.['200']?.content ?? {})).toEqual(['image/png', 'image/svg+xml']);
    expect(Object.keys(qr?.['404']?.content ?? {})).toEqual(['application/json']);
    const report = operation('/admin/v1/reconciliation/{runId}/report.csv', 'get')?.responses;
    expect(Object.keys(report?.['200']?.content ?? {})).toEqual(['text/csv']);
    expect(Object.keys(report?.['400']?.content ?? {})).toEqual(['application/json']);
    expect(Object.keys(operation('/v1/transactions/export', 'get')?.responses['200']?.content ?? {})).toEqual(['text/csv', 'application/x-ofx']);
  });

  it('each webhook has its named payload schema, and WebhookEvent is their union discriminated by `event`', () => {
    const { schemas } = document.components;
    for (const name of GATEWAY_EVENTS) {
      const post = document.webhooks[name]?.post;
      const reference = post?.requestBody?.content['application/json']?.schema?.$ref;
      expect(reference, name).toMatch(/^#\/components\/schemas\/[A-Za-z]+Event$/);
      expect(resolve({ $ref: reference })?.properties?.event?.const, name).toBe(name);
      expect(post?.tags).toEqual(['Webhooks']);
    }
    expect(document.webhooks['transfer.partially_refunded']?.post.operationId).toBe('onTransferPartiallyRefunded');
    const union = schemas.WebhookEvent;
    expect(union?.oneOf).toHaveLength(GATEWAY_EVENTS.length);
    expect(union?.discriminator?.propertyName).toBe('event');
    expect(union?.discriminator?.mapping?.['transaction.paid']).toBe('#/components/schemas/TransactionPaidEvent');
    // A delivery attempt's payload is the JSON text of one of them.
    expect(schemas.WebhookAttempt?.properties?.payload?.contentSchema).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
  });

  it('keeps only the component schemas something refers to', () => {
    const text = JSON.stringify({ paths: document.paths, webhooks: document.webhooks, components: document.components });
    const unused = Object.keys(document.components.schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`));
    expect(unused).toEqual(['WebhookEvent'].filter((name) => !text.includes(`"#/components/schemas/${name}"`)));
  });
});
