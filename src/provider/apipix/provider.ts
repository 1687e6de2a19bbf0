import type { z } from 'zod';
import type { ReceiverAccount } from '../../config.js';
import type { Holder } from '../../platform/schema.js';
import { ApiPixRecurrences } from './recurrences.js';
import {
  FRAUD_MARKED_REFUSAL,
  ProviderError,
  ProviderOutcomeUnknownError,
  type ChargeKind,
  type ChargeRemoval,
  type ChargeRequest,
  type CreatedCharge,
  type PixProvider,
  type ProviderLogger,
  type ProviderRecord,
  type RecurrenceProvider,
  type RefundOutcome,
  type RefundRequest,
  type SendTiming,
  type WithdrawalOutcome,
  type WithdrawalRequest,
  type WithdrawalSubmission,
} from '../provider.js';
import { PspRefusal, PspUnavailable, readPages, refusedOrUnanswered, type PspCall, type PspClient } from './client.js';
import {
  beneficiaryOf,
  brCodeProblem,
  centsOf,
  cobSchema,
  cobvBodyOf,
  createdCobSchema,
  createdCobvSchema,
  devolucaoSchema,
  balanceSchema,
  idOfTxid,
  isMedReturn,
  pixPageSchema,
  pixSchema,
  refundOutcomeOf,
  sentPixPageSchema,
  sentPixSchema,
  txidOf,
  valorOf,
} from './payloads.js';

/**
 * Efí's refusals that mean the key cannot receive from us: the withdrawal fails (nothing left).
 * `chave_com_restricao`: the DICT marks the key for fraud (Res. BCB 501), refused as the gateway's
 * own list refuses (docs/fraud-marks.md).
 */
const KEY_REFUSALS: Record<string, string> = {
  chave_nao_pertence_ao_documento: 'holder_mismatch',
  chave_favorecido_nao_encontrada: 'key_not_found',
  chave_com_restricao: FRAUD_MARKED_REFUSAL,
};

/**
 * Banco Central's API Pix (DESIGN.md §12) for charges, received PIX and refunds, and Efí's
 * published cash-out (`/gn/pix`) for withdrawals. Our ids become the PSP's: a charge's txid, a
 * withdrawal's idEnvio and a refund's devolução id are the UUID's 32 hex digits, so every PUT can
 * be sent again without doing anything twice.
 */
export class ApiPixProvider implements PixProvider {
  readonly name = 'apipix';
  /** A charge with a due date is registered as a cobv. */
  readonly dueCharges = true;

  /** Static QR codes carry the account's key at the PSP; a PIX paid from one names the code by its txid. */
  get receivingKey(): string {
    return this.pixKey;
  }

  /** Pix Automático: only with the operator's account at the PSP, which every cobr names (PSP_RECEIVER_ACCOUNT). */
  readonly recurrences: RecurrenceProvider | undefined;

  constructor(
    readonly id: string,
    private readonly client: PspClient,
    readonly sendTiming: SendTiming,
    private readonly pixKey: string,
    private readonly logger: Pick<ProviderLogger, 'warn'>,
    receiverAccount: ReceiverAccount | null = null,
  ) {
    this.recurrences = receiverAccount ? new ApiPixRecurrences((schema, call) => this.read(schema, call), receiverAccount) : undefined;
  }

  async createCharge(request: ChargeRequest): Promise<CreatedCharge> {
    if (request.due) return this.createDueCharge(request, request.due);
    const expiracao = Math.max(1, Math.round((request.expiresAt.getTime() - Date.now()) / 1000));
    const cob = await this.read(createdCobSchema, {
      method: 'PUT',
      path: `/cob/${txidOf(request.transactionId)}`,
      body: { calendario: { expiracao }, valor: { original: valorOf(request.amountCents) }, chave: this.pixKey },
      idempotent: true,
    }).catch(refusedOrUnanswered);
    if (centsOf(cob.valor.original) !== request.amountCents) throw new ProviderError('PSP registered another amount');
    const problem = brCodeProblem(cob.pixCopiaECola, { location: cob.location, amountCents: request.amountCents });
    if (problem) {
      this.logger.warn({ transactionId: request.transactionId, problem }, 'PSP answered a BR Code that does not check');
      throw new ProviderError(`PSP BR Code refused: ${problem}`);
    }
    return { location: cob.location, pixPayload: cob.pixCopiaECola };
  }

  /** `PUT /cobv/{txid}`: the PSP computes the amount due on each day from these terms, as the gateway does. */
  private async createDueCharge(request: ChargeRequest, due: NonNullable<ChargeRequest['due']>): Promise<CreatedCharge> {
    const cobv = await this.read(createdCobvSchema, {
      method: 'PUT',
      path: `/cobv/${txidOf(request.transactionId)}`,
      body: cobvBodyOf(request.amountCents, due, this.pixKey),
      idempotent: true,
    }).catch(refusedOrUnanswered);
    if (cobv.status !== 'ATIVA') throw new ProviderError(`PSP registered the charge with status ${cobv.status}`);
    if (centsOf(cobv.valor.original) !== request.amountCents) throw new ProviderError('PSP registered another amount');
    // Another due date would make the PSP ask for another amount than the gateway accepts.
    if (cobv.calendario.dataDeVencimento !== due.terms.dueDate) throw new ProviderError('PSP registered another due date');
    const location = cobv.location ?? cobv.loc?.location;
    if (!location) throw new ProviderError('PSP answered no location');
    const problem = brCodeProblem(cobv.pixCopiaECola, { location, amountCents: null });
    if (problem) {
      this.logger.warn({ transactionId: request.transactionId, problem }, 'PSP answered a BR Code that does not check');
      throw new ProviderError(`PSP BR Code refused: ${problem}`);
    }
    return { location, pixPayload: cobv.pixCopiaECola };
  }

  /** A charge is a cob or a cobv; an orphan may be either, so both are tried before saying it is absent. */
  async cancelCharge(transactionId: string, kind?: ChargeKind): Promise<ChargeRemoval> {
    if (kind) return this.removeCharge(kind.due ? 'cobv' : 'cob', transactionId);
    const removal = await this.removeCharge('cob', transactionId);
    return removal === 'absent' ? this.removeCharge('cobv', transactionId) : removal;
  }

  private async removeCharge(kind: 'cob' | 'cobv', transactionId: string): Promise<ChargeRemoval> {
    const path = `/${kind}/${txidOf(transactionId)}`;
    try {
      await this.client.call({ method: 'PATCH', path, body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }, idempotent: true });
      return 'removed';
    } catch (error) {
      // A repeat of a PATCH that got through is refused: the charge is removed all the same.
      if (!(error instanceof PspRefusal)) refusedOrUnanswered(error);
      const cob = await this.query(cobSchema, path);
      // An orphan whose registration never reached the PSP: nothing to remove.
      if (cob === 'not_found') return 'absent';
      if (!cob) throw new ProviderError('PSP did not answer whether the charge was removed', { unavailable: true });
      if (cob.status === 'CONCLUIDA') return 'paid';
      if (!cob.status.startsWith('REMOVIDA_')) throw new ProviderError(`PSP refused the removal (status ${cob.status})`);
      return 'removed';
    }
  }

  async createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission> {
    const { document, documentType } = request.expectedHolder;
    try {
      await this.read(sentPixSchema, {
        method: 'PUT',
        path: `/gn/pix/${txidOf(request.transactionId)}`,
        // The PSP checks that the key's holder has this document before anything leaves.
        body: { valor: valorOf(request.amountCents), pagador: { chave: this.pixKey }, favorecido: { chave: request.pixKey, [documentType]: document } },
        idempotent: true,
      });
      return { status: 'accepted' };
    } catch (error) {
      if (error instanceof PspRefusal) {
        // A repeat of a send that got through: accepted the first time.
        if (error.problem.nome === 'id_envio_duplicado') return { status: 'accepted' };
        const reason = KEY_REFUSALS[error.problem.nome ?? ''];
        if (reason) return { status: 'rejected', reason };
        const refusal = `PSP refused the withdrawal (${error.status} ${error.problem.nome ?? error.problem.type ?? ''})`;
        // Refused on a retry of an attempt that may have got through: it may be sent; never moved elsewhere.
        if (error.afterDelivery) throw new ProviderOutcomeUnknownError(`${refusal} after an attempt that may have reached it`);
        throw new ProviderError(refusal);
      }
      refusedOrUnanswered(error);
    }
  }

  async withdrawalOutcome(withdrawal: { transactionId: string; expectedHolder: Holder }): Promise<WithdrawalOutcome> {
    const sent = await this.query(sentPixSchema, `/gn/pix/enviados/id-envio/${txidOf(withdrawal.transactionId)}`);
    // Not proof by itself: the services wait for the settling window (docs/providers.md).
    if (sent === 'not_found') return { status: 'not_received' };
    if (!sent) return { status: 'unknown' };
    if (sent.status === 'NAO_REALIZADO') return { status: 'failed', reason: 'nao_realizado' };
    const endToEndId = sent.endToEndId ?? sent.e2eId;
    if (sent.status !== 'REALIZADO' || !endToEndId) return { status: 'unknown' };
    return { status: 'paid', endToEndId, beneficiary: beneficiaryOf(sent, withdrawal.expectedHolder) };
  }

  async requestRefund(request: RefundRequest): Promise<RefundOutcome> {
    if (request.nature === 'med') return this.medReturnOf(request);
    const devolucao = await this.read(devolucaoSchema, {
      method: 'PUT',
      path: devolucaoPath(request),
      body: { valor: valorOf(request.amountCents), natureza: 'ORIGINAL' },
      idempotent: true,
    }).catch(refusedOrUnanswered);
    return refundOutcomeOf(devolucao);
  }

  async refundOutcome(request: RefundRequest): Promise<RefundOutcome> {
    if (request.nature === 'med') return this.medReturnOf(request);
    const devolucao = await this.query(devolucaoSchema, devolucaoPath(request));
    if (devolucao === 'not_found') return { status: 'not_received' };
    return devolucao ? refundOutcomeOf(devolucao) : { status: 'unknown' };
  }

  /**
   * A MED chargeback is executed by the PSP itself (API Pix offers no MED devolução to ask for):
   * settled once the PIX shows a MED return of the amount, unknown until then.
   */
  private async medReturnOf(request: RefundRequest): Promise<RefundOutcome> {
    const pix = await this.query(pixSchema, `/pix/${request.paymentEndToEndId}`);
    const done =
      pix && pix !== 'not_found'
        ? pix.devolucoes?.find((devolucao) => isMedReturn(devolucao) && devolucao.status === 'DEVOLVIDO' && centsOf(devolucao.valor) === request.amountCents)
        : undefined;
    return done ? refundOutcomeOf(done) : { status: 'unknown' };
  }

  /**
   * A question to the PSP (a GET) whose failure is an answer too: `not_found` when the PSP has no
   * such thing (404), null when it cannot tell now (refused or unanswered: asked again later).
   */
  private async query<T extends z.ZodType>(schema: T, path: string): Promise<z.infer<T> | 'not_found' | null> {
    try {
      return await this.read(schema, { method: 'GET', path, idempotent: true });
    } catch (error) {
      if (error instanceof PspRefusal && error.status === 404) return 'not_found';
      if (error instanceof PspRefusal || error instanceof PspUnavailable) return null;
      throw error;
    }
  }

  /**
   * The PSP's records of the period: the PIX received (`GET /pix`) with their devoluções, and the
   * PIX sent through Efí's cash-out (`GET /gn/pix/enviados`). ProviderError when it cannot list them.
   */
  async listRecords(period: { from: Date; to: Date }): Promise<ProviderRecord[]> {
    const range = { inicio: period.from.toISOString(), fim: period.to.toISOString() };
    const records: ProviderRecord[] = [];
    try {
      for await (const page of readPages(this.client, pixPageSchema, '/pix', range)) {
        for (const pix of page.pix ?? []) {
          records.push({ movement: 'payment', reference: pix.endToEndId, amountCents: centsOf(pix.valor), status: 'settled', at: new Date(pix.horario) });
          for (const devolucao of pix.devolucoes ?? []) {
            // Ours by their id; a MED return the PSP made on its own by its end-to-end id.
            const reference = idOfTxid(devolucao.id) ?? devolucao.rtrId;
            const status = devolucao.status === 'DEVOLVIDO' ? 'settled' : devolucao.status === 'NAO_REALIZADO' ? 'failed' : 'pending';
            records.push({
              movement: 'refund',
              reference,
              endToEndId: devolucao.rtrId,
              amountCents: centsOf(devolucao.valor),
              status,
              at: new Date(pix.horario),
            });
          }
        }
      }
      for await (const page of readPages(this.client, sentPixPageSchema, '/gn/pix/enviados', range)) {
        for (const sent of page.pix ?? []) {
          const reference = idOfTxid(sent.idEnvio);
          if (!reference) continue; // sent by other means than this gateway
          const status = sent.status === 'REALIZADO' ? 'settled' : sent.status === 'NAO_REALIZADO' ? 'failed' : 'pending';
          records.push({ movement: 'withdrawal', reference, amountCents: centsOf(sent.valor), status, at: new Date(sent.horario.solicitacao) });
        }
      }
    } catch (error) {
      refusedOrUnanswered(error);
    }
    return records;
  }

  /** Efí's balance of the operator's account (`GET /gn/saldo`). */
  async balance(): Promise<number | null> {
    const answer = await this.read(balanceSchema, { method: 'GET', path: '/gn/saldo', idempotent: true }).catch(refusedOrUnanswered);
    return centsOf(answer.saldo);
  }

  /** One call whose 2xx answer must have `schema`'s shape (a PSP answer is input like any other). */
  private async read<T extends z.ZodType>(schema: T, call: PspCall): Promise<z.infer<T>> {
    const parsed = schema.safeParse(await this.client.call(call));
    if (!parsed.success) {
      this.logger.warn({ path: call.path.replace(/\/[0-9a-zA-Z]{26,}/g, '/…'), issues: parsed.error.issues.slice(0, 3) }, 'PSP answer of an unexpected shape');
      throw new PspUnavailable(true, 'answer of an unexpected shape');
    }
    return parsed.data;
  }
}

const devolucaoPath = (request: RefundRequest) => `/pix/${request.paymentEndToEndId}/devolucao/${txidOf(request.refundId)}`;
