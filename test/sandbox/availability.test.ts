import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { callAt, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/** Any well-formed UUID v7: no charge has it. */
const UNKNOWN_CHARGE_ID = '01890a5d-ac96-7b4c-9c1e-6e3d5f0a2b7c';

let gateway: Gateway;
let withoutSandbox: FastifyInstance;
let withoutSandboxUrl: string;
let merchant: Merchant;

beforeAll(async () => {
  gateway = await startGateway();
  withoutSandbox = await buildApp({ ...gateway.services, sandbox: null }, { logger: false });
  await withoutSandbox.listen({ port: 0, host: '127.0.0.1' });
  const address = withoutSandbox.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  withoutSandboxUrl = `http://127.0.0.1:${address.port}`;
  merchant = await gateway.createMerchant();
});
afterAll(async () => {
  await withoutSandbox.close();
  await gateway.close();
});

const openApiPaths = z.object({ paths: z.record(z.string(), z.unknown()) });

const sandboxPaths = async (baseUrl: string) => {
  const reply = await callAt(baseUrl, 'GET', '/openapi.json');
  expect(reply.status).toBe(200);
  const paths = Object.keys(openApiPaths.parse(reply.body).paths);
  return { paths, sandbox: paths.filter((path) => path.startsWith('/sandbox/')) };
};

describe('the sandbox exists only with the simulator', () => {
  it('with the simulator, paying an unknown charge reaches the sandbox route', async () => {
    const reply = await callAt(gateway.url, 'POST', `/sandbox/v1/pix/${UNKNOWN_CHARGE_ID}/pay`, { key: merchant.apiKey });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: 'Transação não encontrada.' });
  });

  it('without it, POST /sandbox/v1/pix/{id}/pay with a valid key is an unknown route', async () => {
    const reply = await callAt(withoutSandboxUrl, 'POST', `/sandbox/v1/pix/${UNKNOWN_CHARGE_ID}/pay`, { key: merchant.apiKey });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: 'Rota não encontrada.' });
  });

  it('without it, the merchant API still answers with the same key', async () => {
    const reply = await callAt(withoutSandboxUrl, 'GET', '/v1/balance', { key: merchant.apiKey });
    expect(reply.status).toBe(200);
  });

  it("the simulator's OpenAPI document has sandbox paths", async () => {
    const { sandbox } = await sandboxPaths(gateway.url);
    expect(sandbox).toContain('/sandbox/v1/pix/{id}/pay');
  });

  it('without it, the OpenAPI document has no /sandbox/ path but keeps the others', async () => {
    const { paths, sandbox } = await sandboxPaths(withoutSandboxUrl);
    expect(sandbox).toEqual([]);
    expect(paths).toContain('/v1/pix');
    expect(paths).toContain('/v1/withdraw');
  });
});
