import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PixGateway,
  PixGatewayAbortError,
  PixGatewayConnectionError,
  PixGatewayError,
  PixGatewayTimeoutError,
  WebhookVerificationError,
} from '../../packages/sdk/src/index.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { clientFor, closedPort, customer, recordingFetch, startFaultyNetwork, startOtherServer } from './helpers.js';

// Every error class of the SDK, each from a real cause: the gateway's answers (message and status
// as the spec and docs/errors.md give them, the X-Request-Id of the answer), no answer at all, the
// caller's AbortSignal.

let gateway: Gateway;
let merchant: Merchant;
let pix: PixGateway;
const UNKNOWN_ID = '0190a0a0-0000-7000-8000-000000000000';

beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
  pix = clientFor(gateway, merchant);
});
afterAll(() => gateway.close());

/** The rejection of a call that must fail. */
async function failure(call: Promise<unknown>): Promise<PixGatewayError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof PixGatewayError)) throw new Error(`expected a PixGatewayError, got ${String(error)}`);
  return error;
}

describe('PixGatewayError: the gateway answered with an error', () => {
  it('carries the status, the Portuguese message, the request id of the answer and the body', async () => {
    const recorder = recordingFetch();
    const error = await failure(clientFor(gateway, merchant, { fetch: recorder.fetch }).charges.create({ amountCents: 50, customer: customer() }));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PixGatewayError');
    expect(error).toMatchObject({
      status: 400,
      message: 'amountCents deve ser inteiro ≥ 100 (R$1,00 mínimo).',
      retryable: false,
      attempts: 1,
      method: 'POST',
      path: '/v1/pix',
      body: { error: 'amountCents deve ser inteiro ≥ 100 (R$1,00 mínimo).' },
    });
    // The gateway answers with the X-Request-Id it was sent (its logs carry it).
    expect(error.requestId).toBe(recorder.sent[0]?.headers['x-request-id']);
    expect(error.stack).toContain('PixGatewayError');
  });

  it.each([
    ['401 without a valid key', () => clientFor(gateway, { ...merchant, apiKey: 'svck_invalid' }).balance.get(), 401, 'API key inválida ou revogada.'],
    ['404 for an unknown transaction', () => pix.transactions.get(UNKNOWN_ID), 404, 'Transação não encontrada.'],
    ['400 for a malformed id', () => pix.transactions.get('nope'), 400, 'transactionId inválido.'],
    [
      '422 for a withdrawal above the balance',
      () => pix.withdrawals.create({ amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf' }),
      422,
      'Saldo insuficiente para realizar o saque.',
    ],
  ])('%s', async (_case, call, status, message) => {
    const error = await failure(call());
    expect(error).toMatchObject({ status, message, retryable: false });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('403 for an account without approved KYC', async () => {
    const pending = await gateway.createMerchant({ kycStatus: 'pending' });
    expect(await failure(clientFor(gateway, pending).balance.get())).toMatchObject({ status: 403, message: 'Conta não está aprovada para uso da API.' });
  });

  it('an answer that is not the JSON of the contract (a base URL that is not the gateway)', async () => {
    const other = await startOtherServer(200, '<html>login</html>');
    const broken = await startOtherServer(500, 'Internal Server Error', 'text/plain');
    try {
      const wrong = await failure(new PixGateway({ apiKey: merchant.apiKey, baseUrl: other.url }).balance.get());
      expect(wrong).toMatchObject({ status: 200, body: '<html>login</html>', retryable: false });
      expect(wrong.message).toBe(`Resposta inesperada do gateway a GET /v1/balance (HTTP 200): o corpo não é o JSON do contrato.`);
      const noMessage = await failure(new PixGateway({ apiKey: merchant.apiKey, baseUrl: broken.url }).balance.get());
      expect(noMessage).toMatchObject({ status: 500, message: 'O gateway respondeu HTTP 500 sem mensagem de erro.', body: 'Internal Server Error' });
    } finally {
      await other.close();
      await broken.close();
    }
  });
});

describe('no answer', () => {
  it('PixGatewayConnectionError: the connection was refused', async () => {
    const error = await failure(new PixGateway({ apiKey: merchant.apiKey, baseUrl: await closedPort(), maxRetries: 0 }).balance.get());
    expect(error).toBeInstanceOf(PixGatewayConnectionError);
    expect(error).not.toBeInstanceOf(PixGatewayTimeoutError);
    expect(error).toMatchObject({ name: 'PixGatewayConnectionError', status: 0, retryable: true, attempts: 1 });
    expect(error.message).toMatch(/^Falha de rede em GET \/v1\/balance: ECONNREFUSED\.$/);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('PixGatewayTimeoutError: no answer within timeoutMs (per call or per client)', async () => {
    const network = await startFaultyNetwork(gateway.url, ['hang', 'hang']);
    try {
      const client = clientFor(gateway, merchant, { baseUrl: network.url, maxRetries: 0, timeoutMs: 5000 });
      const started = Date.now();
      const error = await failure(client.balance.get({ timeoutMs: 200 }));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(error).toBeInstanceOf(PixGatewayTimeoutError);
      expect(error).toBeInstanceOf(PixGatewayConnectionError);
      expect(error).toMatchObject({ name: 'PixGatewayTimeoutError', status: 0, message: 'Tempo esgotado após 200 ms aguardando GET /v1/balance.' });
      const client2 = clientFor(gateway, merchant, { baseUrl: network.url, maxRetries: 0, timeoutMs: 150 });
      expect(await failure(client2.recipients.list())).toBeInstanceOf(PixGatewayTimeoutError);
    } finally {
      await network.close();
    }
  });

  it('PixGatewayAbortError: the caller aborted, before the call or during it', async () => {
    const before = await failure(pix.balance.get({ signal: AbortSignal.abort(new Error('já cancelado')) }));
    expect(before).toBeInstanceOf(PixGatewayAbortError);
    expect(before).toMatchObject({ name: 'PixGatewayAbortError', status: 0, attempts: 0, message: 'Chamada GET /v1/balance cancelada (AbortSignal).' });
    expect(before.cause).toEqual(new Error('já cancelado'));

    const network = await startFaultyNetwork(gateway.url, ['hang']);
    try {
      const client = clientFor(gateway, merchant, { baseUrl: network.url });
      const during = await failure(client.balance.get({ signal: AbortSignal.timeout(200) }));
      expect(during).toBeInstanceOf(PixGatewayAbortError);
      expect(during).toMatchObject({ attempts: 1, retryable: false });
      expect(during.cause).toMatchObject({ name: 'TimeoutError' });
    } finally {
      await network.close();
    }
  });
});

describe('the client refuses bad options at once', () => {
  it.each([
    [{ apiKey: '', baseUrl: 'http://localhost:3000' }, TypeError, /apiKey é obrigatória/],
    [{ apiKey: 'k', baseUrl: 'localhost:3000' }, TypeError, /baseUrl inválida/],
    [{ apiKey: 'k', baseUrl: 'ftp://gateway' }, TypeError, /baseUrl inválida/],
    [{ apiKey: 'k', baseUrl: 'http://gateway', timeoutMs: 0 }, RangeError, /timeoutMs inválido/],
    [{ apiKey: 'k', baseUrl: 'http://gateway', maxRetries: 1.5 }, RangeError, /maxRetries inválido/],
  ])('%j', (options, kind, message) => {
    expect(() => new PixGateway(options)).toThrow(kind);
    expect(() => new PixGateway(options)).toThrow(message);
  });
});

describe('WebhookVerificationError', () => {
  it('is an Error with its reason (the webhook tests cover each reason)', () => {
    const error = new WebhookVerificationError('invalid_signature', 'x');
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PixGatewayError);
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'invalid_signature' });
  });
});
