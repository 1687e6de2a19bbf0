import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../platform/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionSchema } from '../transactions/schemas.js';
import { presentCycle, presentRecurrence } from './presenter.js';
import {
  changeRecurrenceAmountBody,
  createRecurrenceBody,
  idempotentRecurrenceSchema,
  cycleOf,
  cycleParams,
  listRecurrencesQuery,
  recurrenceIdOf,
  recurrenceIdParams,
  recurrenceListResponse,
  recurrenceSchema,
  recurrenceWithCyclesSchema,
} from './schemas.js';
import type { RecurrenceService } from './service.js';

export const recurrenceRoutes =
  ({ recurrences }: { recurrences: RecurrenceService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Pix Automático'], security: [{ apiKey: [] }] };
    const withCycles = async (accountId: string, id: string) => {
      const recurrence = await recurrences.get(accountId, id);
      return { ...presentRecurrence(recurrence), cycles: (await recurrences.cycles(accountId, id)).map(presentCycle) };
    };

    app.post(
      '/recurrences',
      {
        schema: {
          ...common,
          summary: 'Cria uma recorrência do Pix Automático',
          description:
            "BCB's rec with its authorization request (solicrec) to the payer: answers 201 with status awaiting_authorization. Once authorized, each cycle's charge (a pix_in transaction) is created from 10 to 2 days before its date. With an externalRef already used, answers 200 with that recurrence and idempotent: true.",
          body: createRecurrenceBody,
          response: { 201: recurrenceSchema, 200: idempotentRecurrenceSchema, ...errorResponses(400, 401, 403, 422, 502) },
        },
      },
      async (request, reply) => {
        const { outcome, recurrence } = await recurrences.create(request.merchant.account, request.body);
        if (outcome === 'replayed') return reply.code(200).send({ ...presentRecurrence(recurrence), idempotent: true as const });
        return reply.code(201).send(presentRecurrence(recurrence));
      },
    );

    app.get(
      '/recurrences',
      {
        schema: {
          ...common,
          summary: 'Recorrências da conta, da mais recente à mais antiga',
          querystring: listRecurrencesQuery,
          response: { 200: recurrenceListResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const page = await recurrences.list(request.merchant.account.id, request.query.limit, request.query.startingAfter);
        return { recurrences: page.recurrences.map(presentRecurrence), hasMore: page.hasMore };
      },
    );

    app.get(
      '/recurrences/:id',
      {
        schema: {
          ...common,
          summary: 'Consulta uma recorrência com seus ciclos',
          params: recurrenceIdParams,
          response: { 200: recurrenceWithCyclesSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => withCycles(request.merchant.account.id, recurrenceIdOf(request.params.id)),
    );

    app.patch(
      '/recurrences/:id',
      {
        schema: {
          ...common,
          summary: 'Altera o valor de uma recorrência variável',
          description:
            "For a recurrence with maxAmountCents (variable): the amount of each cycle not charged yet, up to that ceiling. Cycles already charged keep theirs; a fixed recurrence's amount is the one the payer authorized (422).",
          params: recurrenceIdParams,
          body: changeRecurrenceAmountBody,
          response: { 200: recurrenceWithCyclesSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        const { account } = request.merchant;
        const id = recurrenceIdOf(request.params.id);
        await recurrences.changeAmount(account, id, request.body.amountCents);
        return withCycles(account.id, id);
      },
    );

    app.post(
      '/recurrences/:id/cancel',
      {
        schema: {
          ...common,
          summary: 'Cancela uma recorrência',
          description:
            'Nothing more is debited: the recurrence is cancelled (recurrence.cancelled) and so are its pending cycles (transaction.cancelled each).',
          params: recurrenceIdParams,
          response: { 200: recurrenceWithCyclesSchema, ...errorResponses(400, 401, 403, 404, 422, 502) },
        },
      },
      async (request) => {
        const accountId = request.merchant.account.id;
        const id = recurrenceIdOf(request.params.id);
        await recurrences.cancel(accountId, id, 'merchant');
        return withCycles(accountId, id);
      },
    );

    app.post(
      '/recurrences/:id/cycles/:cycle/cancel',
      {
        schema: {
          ...common,
          summary: 'Cancela a cobrança de um ciclo',
          description: "Before the cycle's due date only (BCB); the recurrence goes on. Answers the cycle's transaction, cancelled.",
          params: cycleParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422, 502) },
        },
      },
      async (request) =>
        presentTransaction(await recurrences.cancelCycle(request.merchant.account.id, recurrenceIdOf(request.params.id), cycleOf(request.params.cycle))),
    );
  };
