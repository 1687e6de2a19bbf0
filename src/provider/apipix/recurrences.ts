import type { z } from 'zod';
import type { ReceiverAccount } from '../../config.js';
import { txidOf } from '../../pix/txid.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  RecurrenceLeftLiveError,
  type CycleChargeRequest,
  type RecurrenceProvider,
  type RecurrenceRequest,
} from '../provider.js';
import { PspRefusal, PspUnavailable, refusedOrUnanswered, type PspCall } from './client.js';
import { centsOf, cobrSchema, createdRecSchema, createdSolicRecSchema, recSchema, valorOf } from './payloads.js';

/** One call whose 2xx answer must have `schema`'s shape. */
export type Read = <T extends z.ZodType>(schema: T, call: PspCall) => Promise<z.infer<T>>;

const PERIODICIDADE: Record<RecurrenceRequest['frequency'], string> = {
  weekly: 'SEMANAL',
  monthly: 'MENSAL',
  quarterly: 'TRIMESTRAL',
  semiannual: 'SEMESTRAL',
  annual: 'ANUAL',
};

/** A rec in one of these is over at the PSP: nothing more can be debited under it. */
const ENDED_REC = new Set(['CANCELADA', 'REJEITADA', 'EXPIRADA']);

/**
 * Pix Automático through API Pix (DESIGN.md §17, docs/recurrences.md): the recurrence is a `rec`
 * (`POST /rec`) whose authorization request goes to the payer's account (`POST /solicrec`, BCB's
 * JORNADA_1); each cycle's charge is a `cobr` under our txid (`PUT /cobr/{txid}`), cancelled by
 * `PATCH`. The PSP's answers about them arrive by its callbacks (inbound.ts).
 */
export class ApiPixRecurrences implements RecurrenceProvider {
  /** BCB's solicrec names the payer's account (destinatario): required. */
  readonly requiresDebtorAccount = true;

  constructor(
    private readonly read: Read,
    private readonly receiverAccount: ReceiverAccount,
  ) {}

  /**
   * `POST /rec`, then `POST /solicrec`. A rec whose request could not be sent is cancelled there
   * (nothing half-made is left live): ProviderError once it is, RecurrenceLeftLiveError (its idRec, an
   * orphan rec for the gateway to cancel later) when even that fails. `POST` has no id of ours: a
   * rec whose answer was lost may remain (docs/recurrences.md).
   */
  async createRecurrence(request: RecurrenceRequest): Promise<{ providerRecurrenceId: string }> {
    const { debtor } = request;
    const account = debtor.account;
    if (!account) throw new ProviderError("API Pix's solicrec needs the payer's account");
    const person = debtor.documentType === 'cpf' ? { cpf: debtor.document } : { cnpj: debtor.document };
    const rec = await this.read(createdRecSchema, {
      method: 'POST',
      path: '/rec',
      body: {
        vinculo: { contrato: request.contract, ...(request.object ? { objeto: request.object } : {}), devedor: { ...person, nome: debtor.name } },
        calendario: {
          dataInicial: request.startDate,
          ...(request.endDate ? { dataFinal: request.endDate } : {}),
          periodicidade: PERIODICIDADE[request.frequency],
        },
        // A variable recurrence has no value: BCB's payer sets the ceiling when authorizing (docs/recurrences.md).
        ...(request.amountCents === null ? {} : { valor: { valorRec: valorOf(request.amountCents) } }),
        politicaRetentativa: request.retriesAllowed ? 'PERMITE_3R_7D' : 'NAO_PERMITE',
      },
      idempotent: false,
    }).catch(refusedOrUnanswered);
    if (rec.status !== 'CRIADA') throw new ProviderError(`PSP registered the recurrence with status ${rec.status}`);
    try {
      await this.read(createdSolicRecSchema, {
        method: 'POST',
        path: '/solicrec',
        body: {
          idRec: rec.idRec,
          calendario: { dataExpiracaoSolicitacao: request.authorizationExpiresAt.toISOString() },
          destinatario: { ...person, conta: account.number, ispbParticipante: account.ispb, ...(account.branch ? { agencia: account.branch } : {}) },
        },
        idempotent: false,
      });
    } catch (error) {
      try {
        await this.cancelRecurrence(rec.idRec);
      } catch {
        throw new RecurrenceLeftLiveError(`PSP did not take the authorization request, nor the recurrence's cancellation: ${String(error)}`, rec.idRec);
      }
      throw new ProviderError(`PSP did not take the authorization request (the recurrence is cancelled there): ${String(error)}`);
    }
    return { providerRecurrenceId: rec.idRec };
  }

  /** `PATCH /rec/{idRec}` CANCELADA; refused, it counts as done when the rec is over there anyway. */
  async cancelRecurrence(providerRecurrenceId: string): Promise<void> {
    const path = `/rec/${encodeURIComponent(providerRecurrenceId)}`;
    try {
      await this.read(recSchema, { method: 'PATCH', path, body: { status: 'CANCELADA' }, idempotent: true });
    } catch (error) {
      if (!(error instanceof PspRefusal)) refusedOrUnanswered(error);
      const rec = await this.query(recSchema, path);
      if (rec === 'not_found' || !rec || !ENDED_REC.has(rec.status)) throw new ProviderError(`PSP refused the recurrence's cancellation (${error.status})`);
    }
  }

  /**
   * `PUT /cobr/{txid}`, the same txid on every attempt. BCB refuses a PUT whose txid is in use (400
   * CobROperacaoInvalida): a repeat is not idempotent. So any refusal reads the cobr back
   * (`GET /cobr/{txid}`) and adopts one registered by an earlier attempt whose answer was lost (in
   * this call, or a worker run before): the txid derives from our ids, so a cobr under it is ours,
   * taken when its idRec, amount and due date are the ones asked for.
   */
  async createCycleCharge(request: CycleChargeRequest): Promise<void> {
    const { tipoConta, agencia, conta } = this.receiverAccount;
    const path = `/cobr/${txidOf(request.transactionId)}`;
    let cobr;
    try {
      cobr = await this.read(cobrSchema, {
        method: 'PUT',
        path,
        body: {
          idRec: request.providerRecurrenceId,
          calendario: { dataDeVencimento: request.dueDate },
          valor: { original: valorOf(request.amountCents) },
          ajusteDiaUtil: request.businessDayAdjustment,
          recebedor: { conta, tipoConta, ...(agencia ? { agencia } : {}) },
        },
        idempotent: true,
      });
    } catch (error) {
      if (!(error instanceof PspRefusal)) refusedOrUnanswered(error);
      const found = await this.query(cobrSchema, path);
      // None under our txid: the refusal stands. The PSP cannot tell now: one may be there.
      if (found === 'not_found') refusedOrUnanswered(error);
      if (!found) throw new ProviderOutcomeUnknownError(`PSP refused the cycle's charge and could not be asked whether it holds one (${error.status})`);
      cobr = found;
    }
    if (cobr.idRec !== request.providerRecurrenceId) throw new ProviderError('PSP registered the cycle under another recurrence');
    if (centsOf(cobr.valor.original) !== request.amountCents) throw new ProviderError('PSP registered another amount');
    if (cobr.calendario.dataDeVencimento !== request.dueDate) throw new ProviderError('PSP registered another due date');
    if (cobr.status !== 'ATIVA' && cobr.status !== 'CRIADA') throw new ProviderError(`PSP registered the cycle's charge with status ${cobr.status}`);
  }

  /** `PATCH /cobr/{txid}` CANCELADA; refused, it counts as done when the cobr is cancelled there or was never registered. */
  async cancelCycleCharge(transactionId: string): Promise<void> {
    const path = `/cobr/${txidOf(transactionId)}`;
    try {
      await this.read(cobrSchema, { method: 'PATCH', path, body: { status: 'CANCELADA' }, idempotent: true });
    } catch (error) {
      if (!(error instanceof PspRefusal)) refusedOrUnanswered(error);
      const cobr = await this.query(cobrSchema, path);
      if (cobr === 'not_found' || cobr?.status === 'CANCELADA') return;
      throw new ProviderError(`PSP refused the cycle's cancellation (${error.status})`);
    }
  }

  /** A GET whose 404 is an answer (`not_found`); null when the PSP cannot tell now. */
  private async query<T extends z.ZodType>(schema: T, path: string): Promise<z.infer<T> | 'not_found' | null> {
    try {
      return await this.read(schema, { method: 'GET', path, idempotent: true });
    } catch (error) {
      if (error instanceof PspRefusal && error.status === 404) return 'not_found';
      if (error instanceof PspRefusal || error instanceof PspUnavailable) return null;
      throw error;
    }
  }
}
