import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway, type JsonBody } from '../helpers/gateway.js';

type JsonObject = Record<string, JsonBody>;

let gateway: Gateway;
let document: JsonObject;

beforeAll(async () => {
  gateway = await startGateway();
  const reply = await gateway.call('GET', '/openapi.json');
  expect(reply.status).toBe(200);
  document = reply.body;
});
afterAll(() => gateway.close());

/** Follows a local `$ref` (`#/components/...`) until a schema object is reached. */
function resolve(schema: JsonObject | undefined): JsonObject | undefined {
  let current = schema;
  for (let depth = 0; current?.$ref !== undefined && depth < 10; depth += 1) {
    const ref: string = current.$ref;
    expect(ref.startsWith('#/')).toBe(true);
    current = ref
      .slice(2)
      .split('/')
      .reduce<JsonBody>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return current;
}

const operation = (path: string, method: string): JsonObject | undefined => document.paths?.[path]?.[method];

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

  it('declares a bearer security scheme, used by the merchant routes', () => {
    const schemes: JsonObject = document.components?.securitySchemes ?? {};
    const bearer = Object.entries(schemes).filter(([, scheme]) => scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer');
    expect(bearer.length).toBeGreaterThan(0);

    const bearerNames = bearer.map(([name]) => name);
    for (const { path, method } of operations.filter((entry) => entry.path.startsWith('/v1') || entry.path.startsWith('/sandbox'))) {
      const security: JsonObject[] = operation(path, method)?.security ?? document.security ?? [];
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
  it('documents the 21 canonical events with their headers', () => {
    const names = Object.keys(document.webhooks ?? {});
    expect(names).toHaveLength(21);
    expect(names).toContain('transaction.paid');
    expect(names).toContain('transfer.partially_refunded');
    const headers = document.webhooks['transfer.paid'].post.parameters.map((parameter: JsonObject) => parameter.name);
    expect(headers).toEqual(['X-Svc-Event', 'X-Svc-Event-Id', 'X-Svc-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
  });

  const bodyOf = (name: string) => resolve(document.webhooks[name].post.requestBody.content['application/json'].schema)!;

  it('lists the settlement fields each event carries, and no others', () => {
    const paid = bodyOf('transaction.paid');
    expect(paid.required).toEqual(
      expect.arrayContaining(['eventId', 'event', 'transactionId', 'type', 'status', 'amountCents', 'externalRef', 'endToEndId', 'payer', 'occurredAt']),
    );
    expect(paid.properties.event.const).toBe('transaction.paid');
    expect(paid.properties).not.toHaveProperty('beneficiary');
    expect(paid.properties).not.toHaveProperty('pixPayload');
    expect(resolve(paid.properties.payer)?.properties).toHaveProperty('bankAccount');

    const refunded = bodyOf('transfer.refunded');
    expect(refunded.required).toEqual(expect.arrayContaining(['endToEndId', 'beneficiary', 'refundEndToEndId']));
    expect(refunded.properties).not.toHaveProperty('payer');
    expect(refunded.properties.type.const).toBe('withdrawal');

    const expired = bodyOf('transaction.expired');
    for (const field of ['endToEndId', 'payer', 'beneficiary', 'refundEndToEndId']) expect(expired.properties).not.toHaveProperty(field);
  });
});

describe('history (DESIGN.md §15) in the OpenAPI document', () => {
  it('GET /v1/transactions documents its new parameters, hasMore and every 400 message', () => {
    const list = operation('/v1/transactions', 'get');
    const names = (list?.parameters as JsonObject[]).map((parameter) => parameter.name);
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
    expect((exported?.parameters as JsonObject[]).map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['format', 'delimiter', 'createdFrom', 'createdTo', 'type', 'status']),
    );
    expect(exported?.description).toContain('O período de exportação é de no máximo 31 dias.');
    const statement = operation('/v1/statements/{date}', 'get');
    expect(statement?.description).toContain('Data do extrato inválida: use AAAA-MM-DD.');
  });
});
