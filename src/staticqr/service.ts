import { randomInt } from 'node:crypto';
import { assertChargeAmountAllowed, type Account } from '../accounts/model.js';
import { InvalidRequestError, InvalidStateError, NotFoundError } from '../errors.js';
import { computeFee } from '../ledger/fees.js';
import { renderQrImage, type QrFormat } from '../charges/qrImage.js';
import { holdIfPayerMarked, postChargePaid } from '../charges/service.js';
import type { FraudMarkService } from '../fraudmarks/service.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { StaticQrCodeRow, TransactionRow } from '../platform/schema.js';
import { buildStaticBrCode } from '../pix/brcode.js';
import type { PaymentReceipt, ReceivedPayment, StaticPayment } from '../provider/provider.js';
import type { RoutingService } from '../routing/service.js';
import { recordTransactionEvents } from '../transactions/events.js';
import type { PresentedRow } from '../transactions/presenter.js';
import { insertTransaction } from '../transactions/repository.js';
import { CHARGE } from '../transactions/states.js';
import * as repository from './repository.js';
import type { CreateStaticQrBody } from './schemas.js';

const TXID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** How many codes the list shows. */
const LIST_LIMIT = 100;

/** A txid of our own: 25 characters from 32 (125 bits), so two merchants' codes never meet. */
const newTxid = () => Array.from({ length: 25 }, () => TXID_ALPHABET[randomInt(TXID_ALPHABET.length)]).join('');

/**
 * Static QR codes (DESIGN.md §17): a merchant's reusable BR Code on the receiving key of a
 * provider that has one, with an optional fixed amount, description and txid. Each PIX paid to
 * one is a new pix_in transaction, created paid, with its `transaction.paid` event.
 */
export class StaticQrService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly routing: RoutingService,
    private readonly fraudMarks: Pick<FraudMarkService, 'isMarked'>,
  ) {}

  async create(account: Account, input: CreateStaticQrBody): Promise<{ outcome: 'created' | 'replayed'; code: StaticQrCodeRow }> {
    if (input.amountCents !== undefined) assertChargeAmountAllowed(account.limits, input.amountCents);
    const externalRef = input.externalRef ?? null;
    if (externalRef) {
      const existing = await repository.findStaticQrCodeByExternalRef(this.db, account.id, externalRef);
      if (existing) return { outcome: 'replayed', code: existing };
    }
    // The account's routing for charges, without a probe: creating a code calls no provider.
    const provider = (await this.routing.candidates('charges', account.id, { probe: false })).find((candidate) => candidate.receivingKey);
    if (!provider?.receivingKey) throw new InvalidStateError(messages.staticQrUnavailable);
    const txid = input.txid ?? newTxid();
    const pixPayload = buildStaticBrCode({
      pixKey: provider.receivingKey,
      merchantName: account.name,
      merchantCity: account.city,
      amountCents: input.amountCents,
      description: input.description,
      txid,
    });
    const code = await repository.insertStaticQrCode(this.db, {
      id: newId(),
      accountId: account.id,
      txid,
      amountCents: input.amountCents ?? null,
      description: input.description ?? null,
      pixPayload,
      providerId: provider.id,
      externalRef,
      createdAt: this.clock.now(),
    });
    if (code) return { outcome: 'created', code };
    // A concurrent request with the same externalRef won: answer its code.
    const winner = externalRef ? await repository.findStaticQrCodeByExternalRef(this.db, account.id, externalRef) : undefined;
    if (winner) return { outcome: 'replayed', code: winner };
    throw new InvalidStateError(messages.staticQrTxidTaken);
  }

  list(accountId: string): Promise<StaticQrCodeRow[]> {
    return repository.listStaticQrCodes(this.db, accountId, LIST_LIMIT);
  }

  async get(accountId: string, id: string): Promise<StaticQrCodeRow> {
    const code = await repository.findStaticQrCode(this.db, accountId, id);
    if (!code) throw new NotFoundError(messages.staticQrNotFound);
    return code;
  }

  /** How many PIX each of the codes received (one grouped count, on the partial index of paid codes). */
  paymentCounts(accountId: string, codeIds: readonly string[]): Promise<Map<string, number>> {
    return repository.countStaticQrPayments(this.db, accountId, codeIds);
  }

  /** The latest PIX paid to one of the account's codes: pix_in transactions, newest first (another account's code has none here). */
  payments(accountId: string, id: string, limit: number): Promise<PresentedRow[]> {
    return repository.listStaticQrPayments(this.db, accountId, id, limit);
  }

  /** The QR image of one of the account's codes (active or not: the code is the same). */
  async qrImage(accountId: string, id: string, format: QrFormat, size: number) {
    return renderQrImage((await this.get(accountId, id)).pixPayload, format, size);
  }

  /** No PIX is taken for it any more (a payment in flight waits for the code's lock and then sees it). */
  async deactivate(accountId: string, id: string): Promise<StaticQrCodeRow> {
    const code = await this.get(accountId, id);
    const deactivated = await repository.deactivateStaticQrCode(this.db, accountId, code.id, this.clock.now());
    if (!deactivated) throw new InvalidStateError(messages.staticQrInactive);
    return deactivated;
  }

  /**
   * A PIX paid to an active code of the account: the amount it must be (a code with a fixed
   * amount takes only that; one without takes any amount from the account's minimum).
   */
  assertPayable(account: Account, code: StaticQrCodeRow, amountCents: number | undefined): number {
    if (!code.active) throw new InvalidStateError(messages.staticQrInactive);
    if (code.amountCents !== null) {
      if (amountCents !== undefined && amountCents !== code.amountCents) throw new InvalidRequestError(messages.sandboxAmountMismatch);
      return code.amountCents;
    }
    const { chargeMinCents, chargeMaxCents } = account.limits;
    if (amountCents === undefined || !Number.isInteger(amountCents) || amountCents < Math.max(1, chargeMinCents)) {
      throw new InvalidRequestError(messages.staticQrAmountRequired);
    }
    if (amountCents > chargeMaxCents) throw new InvalidRequestError(messages.amountAboveMaximum(chargeMaxCents));
    return amountCents;
  }

  /**
   * A PIX received for the code: a new pix_in transaction, paid, credited (net of the fee) with its
   * event. Under the code's lock, so a deactivation that answered first is seen here.
   */
  receive(account: Account, code: StaticQrCodeRow, payment: ReceivedPayment & { amountCents: number }): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const locked = await repository.lockStaticQrCode(tx, account.id, code.id);
      if (!locked) throw new NotFoundError(messages.staticQrNotFound);
      if (!locked.active) throw new InvalidStateError(messages.staticQrInactive);
      return this.credit(tx, account, locked, payment);
    });
  }

  /**
   * A PIX a provider reported to its receiving key with a code's txid (no charge behind it):
   * credited as `receive` does, once per end-to-end id (a repeat finds it under the code's lock).
   * One the code cannot take — deactivated, another amount than its fixed one, outside the
   * account's limits — or that reached another provider than the code's is not credited:
   * 'unknown_charge', the money left to the operator, as a PIX for no charge of ours.
   */
  async receiveReported(providerId: string, payment: StaticPayment, accountOf: (accountId: string) => Promise<Account>): Promise<PaymentReceipt> {
    const code = await repository.findStaticQrCodeByTxid(this.db, payment.txid);
    if (!code || code.providerId !== providerId) return 'unknown_charge';
    const account = await accountOf(code.accountId);
    return this.db.transaction().execute(async (tx): Promise<PaymentReceipt> => {
      const locked = await repository.lockStaticQrCode(tx, account.id, code.id);
      if (!locked) return 'unknown_charge';
      if (await repository.findPaymentByEndToEndId(tx, payment.endToEndId)) return 'duplicate';
      try {
        await this.credit(tx, account, locked, { ...payment, amountCents: this.assertPayable(account, locked, payment.amountCents) });
        return 'credited';
      } catch (error) {
        if (error instanceof InvalidStateError || error instanceof InvalidRequestError) return 'unknown_charge';
        throw error;
      }
    });
  }

  /** The code's new pix_in transaction, paid and credited, with its events, under the code's lock. */
  private async credit(tx: Tx, account: Account, code: StaticQrCodeRow, payment: ReceivedPayment & { amountCents: number }): Promise<TransactionRow> {
    const now = this.clock.now();
    const feeCents = computeFee(account.fees.pixIn, payment.amountCents, { capAtAmount: true });
    const received = await insertTransaction(tx, CHARGE.receive, {
      id: newId(),
      accountId: account.id,
      amountCents: payment.amountCents,
      feeCents,
      netCents: payment.amountCents - feeCents,
      description: code.description,
      pixPayload: code.pixPayload,
      paidAt: now,
      endToEndId: payment.endToEndId,
      payer: payment.payer ? JSON.stringify(payment.payer) : null,
      providerId: code.providerId,
      staticQrId: code.id,
      createdAt: now,
      updatedAt: now,
    });
    await postChargePaid(tx, received, now);
    await holdIfPayerMarked(tx, received, now, this.fraudMarks);
    await recordTransactionEvents(
      tx,
      CHARGE.receive.events.map((name) => ({ name, transaction: received })),
      now,
    );
    return received;
  }
}
