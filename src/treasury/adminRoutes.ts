import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../platform/schemas.js';
import type { ProviderTreasury, TreasuryService } from './service.js';

/** A provider's treasury as GET /admin/v1/treasury answers it (the tests type its body from it). */
export const treasurySchema = z
  .object({
    providerId: z.string(),
    ledgerInCents: z.int().meta({ description: "Money in through the PSP as the ledger's settlement book has it (reversals count as money back in)." }),
    ledgerOutCents: z.int().meta({ description: 'Money out through the PSP: withdrawals and refunds debited.' }),
    ledgerNetCents: z.int().meta({ description: 'What the ledger says the PSP holds for the gateway: in − out.' }),
    reportedCents: z.int().nullable().meta({ description: "The PSP's own balance (Efí: GET /gn/saldo); null when it has none or could not be read." }),
    readError: z.string().nullable(),
    coverCents: z.int().meta({ description: "The figure withdrawals are measured against: the PSP's balance, else the ledger's net." }),
    lowCoverCents: z.int().meta({ description: 'Below this the treasury raises a high alert (0: never).' }),
    low: z.boolean(),
    readAt: z.int().meta({ description: 'Unix milliseconds.' }),
  })
  .meta({ id: 'ProviderTreasury' });

const present = (reading: ProviderTreasury) => ({ ...reading, readAt: reading.readAt.getTime() });

/** Treasury per PSP (DESIGN.md §14): the latest readings, and a reading now. */
export const treasuryAdminRoutes =
  ({ treasury }: { treasury: TreasuryService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Operador: provedores'], security: [{ adminToken: [] }] };
    const answer = z.object({ providers: z.array(treasurySchema) });

    app.get(
      '/treasury',
      {
        schema: {
          ...common,
          summary: 'Entradas, saídas e saldo informado de cada PSP, na última leitura (a cada minuto)',
          response: { 200: answer, ...errorResponses(401) },
        },
      },
      async () => ({ providers: (await treasury.list()).map(present) }),
    );

    app.post(
      '/treasury/refresh',
      { schema: { ...common, summary: 'Lê agora todos os PSPs (seus saldos e o razão)', response: { 200: answer, ...errorResponses(401) } } },
      async () => ({ providers: (await treasury.refresh()).map(present) }),
    );
  };
