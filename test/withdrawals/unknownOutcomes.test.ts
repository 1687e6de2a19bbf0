import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderFailedError } from '../../src/errors.js';
import type { Clock } from '../../src/platform/clock.js';
import type { Party } from '../../src/platform/schema.js';
import {
  type ChargeRemoval,
  ProviderError,
  ProviderOutcomeUnknownError,
  type ChargeRequest,
  type CreatedCharge,
  type PixProvider,
  type ProviderRecord,
  type RefundOutcome,
  type SendTiming,
  type WithdrawalOutcome,
  type WithdrawalRequest,
  type WithdrawalSubmission,
} from '../../src/provider/provider.js';
import { WithdrawalService } from '../../src/withdrawals/service.js';
import { ProviderRegistry } from '../../src/provider/registry.js';
import { RoutingService } from '../../src/routing/service.js';
import { fund } from '../helpers/api.js';
import { backend, startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * The rules of docs/providers.md "Unknown outcomes", against a model PSP whose timings are drawn at
 * random: whether each attempt reaches it, whether its answer is lost, when it receives the send,
 * and when (within its processing limit, beyond it, or never) the send becomes visible as completed
 * — before that, its record is invisible (404), the worst case a PSP can show. The real service and
 * database run the checks at random times over three days: a withdrawal is reversed only when the
 * PSP never completes it within its limit, and whatever it does, the end state agrees with the PSP.
 */

const HOLDER: Party = { name: 'Titular', document: '52998224725', documentType: 'cpf', bankAccount: { ispb: '99999999', branch: '0001', account: '1' } };
const HOUR_MS = 3_600_000;

type Completion = { kind: 'within'; ms: number } | { kind: 'beyond'; ms: number } | { kind: 'never' };
type Script = { reaches: boolean; answerLost: boolean; receiveDelayMs: number; completion: Completion };

/** A clock moved only by the test. */
class SteppedClock implements Clock {
  constructor(private at: number) {}
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}

/** A PSP that plays one script per withdrawal; its processing limit is `limitMs`, and the client's budget is `timing.sendBudgetMs`. */
class ModelPsp implements PixProvider {
  readonly dueCharges = false;
  readonly id = 'default';
  readonly name = 'model';
  readonly sends = new Map<string, { script: Script; receivedAt: number | null; visibleAt: number | null; queries: number }>();
  next: Script | null = null;

  constructor(
    readonly sendTiming: SendTiming,
    private readonly clock: Clock,
  ) {}

  createCharge(_request: ChargeRequest): Promise<CreatedCharge> {
    throw new Error('not used');
  }
  cancelCharge(): Promise<ChargeRemoval> {
    throw new Error('not used');
  }
  requestRefund(): Promise<RefundOutcome> {
    throw new Error('not used');
  }
  refundOutcome(): Promise<RefundOutcome> {
    throw new Error('not used');
  }
  listRecords(): Promise<ProviderRecord[]> {
    throw new Error('not used');
  }
  balance(): Promise<number | null> {
    throw new Error('not used');
  }

  createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission> {
    const known = this.sends.get(request.transactionId);
    if (known?.receivedAt !== null && known !== undefined) return Promise.resolve({ status: 'accepted' }); // a repeat: deduplicated
    const script = this.next;
    if (!script) throw new Error('no script');
    this.next = null;
    if (!script.reaches) {
      this.sends.set(request.transactionId, { script, receivedAt: null, visibleAt: null, queries: 0 });
      return Promise.reject(new ProviderError('never reached'));
    }
    const receivedAt = this.clock.now().getTime() + script.receiveDelayMs;
    const { completion } = script;
    const visibleAt = completion.kind === 'never' ? null : receivedAt + completion.ms;
    this.sends.set(request.transactionId, { script, receivedAt, visibleAt, queries: 0 });
    return script.answerLost ? Promise.reject(new ProviderOutcomeUnknownError('answer lost')) : Promise.resolve({ status: 'accepted' });
  }

  withdrawalOutcome(withdrawal: { transactionId: string }): Promise<WithdrawalOutcome> {
    const send = this.sends.get(withdrawal.transactionId);
    if (!send) return Promise.resolve({ status: 'not_received' });
    send.queries++;
    if (send.visibleAt === null || this.clock.now().getTime() < send.visibleAt) return Promise.resolve({ status: 'not_received' });
    return Promise.resolve({ status: 'paid', endToEndId: `E99999999${withdrawal.transactionId.replaceAll('-', '').slice(0, 23)}`, beneficiary: HOLDER });
  }
}

let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
});

describe(`unknown outcomes at a PSP, over random timings (${backend})`, () => {
  it('reverses a withdrawal only when the PSP never completes it within its limit, and the end agrees with the PSP', async () => {
    const clock = new SteppedClock(Date.now());
    const timeoutMs = fc.integer({ min: 100, max: 10_000 });
    await fc.assert(
      fc.asyncProperty(
        timeoutMs,
        fc.integer({ min: 0, max: 600_000 }),
        fc.record({
          reaches: fc.boolean(),
          answerLost: fc.boolean(),
          receiveAt: fc.nat(),
          completion: fc.oneof(
            fc.record({ kind: fc.constant('within' as const), at: fc.nat() }),
            fc.record({ kind: fc.constant('beyond' as const), extraMs: fc.integer({ min: 1, max: 20 * HOUR_MS }) }),
            fc.record({ kind: fc.constant('never' as const) }),
          ),
        }),
        // Checks as the worker makes them (every few seconds) and as a stalled one would (hours apart).
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.integer({ min: 1_000, max: 60_000 }) },
            { weight: 2, arbitrary: fc.integer({ min: 1_000, max: 600_000 }) },
            { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 2 * HOUR_MS }) },
          ),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        async (timeout, limitMs, drawn, steps) => {
          // The provider's figures as the API Pix adapter computes them; the window covers a send's budget and the PSP's limit.
          const sendBudgetMs = 3 * 4 * timeout + 1200;
          const timing = { sendBudgetMs, settlingWindowMs: Math.max(limitMs + sendBudgetMs, 2 * sendBudgetMs) };
          const psp = new ModelPsp(timing, clock);
          const providers = new ProviderRegistry([psp]);
          const routing = new RoutingService(gateway.database.db, clock, providers);
          const everyProviderCovers = { covers: () => Promise.resolve(true) };
          const service = new WithdrawalService(gateway.database.db, clock, providers, routing, everyProviderCovers, gateway.services.fraudMarks, {
            serviceName: 'SVC',
          });
          const merchant = await gateway.createMerchant({ limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
          await fund(gateway, merchant, 10_000);
          const account = await gateway.services.accounts.getAccount(merchant.accountId);
          const completion: Completion =
            drawn.completion.kind === 'within'
              ? { kind: 'within', ms: drawn.completion.at % (limitMs + 1) }
              : drawn.completion.kind === 'beyond'
                ? { kind: 'beyond', ms: limitMs + drawn.completion.extraMs }
                : { kind: 'never' };
          psp.next = { reaches: drawn.reaches, answerLost: drawn.answerLost, receiveDelayMs: drawn.receiveAt % (sendBudgetMs + 1), completion };

          let id: string;
          try {
            const created = await service.createWithdrawal(account, { amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf' });
            id = created.withdrawal.id;
          } catch (error) {
            // Nothing reached the PSP: refused at once, the debit undone.
            expect(error).toBeInstanceOf(ProviderFailedError);
            expect(drawn.reaches).toBe(false);
            expect((await gateway.services.ledger.balanceOf(merchant.accountId)).available).toBe(10_000);
            return;
          }
          const send = psp.sends.get(id);
          if (!send) throw new Error('the PSP was never asked');
          const statusOf = async () => (await service.findWithdrawal(merchant.accountId, id)).status;
          let reversedWhileCompleting = false;
          for (const step of [...steps, 24 * HOUR_MS, 24 * HOUR_MS, 24 * HOUR_MS]) {
            clock.advance(step);
            await service.reconcile();
            // A reversal is allowed only when the PSP will never complete the send within its limit.
            if ((await statusOf()) === 'failed' && completion.kind === 'within') reversedWhileCompleting = true;
          }
          expect(reversedWhileCompleting).toBe(false);
          const completes = completion.kind !== 'never';
          const acknowledged = drawn.reaches && !drawn.answerLost;
          if (!completes && acknowledged) {
            // The PSP took it and lost it: nothing proves it was not sent, so nothing is reversed; the operator is told.
            expect(await statusOf()).toBe('processing');
            const alerts = await gateway.services.alerts.list(merchant.accountId);
            expect(alerts).toMatchObject([{ kind: 'withdrawal_outcome_unknown_24h', severity: 'high', transactionId: id }]);
            expect((await gateway.services.ledger.balanceOf(merchant.accountId)).available).toBeLessThan(10_000);
            return;
          }
          expect(await statusOf()).toBe(completes ? 'paid' : 'failed');
          const fee = (await service.findWithdrawal(merchant.accountId, id)).feeCents;
          expect((await gateway.services.ledger.balanceOf(merchant.accountId)).available).toBe(completes ? 10_000 - 1000 - fee : 10_000);
        },
      ),
      { numRuns: 100 },
    );
    expect(await gateway.ledgerProblems()).toEqual([]);
  }, 120_000);
});
