import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../platform/schemas.js';
import type { Services } from '../services.js';
import { createChargeBody, createdChargeResponse, idempotentChargeResponse } from './schemas.js';

export const chargeRoutes =
  ({ charges }: Services): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/pix',
      {
        schema: {
          tags: ['Charges'],
          summary: 'Create a dynamic PIX charge',
          description: 'Returns the copy-and-paste BR Code. With an externalRef already used in the last 7 days, answers 200 with the original charge.',
          security: [{ apiKey: [] }],
          body: createChargeBody,
          response: { 201: createdChargeResponse, 200: idempotentChargeResponse, ...errorResponses(400, 401, 403, 429, 502) },
        },
      },
      async (request, reply) => {
        const result = await charges.createCharge(request.merchant.account, request.body);
        return reply.code(result.statusCode).send(result.body);
      },
    );
  };
