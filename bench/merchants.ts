import { expectJson, mapConcurrently } from './api.js';
import { ADMIN_TOKEN } from './processes.js';

export type Merchant = { accountId: string; apiKey: string };

/** The responsible's CPF of every bench account: withdrawals to it are Mode 1 (the holder). */
export const HOLDER_CPF = '52998224725';

/** Limits far above what a run can reach: the bench (and the HA run) measure the gateway, not its per-account limits. */
export const UNLIMITED = {
  limits: {
    pixPerHour: 100_000_000,
    withdrawPerSecond: 1_000_000,
    withdrawPerMinute: 100_000_000,
    withdrawPerHour: 100_000_000,
    withdrawDailyCents: 1_000_000_000_000,
    withdrawMonthlyCents: 1_000_000_000_000,
  },
};

/** `count` approved merchants, one API key each, through the operator API; funded when `fundCents` is given. */
export async function createMerchants(gatewayUrl: string, count: number, options: { fundCents?: number } = {}): Promise<Merchant[]> {
  const admin = { token: ADMIN_TOKEN };
  return mapConcurrently(
    Array.from({ length: count }, (_, index) => index),
    8,
    async (index) => {
      const account = await expectJson<{ accountId: string }>(201, gatewayUrl, 'POST', '/admin/v1/accounts', {
        ...admin,
        body: {
          name: `Loja Bench ${index + 1}`,
          email: `loja${index + 1}@example.com`,
          emailVerified: true,
          city: 'Sao Paulo',
          responsible: { name: 'Ana Souza', cpf: HOLDER_CPF },
          kycStatus: 'approved',
        },
      });
      const { accountId } = account;
      await expectJson(200, gatewayUrl, 'PATCH', `/admin/v1/accounts/${accountId}`, { ...admin, body: UNLIMITED });
      const key = await expectJson<{ apiKey: string }>(201, gatewayUrl, 'POST', `/admin/v1/accounts/${accountId}/api-keys`, admin);
      if (options.fundCents) {
        await expectJson(201, gatewayUrl, 'POST', `/admin/v1/accounts/${accountId}/adjustments`, {
          ...admin,
          body: { amountCents: options.fundCents, reason: 'fundos do benchmark' },
        });
      }
      return { accountId, apiKey: key.apiKey };
    },
  );
}

/** A new charge's body (as the tests' chargeBody()): no externalRef, so every request creates one. */
export const chargeBody = JSON.stringify({
  amountCents: 1000,
  customer: {
    name: 'Ana Pagadora',
    email: 'ana@example.com',
    phone: '11987654321',
    document: { number: '529.982.247-25', type: 'cpf' },
  },
});

export const authorization = (merchant: Merchant) => ({ authorization: `Bearer ${merchant.apiKey}` });
