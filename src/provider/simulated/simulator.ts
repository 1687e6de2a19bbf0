import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { Party } from '../platform/schema.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  type ChargeRequest,
  type CreatedCharge,
  type PixProvider,
  type WithdrawalOutcome,
  type WithdrawalRequest,
  type WithdrawalSubmission,
} from './provider.js';
import { takeDirective } from './sandboxDirectives.js';

/**
 * The built-in PIX network simulator. Charges get a location on our own public host
 * (`<host>/pix/v2/<32 hex>`, DESIGN.md §5). Withdrawals resolve email/phone/evp keys in the
 * sandbox DICT and settle after `settleMs` (or when the sandbox says so). Failures are the ones
 * armed through the sandbox.
 */
export class SimulatedPixProvider implements PixProvider {
  readonly name = 'simulated';

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly locationHost: string,
    private readonly settleMs: number | 'manual',
  ) {}

  async createCharge(request: ChargeRequest): Promise<CreatedCharge> {
    const outcome = await takeDirective(this.db, request.accountId, 'charge');
    if (outcome === 'provider_error') throw new ProviderError('simulated provider error on charge creation');
    // 32 hex digits from a random UUID: Node draws those from a buffered pool, where 16 fresh random
    // bytes per charge were ~4% of a charge's CPU.
    return { location: `${this.locationHost}/pix/v2/${randomUUID().replaceAll('-', '')}` };
  }

  async createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission> {
    const directive = await takeDirective(this.db, request.accountId, 'withdrawal');
    if (directive === 'provider_error') throw new ProviderError('simulated provider error on withdrawal');
    const now = this.clock.now();
    const record = (beneficiary: Party, settleAt: Date | null) =>
      this.db
        .insertInto('sandboxWithdrawals')
        .values({ transactionId: request.transactionId, accountId: request.accountId, beneficiary: JSON.stringify(beneficiary), outcome: null, settleAt, createdAt: now })
        .execute();

    if (directive === 'unknown') {
      // Sent, but the answer is lost: only a sandbox settle call will tell the outcome.
      await record(request.expectedHolder, null);
      throw new ProviderOutcomeUnknownError('simulated unknown outcome');
    }

    let beneficiary = request.expectedHolder;
    if (request.pixKeyType === 'email' || request.pixKeyType === 'phone' || request.pixKeyType === 'evp') {
      const entry = await this.db
        .selectFrom('sandboxDictKeys')
        .select('owner')
        .where('accountId', '=', request.accountId)
        .where('keyType', '=', request.pixKeyType)
        .where('key', '=', request.pixKey)
        .executeTakeFirst();
      if (!entry) return { status: 'rejected', reason: 'key_not_found' };
      if (entry.owner.document !== request.expectedHolder.document) return { status: 'rejected', reason: 'holder_mismatch' };
      beneficiary = entry.owner;
    }
    const settleAt = this.settleMs === 'manual' ? null : new Date(now.getTime() + this.settleMs);
    await record(beneficiary, settleAt);
    return { status: 'accepted', beneficiary, ...(directive === 'interrupted' ? { confirmationInterrupted: true } : {}) };
  }

  async withdrawalOutcome(transactionId: string): Promise<WithdrawalOutcome> {
    const row = await this.db.selectFrom('sandboxWithdrawals').select(['outcome', 'beneficiary']).where('transactionId', '=', transactionId).executeTakeFirst();
    if (row?.outcome === 'paid') return { status: 'paid', beneficiary: row.beneficiary };
    if (row?.outcome === 'failed') return { status: 'failed', reason: 'provider_failed' };
    return { status: 'unknown' };
  }

  /** Records the network's final answer for a withdrawal (sandbox settle, automatic settlement). */
  async recordOutcome(transactionId: string, outcome: 'paid' | 'failed'): Promise<void> {
    await this.db.updateTable('sandboxWithdrawals').set({ outcome }).where('transactionId', '=', transactionId).execute();
  }

  /** Withdrawals whose automatic settlement time has come. */
  dueSettlements(limit: number) {
    return this.db
      .selectFrom('sandboxWithdrawals')
      .select(['transactionId', 'accountId'])
      .where('outcome', 'is', null)
      .where('settleAt', '<=', this.clock.now())
      .orderBy('settleAt')
      .limit(limit)
      .execute();
  }

  /** Who the network pays for this withdrawal (resolved at submission). */
  async beneficiaryOf(transactionId: string): Promise<Party> {
    const row = await this.db.selectFrom('sandboxWithdrawals').select('beneficiary').where('transactionId', '=', transactionId).executeTakeFirstOrThrow();
    return row.beneficiary;
  }

  /** Sandbox DICT: registers (or replaces) who holds an email/phone/evp key for this merchant. */
  async registerDictKey(accountId: string, keyType: string, key: string, owner: Party): Promise<void> {
    await this.db
      .insertInto('sandboxDictKeys')
      .values({ accountId, keyType, key, owner: JSON.stringify(owner) })
      .onConflict((conflict) => conflict.columns(['accountId', 'keyType', 'key']).doUpdateSet({ owner: JSON.stringify(owner) }))
      .execute();
  }
}
