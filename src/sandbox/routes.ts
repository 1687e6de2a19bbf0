import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { documentTypeOf, normalizeDocument } from '../pix/documents.js';
import { errorResponses, partySchema, positiveAmountSchema } from '../platform/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { transactionIdParams, transactionSchema } from '../transactions/schemas.js';
import type { SandboxService } from './service.js';
import { presentRefund } from '../refunds/presenter.js';
import { refundIdParams, refundSchema } from '../refunds/schemas.js';
import { presentInfraction } from '../infractions/presenter.js';
import { requireInfractionId, infractionIdParams, infractionSchema, openInfractionBody } from '../infractions/schemas.js';
import { staticQrIdParams } from '../staticqr/schemas.js';
import { dateSchema } from '../charges/schemas.js';
import { presentRecurrence } from '../recurrences/presenter.js';
import { cycleOf, cycleParams, recurrenceIdOf, recurrenceIdParams, recurrenceSchema } from '../recurrences/schemas.js';

const payerSchema = z
  .object(
    {
      name: z.string({ error: messages.sandboxPayerInvalid }).trim().min(1, messages.sandboxPayerInvalid).max(120, messages.sandboxPayerInvalid),
      document: z.string({ error: messages.sandboxPayerInvalid }).transform(normalizeDocument),
      documentType: z.enum(['cpf', 'cnpj'], { error: messages.sandboxPayerInvalid }),
      bankAccount: z.object(
        {
          ispb: z.string({ error: messages.sandboxPayerInvalid }).regex(/^[0-9A-Z]{8}$/, messages.sandboxPayerInvalid),
          branch: z.string({ error: messages.sandboxPayerInvalid }).regex(/^\d{1,6}$/, messages.sandboxPayerInvalid),
          account: z.string({ error: messages.sandboxPayerInvalid }).regex(/^[0-9A-Za-z-]{1,20}$/, messages.sandboxPayerInvalid),
        },
        { error: messages.sandboxPayerInvalid },
      ),
    },
    { error: messages.sandboxPayerInvalid },
  )
  .refine((payer) => documentTypeOf(payer.document) === payer.documentType, messages.sandboxPayerInvalid);

const paymentFields = {
  payer: payerSchema.optional(),
  amountCents: z.number({ error: messages.sandboxAmountMismatch }).optional(),
};

const staticPayBody = z.object(paymentFields, { error: messages.bodyNotObject }).nullish();

const payBody = z
  .object(
    {
      ...paymentFields,
      paidOn: dateSchema(messages.sandboxPaidOnInvalid).optional().meta({
        description:
          "A charge with a due date paid as on this day (AAAA-MM-DD, America/Sao_Paulo), from its creation to its last payable day: it owes that day's amount (discount, fine, interest). Today when absent.",
      }),
      held: z.boolean({ error: messages.sandboxHeldInvalid }).optional().meta({
        description:
          'The PSP holds the PIX (cautionary block, Res. BCB 506): the charge is paid (held: true, heldUntil = now + 72 h), its net amount credited and blocked (transaction.blocked) until hold/release, hold/return or heldUntil. Default false.',
      }),
    },
    { error: messages.bodyNotObject },
  )
  .nullish();

/** A payment after the charge stopped being pending: the amount the payer sent, the charge's by default. */
const latePaymentBody = z.object({ payer: payerSchema.optional(), amountCents: positiveAmountSchema.optional() }, { error: messages.bodyNotObject }).nullish();

const nextChargeBody = z.object({ outcome: z.enum(['provider_error'], { error: messages.sandboxChargeOutcomeInvalid }) }, { error: messages.bodyNotObject });

function requireTransactionId(id: string): string {
  if (!isId(id)) throw new InvalidRequestError(messages.transactionIdInvalid);
  return id;
}

/** The simulated PIX network (DESIGN.md §6), acting only on the authenticated merchant's transactions. */
const settleBody = z.object(
  {
    outcome: z.enum(['paid', 'failed', 'returned'], { error: messages.sandboxSettleOutcomeInvalid }),
    amountCents: z.number({ error: messages.returnAmountInvalid }).optional(),
  },
  { error: messages.bodyNotObject },
);

const nextWithdrawalBody = z.object(
  { outcome: z.enum(['provider_error', 'unknown', 'interrupted'], { error: messages.sandboxWithdrawalOutcomeInvalid }) },
  { error: messages.bodyNotObject },
);

/** The answer to arming a provider outcome for the next charge or withdrawal. */
const armedResponse = z.object({ armed: z.literal(true), outcome: z.string() });

const settleRefundBody = z.object(
  { outcome: z.enum(['refunded', 'failed'], { error: messages.sandboxRefundOutcomeInvalid }) },
  { error: messages.bodyNotObject },
);

const closeInfractionBody = z.object(
  {
    outcome: z.enum(['accepted', 'rejected'], { error: messages.sandboxInfractionOutcomeInvalid }),
    recoveredCents: z.int({ error: messages.recoveredCentsInvalid }).positive(messages.recoveredCentsInvalid).optional().meta({
      description: "With `accepted`: what the PSP recovered for the victim (at most the case's amount; default all of it). The rest of the block is released.",
    }),
  },
  { error: messages.bodyNotObject },
);

const dictKeyBody = z.object(
  {
    key: z.string({ error: messages.pixKeyRequired }).trim().min(1, messages.pixKeyRequired),
    keyType: z.enum(['email', 'phone', 'evp'], { error: messages.sandboxDictKeyTypeInvalid }),
    owner: payerSchema,
    fraudMarked: z
      .boolean({ error: messages.sandboxDictFraudMarkedInvalid })
      .optional()
      .meta({ description: 'The DICT reports the key as fraud-marked (Res. BCB 501): withdrawals and recipients to it are refused. Default false.' }),
  },
  { error: messages.bodyNotObject },
);

const debitBody = z.object(
  {
    outcome: z.enum(['paid', 'failed'], { error: messages.sandboxDebitOutcomeInvalid }),
    payer: payerSchema.optional(),
  },
  { error: messages.bodyNotObject },
);

/** The next cycle's debit: paid unless said otherwise. */
const nextDebitBody = z
  .object(
    {
      outcome: z.enum(['paid', 'failed'], { error: messages.sandboxDebitOutcomeInvalid }).optional(),
      payer: payerSchema.optional(),
    },
    { error: messages.bodyNotObject },
  )
  .nullish();

export const sandboxRoutes =
  ({ sandbox }: { sandbox: SandboxService }): FastifyPluginAsyncZod =>
  async (app) => {
    const common = { tags: ['Sandbox'], security: [{ apiKey: [] }] };

    app.post(
      '/pix/:id/pay',
      {
        schema: {
          ...common,
          summary: 'Um pagador paga a cobrança',
          description:
            'Its amount (amountCents, when given, must equal it). A charge with a due date owes the amount due on the day of payment: today, or the day given as paidOn (422 outside its payable days or for a charge without a due date); its money moves now.',
          params: transactionIdParams,
          body: payBody,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        const { payer, amountCents, paidOn, held } = request.body ?? {};
        const paid = await sandbox.pay(request.merchant.account.id, requireTransactionId(request.params.id), { payer, amountCents, paidOn, held });
        return presentTransaction(paid);
      },
    );

    app.post(
      '/pix/:id/hold/release',
      {
        schema: {
          ...common,
          summary: 'O PSP libera um PIX retido (bloqueio cautelar)',
          description: 'The block ends and the money is withdrawable: held false, transaction.hold_released. 422 when the charge is not held.',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => presentTransaction(await sandbox.releaseHold(request.merchant.account.id, requireTransactionId(request.params.id))),
    );

    app.post(
      '/pix/:id/hold/return',
      {
        schema: {
          ...common,
          summary: 'O PSP devolve ao pagador um PIX retido (bloqueio cautelar)',
          description:
            "The payment's whole movement is reversed, fee included (the balance is as before the PIX), with a settled refund of kind cautionary_return: the charge ends refunded, transaction.refunded. 422 when the charge is not held.",
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => presentTransaction(await sandbox.returnHold(request.merchant.account.id, requireTransactionId(request.params.id))),
    );

    for (const answer of ['authorize', 'refuse'] as const) {
      app.post(
        `/recurrences/:id/${answer}`,
        {
          schema: {
            ...common,
            summary: answer === 'authorize' ? 'O pagador autoriza uma recorrência' : 'O pagador recusa uma recorrência',
            description: `Pix Automático: the payer's answer to the authorization request (recurrence.${answer === 'authorize' ? 'authorized' : 'refused'}). 422 unless it awaits authorization.`,
            params: recurrenceIdParams,
            response: { 200: recurrenceSchema, ...errorResponses(400, 401, 403, 404, 422) },
          },
        },
        async (request) => presentRecurrence(await sandbox.answerRecurrence(request.merchant.account.id, recurrenceIdOf(request.params.id), answer)),
      );
    }

    app.post(
      '/recurrences/:id/cancel',
      {
        schema: {
          ...common,
          summary: 'O pagador cancela uma recorrência',
          description: 'As the merchant’s cancellation, with cancelledBy payer: its pending cycles are cancelled too.',
          params: recurrenceIdParams,
          response: { 200: recurrenceSchema, ...errorResponses(400, 401, 403, 404, 422, 502) },
        },
      },
      async (request) => presentRecurrence(await sandbox.cancelRecurrence(request.merchant.account.id, recurrenceIdOf(request.params.id))),
    );

    app.post(
      '/recurrences/:id/cycles/next/debit',
      {
        schema: {
          ...common,
          summary: 'O banco do pagador debita agora o próximo ciclo da recorrência',
          description:
            "Its earliest pending cycle, or else its next cycle, whose charge is created first as the worker creates it (however far ahead its date): debited at once, whatever its attempt day. paid (the default: transaction.paid, credited) or failed (retried per the recurrence's policy: recurrence.retry_scheduled, then the next call debits it again; otherwise transaction.failed). 422 unless the recurrence is authorized, or when it has no cycle left.",
          params: recurrenceIdParams,
          body: nextDebitBody,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422, 502) },
        },
      },
      async (request) =>
        presentTransaction(
          await sandbox.debitRecurrenceCycle(
            request.merchant.account.id,
            recurrenceIdOf(request.params.id),
            'next',
            request.body?.outcome ?? 'paid',
            request.body?.payer,
          ),
        ),
    );

    app.post(
      '/recurrences/:id/cycles/:cycle/debit',
      {
        schema: {
          ...common,
          summary: 'O banco do pagador debita um ciclo',
          description:
            "On the cycle's attempt day or later (422 before): paid (transaction.paid, credited) or failed; a failed debit is retried the next day when the recurrence allows retries (recurrence.retry_scheduled), otherwise the charge fails (transaction.failed).",
          params: cycleParams,
          body: debitBody,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) =>
        presentTransaction(
          await sandbox.debitRecurrenceCycle(
            request.merchant.account.id,
            recurrenceIdOf(request.params.id),
            cycleOf(request.params.cycle),
            request.body.outcome,
            request.body.payer,
          ),
        ),
    );

    app.post(
      '/recurrences/:id/cycles/:cycle/cancel',
      {
        schema: {
          ...common,
          summary: 'O pagador cancela o débito de um ciclo',
          description: 'Before its due date only (BCB: until the day before); transaction.cancelled.',
          params: cycleParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422, 502) },
        },
      },
      async (request) =>
        presentTransaction(await sandbox.cancelRecurrenceCycle(request.merchant.account.id, recurrenceIdOf(request.params.id), cycleOf(request.params.cycle))),
    );

    app.post(
      '/pix/static/:id/pay',
      {
        schema: {
          ...common,
          summary: 'Um pagador paga um QR Code estático',
          description:
            'Its fixed amount (amountCents, when given, must equal it), or for a code without one the amountCents given (required). Answers the new pix_in transaction, paid. 404 for a code of another account, 422 for an inactive one.',
          params: staticQrIdParams,
          body: staticPayBody,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        if (!isId(request.params.id)) throw new NotFoundError(messages.staticQrNotFound);
        return presentTransaction(await sandbox.payStaticQr(request.merchant.account, request.params.id, request.body?.payer, request.body?.amountCents));
      },
    );

    app.post(
      '/pix/:id/expire',
      {
        schema: {
          ...common,
          summary: 'A validade da cobrança termina agora',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => presentTransaction(await sandbox.expire(request.merchant.account.id, requireTransactionId(request.params.id))),
    );

    app.post(
      '/provider/next-charge',
      {
        schema: {
          ...common,
          summary: 'A próxima criação de cobrança falha no provedor (502)',
          body: nextChargeBody,
          response: { 201: armedResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request, reply) => {
        await sandbox.armNextCharge(request.merchant.account.id, request.body.outcome);
        return reply.code(201).send({ armed: true as const, outcome: request.body.outcome });
      },
    );

    app.post(
      '/withdrawals/:id/settle',
      {
        schema: {
          ...common,
          summary: 'Resposta do provedor para um saque: pago, falhou ou devolvido depois de pago',
          params: transactionIdParams,
          body: settleBody,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        const settled = await sandbox.settle(
          request.merchant.account.id,
          requireTransactionId(request.params.id),
          request.body.outcome,
          request.body.amountCents,
        );
        return presentTransaction(settled);
      },
    );

    app.post(
      '/provider/next-withdrawal',
      {
        schema: {
          ...common,
          summary: 'O envio do próximo saque falha: 502 com estorno, 202 failed_unknown ou 502 com confirmação interrompida',
          body: nextWithdrawalBody,
          response: { 201: armedResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request, reply) => {
        await sandbox.armNextWithdrawal(request.merchant.account.id, request.body.outcome);
        return reply.code(201).send({ armed: true as const, outcome: request.body.outcome });
      },
    );

    app.post(
      '/dict/keys',
      {
        schema: {
          ...common,
          summary: 'Registra no DICT simulado quem é o titular de uma chave email/telefone/evp e se ela tem marcação de fraude',
          body: dictKeyBody,
          response: {
            201: z.object({ key: z.string(), keyType: z.string(), owner: partySchema, fraudMarked: z.boolean() }),
            ...errorResponses(400, 401, 403),
          },
        },
      },
      async (request, reply) => {
        const { keyType, owner } = request.body;
        const fraudMarked = request.body.fraudMarked ?? false;
        const key = await sandbox.registerDictKey(request.merchant.account.id, keyType, request.body.key, owner, fraudMarked);
        return reply.code(201).send({ key, keyType, owner, fraudMarked });
      },
    );

    app.post(
      '/pix/:id/fail',
      {
        schema: {
          ...common,
          summary: 'O provedor remove a cobrança pendente (ela termina como falha)',
          params: transactionIdParams,
          response: { 200: transactionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => presentTransaction(await sandbox.fail(request.merchant.account.id, requireTransactionId(request.params.id))),
    );

    app.post(
      '/pix/:id/late-payment',
      {
        schema: {
          ...common,
          summary: 'Chega um pagamento depois que a cobrança deixou de estar pendente: devolvido integralmente ao pagador, nunca creditado',
          params: transactionIdParams,
          body: latePaymentBody,
          response: { 201: refundSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request, reply) => {
        const refund = await sandbox.latePayment(
          request.merchant.account.id,
          requireTransactionId(request.params.id),
          request.body?.payer,
          request.body?.amountCents,
        );
        return reply.code(201).send(presentRefund(refund));
      },
    );

    app.post(
      '/refunds/:refundId/settle',
      {
        schema: {
          ...common,
          summary: 'Resposta do provedor para uma devolução em processamento',
          params: refundIdParams,
          body: settleRefundBody,
          response: { 200: refundSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => {
        if (!isId(request.params.refundId)) throw new InvalidRequestError(messages.refundIdInvalid);
        return presentRefund(await sandbox.settleRefund(request.merchant.account.id, request.params.refundId, request.body.outcome));
      },
    );

    app.post(
      '/provider/next-refund',
      {
        schema: {
          ...common,
          summary: 'A próxima devolução é recusada pelo provedor (502, nada é debitado)',
          body: nextChargeBody,
          response: { 201: armedResponse, ...errorResponses(400, 401, 403) },
        },
      },
      async (request, reply) => {
        await sandbox.armNextRefund(request.merchant.account.id, request.body.outcome);
        return reply.code(201).send({ armed: true as const, outcome: request.body.outcome });
      },
    );

    app.post(
      '/pix/:id/infraction',
      {
        schema: {
          ...common,
          summary: 'O banco do pagador abre um caso MED em uma cobrança paga (o valor fica bloqueado)',
          params: transactionIdParams,
          body: openInfractionBody,
          response: { 201: infractionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request, reply) => {
        const opened = await sandbox.openInfraction(request.merchant.account.id, requireTransactionId(request.params.id), request.body);
        return reply.code(201).send(presentInfraction(opened));
      },
    );

    app.post(
      '/infractions/:id/close',
      {
        schema: {
          ...common,
          summary: 'O PSP encerra um caso MED: aceito (devolução) ou recusado (bloqueio liberado)',
          params: infractionIdParams,
          body: closeInfractionBody,
          response: { 200: infractionSchema, ...errorResponses(400, 401, 403, 404, 422) },
        },
      },
      async (request) => presentInfraction(await sandbox.closeInfraction(request.merchant.account.id, requireInfractionId(request.params.id), request.body)),
    );
  };

const outageBody = z.object({ mode: z.enum(['down', 'timeout', 'up'], { error: messages.sandboxOutageModeInvalid }) }, { error: messages.bodyNotObject });

/**
 * The simulator's outage switch (DESIGN.md §14), an operator's control (admin token): one simulated
 * provider refuses every call (`down`), lets calls hang and lose their answers (`timeout`), or
 * works again (`up`). Shared by every process on the database within half a second.
 */
export const sandboxOutageRoutes =
  ({ sandbox }: { sandbox: SandboxService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/providers/:providerId/outage',
      {
        schema: {
          tags: ['Sandbox'],
          security: [{ adminToken: [] }],
          summary: 'Derruba um provedor simulado, o põe em timeouts ou o traz de volta (token do operador)',
          params: z.object({ providerId: z.string().max(64) }),
          body: outageBody,
          response: { 200: z.object({ providerId: z.string(), mode: z.enum(['down', 'timeout', 'up']) }), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        await sandbox.setOutage(request.params.providerId, request.body.mode);
        return { providerId: request.params.providerId, mode: request.body.mode };
      },
    );
  };
