import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DomainError, httpStatusOf, InvalidRequestError } from '../errors.js';
import { checked } from '../platform/validation.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { errorResponses } from '../platform/schemas.js';
import { compiledSerializer } from '../platform/serialization.js';
import type { ChargeResult, ChargeService } from './service.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';
import {
  amountDueQuery,
  amountDueResponse,
  createChargeBody,
  createDueChargeBatchBody,
  createDueChargeBody,
  dueChargeBatchResponse,
  createdChargeResponse,
  createdDueChargeResponse,
  idempotentChargeResponse,
  idempotentDueChargeResponse,
  qrImageQuery,
} from './schemas.js';
import { lastPayableDate } from '../pix/dueAmount.js';

export const chargeRoutes =
  ({ charges }: { charges: ChargeService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/pix',
      {
        schema: {
          tags: ['Cobranças'],
          summary: 'Cria uma cobrança PIX dinâmica',
          description: 'Returns the copy-and-paste BR Code. With an externalRef already used in the last 7 days, answers 200 with the original charge.',
          security: [{ apiKey: [] }],
          body: createChargeBody,
          response: { 201: createdChargeResponse, 200: idempotentChargeResponse, ...errorResponses(400, 401, 403, 429, 502) },
        },
      },
      async (request, reply) => {
        const { outcome, charge } = await charges.createCharge(request.merchant.account, request.body);
        const body = { ...charge, expiresAt: Math.floor(charge.expiresAt.getTime() / 1000) };
        if (outcome === 'replayed') return reply.code(200).send({ ...body, idempotent: true as const });
        return reply.code(201).send({ ...body, status: 'pending' as const });
      },
    );

    app.post(
      '/pix/due',
      {
        schema: {
          tags: ['Cobranças'],
          summary: 'Cria uma cobrança PIX com vencimento (cobv)',
          description:
            'A charge payable until its last payable day for the amount due on the day it is paid: the original less abatement and discount, plus fine and interest once late (BCB rules; docs/due-charges.md). The payer is named (CPF/CNPJ). With an externalRef already used in the last 7 days, answers 200 with the original charge.',
          security: [{ apiKey: [] }],
          body: createDueChargeBody,
          response: { 201: createdDueChargeResponse, 200: idempotentDueChargeResponse, ...errorResponses(400, 401, 403, 422, 429, 502) },
        },
      },
      async (request, reply) => {
        const { outcome, charge } = await charges.createDueCharge(request.merchant.account, request.body);
        const body = dueChargeView(charge);
        // A retry whose externalRef names an immediate charge answers that charge, without due dates.
        const { dueDate, lastPayableDate: lastDay } = body;
        if (outcome === 'replayed' || dueDate === undefined || lastDay === undefined) return reply.code(200).send({ ...body, idempotent: true as const });
        return reply.code(201).send({ ...body, dueDate, lastPayableDate: lastDay, status: 'pending' as const });
      },
    );

    app.post(
      '/pix/due/batch',
      {
        schema: {
          tags: ['Cobranças'],
          summary: 'Cria até 100 cobranças PIX com vencimento (lotecobv)',
          description:
            'Each item is checked and created on its own, in order, as POST /v1/pix/due would (its rules, limits, rate limit and externalRef): the answer is 200 with each item’s status and charge, or its error; a refused item writes nothing and does not stop the others. 400 only when the batch itself is malformed.',
          security: [{ apiKey: [] }],
          body: createDueChargeBatchBody,
          response: { 200: dueChargeBatchResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const { account } = request.merchant;
        const results = [];
        for (const [index, item] of request.body.charges.entries()) {
          try {
            const { outcome, charge } = await charges.createDueCharge(account, checked(createDueChargeBody, item));
            results.push({ index, status: outcome === 'created' ? 201 : 200, charge: dueChargeView(charge) });
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            results.push({ index, status: httpStatusOf(error), error: error.message });
          }
        }
        return { created: results.filter((result) => result.status === 201).length, failed: results.filter((result) => result.status >= 400).length, results };
      },
    );

    app.get(
      '/pix/due/:id/amount',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Cobranças'],
          summary: 'Valor devido por uma cobrança com vencimento em uma data',
          description:
            "What a payment on `date` (default today, America/Sao_Paulo) must be, in parts as BCB's componentesValor; payable says whether a payment that day is taken. Errors as { error }: 400 (date, transactionId), 401, 403, 404 (not one of the account's charges with a due date).",
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          querystring: amountDueQuery,
          response: { 200: amountDueResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        const { charge, terms, amount } = await charges.amountDue(request.merchant.account.id, request.params.id, request.query.date);
        return { transactionId: charge.id, dueDate: terms.dueDate, lastPayableDate: lastPayableDate(terms), ...amount };
      },
    );

    app.post(
      '/pix/:id/cancel',
      {
        schema: {
          tags: ['Cobranças'],
          summary: 'Cancela uma cobrança pendente',
          description: 'A payment that still arrives for it is returned to the payer in full, never credited.',
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        return presentTransaction(await charges.cancelCharge(request.params.id, request.merchant.account.id));
      },
    );

    app.get(
      '/pix/:id/qrcode',
      {
        schema: {
          tags: ['Cobranças'],
          summary: 'Imagem do QR Code da cobrança (PNG ou SVG), do seu pixPayload',
          description:
            'Answers 200 image/png (default) or image/svg+xml, an image that decodes to the exact pixPayload; errors as { error }: 400 (format, size, transactionId), 401, 403, 404.',
          security: [{ apiKey: [] }],
          params: transactionIdParams,
          querystring: qrImageQuery,
          produces: ['image/png', 'image/svg+xml'],
        },
      },
      async (request, reply) => {
        if (!isId(request.params.id)) throw new InvalidRequestError(messages.transactionIdInvalid);
        const image = await charges.qrImage(request.merchant.account.id, request.params.id, request.query.format ?? 'png', request.query.size);
        return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.body);
      },
    );
  };

/** A created (or replayed) charge as the due-date endpoints answer it: expiresAt in seconds, with its dates when it has a due date. */
function dueChargeView({ due, ...summary }: ChargeResult['charge']): Omit<ChargeResult['charge'], 'due' | 'expiresAt'> & {
  expiresAt: number;
  dueDate?: string;
  lastPayableDate?: string;
} {
  const dates = due ? { dueDate: due.dueDate, lastPayableDate: lastPayableDate(due) } : {};
  return { ...summary, ...dates, expiresAt: Math.floor(summary.expiresAt.getTime() / 1000) };
}
