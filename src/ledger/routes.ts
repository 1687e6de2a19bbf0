import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../platform/schemas.js';
import { compiledSerializer } from '../platform/serialization.js';
import type { LedgerService } from './service.js';
import type { Clock } from '../platform/clock.js';

const balanceResponse = z
  .object({
    available: z.int().meta({ description: 'Gross balance in cents; active precautionary blocks are not subtracted. Below zero only after a MED chargeback.' }),
    pending: z.literal(0),
    currency: z.literal('BRL'),
    updatedAt: z.int().meta({ description: 'Unix milliseconds of the response.' }),
    blocked: z.int().meta({ description: 'Sum of active precautionary blocks (MED cases, operator blocks), in cents.' }),
    withdrawable: z.int().meta({ description: 'available − blocked: what withdrawals and refunds may use.' }),
    owed: z.int().meta({ description: 'What MED chargebacks took beyond the balance (−available when below zero, else 0): later credits pay it first.' }),
    shortfall: z.int().meta({ description: "What running MED cases' blocks still lack of their amounts: later credits are blocked for them until it is 0." }),
  })
  .meta({ id: 'Balance' });

export const balanceRoutes =
  ({ ledger, clock }: { ledger: LedgerService; clock: Clock }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/balance',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Saldo'],
          summary: 'Consulta o saldo da conta',
          security: [{ apiKey: [] }],
          response: { 200: balanceResponse, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const { available, blocked, withdrawable, owed, shortfall } = await ledger.balanceOf(request.merchant.account.id);
        return { available, pending: 0 as const, currency: 'BRL' as const, updatedAt: clock.now().getTime(), blocked, withdrawable, owed, shortfall };
      },
    );
  };
