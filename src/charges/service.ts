import { SIMULATED_ISPB } from '../config.js';
import type { Account } from '../accounts/model.js';
import { computeFee } from '../ledger/fees.js';
import { postMovement } from '../ledger/repository.js';
import { messages } from '../messages.js';
import { buildDynamicBrCode } from '../pix/brcode.js';
import { generateEndToEndId } from '../pix/endToEndId.js';
import type { Clock } from '../platform/clock.js';
import type { Db, Tx } from '../platform/database.js';
import { ApiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Party, TransactionRow } from '../platform/schema.js';
import { ProviderError, type PixProvider } from '../provider/provider.js';
import { claimIdempotencyKey, findTransactionByExternalRef, IDEMPOTENCY_SCOPE } from '../transactions/idempotency.js';
import { recordTransactionEvent, recordTransactionEvents } from '../webhooks/events.js';
import * as repository from './repository.js';
import type { NewCharge } from './repository.js';
import type { CreateChargeBody } from './schemas.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DEFAULT_EXPIRES_IN_DAYS = 2;

type ChargeSummary = { transactionId: string; status: string; pixPayload: string; expiresAt: number; amountCents: number };
export type ChargeCreated =
  | { statusCode: 201; body: ChargeSummary & { status: 'pending' } }
  | { statusCode: 200; body: ChargeSummary & { idempotent: true } };

/** A retry of a known externalRef: the stored charge, flagged idempotent. */
function replayed(charge: TransactionRow): ChargeCreated {
  return {
    statusCode: 200,
    body: {
      transactionId: charge.id,
      status: charge.status,
      pixPayload: charge.pixPayload ?? '',
      expiresAt: Math.floor((charge.expiresAt?.getTime() ?? 0) / 1000),
      amountCents: charge.amountCents,
      idempotent: true,
    },
  };
}

export class ChargeService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly provider: PixProvider,
  ) {}

  async createCharge(account: Account, input: CreateChargeBody): Promise<ChargeCreated> {
    const { limits } = account;
    if (input.amountCents < limits.chargeMinCents) throw new ApiError(400, messages.amountBelowMinimum(limits.chargeMinCents));
    if (input.amountCents > limits.chargeMaxCents) throw new ApiError(400, messages.amountAboveMaximum(limits.chargeMaxCents));

    const externalRef = input.externalRef ?? null;
    const now = this.clock.now();
    if (externalRef) {
      // Retries of a known charge answer without calling the provider or counting the rate limit.
      const existing = await findTransactionByExternalRef(this.db, { accountId: account.id, scope: IDEMPOTENCY_SCOPE.charge, externalRef }, now);
      if (existing) return replayed(existing);
    }

    const transactionId = newId();
    const expiresAt = new Date(now.getTime() + (input.expiresInDays ?? DEFAULT_EXPIRES_IN_DAYS) * DAY_MS);
    let location: string;
    try {
      ({ location } = await this.provider.createCharge({ accountId: account.id, transactionId, amountCents: input.amountCents, expiresAt }));
    } catch (error) {
      if (error instanceof ProviderError) throw new ApiError(502, messages.providerChargeFailed);
      throw error;
    }
    const feeCents = computeFee(account.fees.pixIn, input.amountCents, { capAtAmount: true });
    const charge: NewCharge = {
      id: transactionId,
      accountId: account.id,
      amountCents: input.amountCents,
      feeCents,
      externalRef,
      customer: input.customer,
      pixPayload: buildDynamicBrCode({ locationUrl: location, merchantName: account.name, merchantCity: account.city }),
      location,
      expiresAt,
      createdAt: now,
    };
    const hourly = { bucket: 'pix:hour', windowMs: HOUR_MS, limit: account.limits.pixPerHour };
    const created: ChargeCreated = {
      statusCode: 201,
      body: { transactionId, status: 'pending', pixPayload: charge.pixPayload, expiresAt: Math.floor(expiresAt.getTime() / 1000), amountCents: input.amountCents },
    };

    if (!externalRef) {
      // Nothing else to write atomically with it: one statement, no transaction.
      if (!(await repository.insertChargeWithinRateLimit(this.db, charge, hourly))) throw new ApiError(429, messages.pixRateLimited);
      return created;
    }
    return this.db.transaction().execute(async (tx) => {
      const key = { accountId: account.id, scope: IDEMPOTENCY_SCOPE.charge, externalRef };
      if (!(await claimIdempotencyKey(tx, { ...key, transactionId }, now))) {
        // A concurrent request with the same externalRef won; answer with its charge.
        const winner = await findTransactionByExternalRef(tx, key, now);
        if (!winner) throw new Error('idempotency key held without its transaction');
        return replayed(winner);
      }
      if (!(await repository.insertChargeWithinRateLimit(tx, charge, hourly))) throw new ApiError(429, messages.pixRateLimited);
      return created;
    });
  }

  /** A payer pays a pending charge: net credited, fee to the platform, `transaction.paid` recorded. */
  async payCharge(accountId: string, transactionId: string, payer: Party, amountCents: number | undefined): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const charge = await this.lockPendingCharge(tx, accountId, transactionId, now);
      if (amountCents !== undefined && amountCents !== charge.amountCents) throw new ApiError(400, messages.sandboxAmountMismatch);
      const ispb = /^[0-9A-Z]{8}$/.test(payer.bankAccount.ispb) ? payer.bankAccount.ispb : SIMULATED_ISPB;
      const paid = await repository.markChargePaid(tx, charge.id, { endToEndId: generateEndToEndId(ispb, now), payer, at: now });
      await postMovement(tx, {
        accountId,
        kind: 'charge_paid',
        transactionId: charge.id,
        at: now,
        entries: [
          { book: 'settlement', amountCents: -charge.amountCents },
          { book: 'merchant', amountCents: charge.netCents },
          { book: 'fees', amountCents: charge.feeCents },
        ],
      });
      await recordTransactionEvent(tx, 'transaction.paid', paid, now);
      return paid;
    });
  }

  /** The charge's validity elapses now. */
  async expireCharge(accountId: string, transactionId: string): Promise<TransactionRow> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const charge = await this.lockPendingCharge(tx, accountId, transactionId, now);
      const expired = await repository.markChargeExpired(tx, charge.id, now);
      await recordTransactionEvent(tx, 'transaction.expired', expired, now);
      return expired;
    });
  }

  /** Worker step: expires charges whose validity elapsed, each with its event. Returns how many. */
  async expireDueCharges(batch = 500): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const expired = await repository.expireDueCharges(tx, now, batch);
      await recordTransactionEvents(tx, expired.map((charge) => ({ name: 'transaction.expired' as const, transaction: charge })), now);
      return expired.length;
    });
  }

  private async lockPendingCharge(tx: Tx, accountId: string, transactionId: string, now: Date): Promise<TransactionRow> {
    const charge = await repository.lockCharge(tx, accountId, transactionId);
    if (!charge) throw new ApiError(404, messages.transactionNotFound);
    if (charge.status === 'pending' && charge.expiresAt && charge.expiresAt <= now) {
      // Validity elapsed but the worker has not run yet: the payer finds it expired.
      throw new ApiError(422, messages.sandboxChargeNotPending('expired'));
    }
    if (charge.status !== 'pending') throw new ApiError(422, messages.sandboxChargeNotPending(charge.status));
    return charge;
  }
}
