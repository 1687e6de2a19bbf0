import { NO_CAPS, type ProviderCaps } from '../config.js';
import { capAt, capRuleOf, type CapDirection, type CapRule } from './caps.js';
import { Breaker, type BreakerPolicy, type ProviderState } from './health.js';
import {
  ProviderError,
  ProviderOutcomeUnknownError,
  type ChargeKind,
  type ChargeRequest,
  type ChargeRemoval,
  type CreatedCharge,
  type KeyDirectory,
  type PixProvider,
  type ProviderRecord,
  type RecurrenceProvider,
  type RefundOutcome,
  type RefundRequest,
  type SendTiming,
  type WithdrawalOutcome,
  type WithdrawalRequest,
  type WithdrawalSubmission,
} from './provider.js';
import type { Holder } from '../platform/schema.js';

/** The calls that move something at the provider; each one feeds its breaker and its metrics. */
export type GuardedOperation = 'createCharge' | 'cancelCharge' | 'createWithdrawal' | 'requestRefund';

/**
 * How a guarded call ended: `ok` (answered, a business refusal included), `refused` (the provider
 * said no: ProviderError), `failed` (unreachable or timed out).
 */
export type CallOutcome = 'ok' | 'refused' | 'failed';

export type CallObserver = (call: { providerId: string; operation: GuardedOperation; outcome: CallOutcome; seconds: number }) => void;

/** A provider as operators see it (GET /admin/v1/providers). */
export type ProviderHealth = {
  id: string;
  kind: string;
  state: ProviderState;
  lastError: { message: string; at: Date } | null;
  latencyMsP50: number | null;
  latencyMsP99: number | null;
  /** The caps of its PROVIDERS_FILE entry, and the one in force at the instant asked about, by direction (null: none). */
  caps: ProviderCaps;
  capNowCents: Record<CapDirection, number | null>;
};

/**
 * A provider with its breaker (DESIGN.md §14): each call that moves something feeds the breaker
 * with its result and latency; routing reads the breaker to choose. Queries (outcomes) are not
 * counted: an unreachable provider answers them `unknown`, which says nothing of its health.
 */
class GuardedProvider implements PixProvider {
  readonly id: string;
  readonly name: string;
  readonly sendTiming: SendTiming;
  readonly dueCharges: boolean;
  readonly receivingKey: string | undefined;
  /** Pix Automático's calls go to the provider as they are: no breaker counts them yet (docs/recurrences.md). */
  readonly recurrences: RecurrenceProvider | undefined;
  /** A DICT lookup is a query: no breaker counts it. */
  readonly keyDirectory: KeyDirectory | undefined;

  constructor(
    private readonly inner: PixProvider,
    readonly breaker: Breaker,
    private readonly observe: CallObserver,
    readonly capRule: CapRule,
  ) {
    this.id = inner.id;
    this.name = inner.name;
    this.sendTiming = inner.sendTiming;
    this.dueCharges = inner.dueCharges;
    this.receivingKey = inner.receivingKey;
    this.recurrences = inner.recurrences;
    this.keyDirectory = inner.keyDirectory;
  }

  createCharge(request: ChargeRequest): Promise<CreatedCharge> {
    return this.guard('createCharge', () => this.inner.createCharge(request));
  }

  cancelCharge(transactionId: string, kind?: ChargeKind): Promise<ChargeRemoval> {
    return this.guard('cancelCharge', () => this.inner.cancelCharge(transactionId, kind));
  }

  createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission> {
    return this.guard('createWithdrawal', () => this.inner.createWithdrawal(request));
  }

  withdrawalOutcome(withdrawal: { transactionId: string; expectedHolder: Holder }): Promise<WithdrawalOutcome> {
    return this.inner.withdrawalOutcome(withdrawal);
  }

  requestRefund(request: RefundRequest): Promise<RefundOutcome> {
    return this.guard('requestRefund', () => this.inner.requestRefund(request));
  }

  refundOutcome(request: RefundRequest): Promise<RefundOutcome> {
    return this.inner.refundOutcome(request);
  }

  listRecords(period: { from: Date; to: Date }): Promise<ProviderRecord[]> {
    return this.inner.listRecords(period);
  }

  balance(): Promise<number | null> {
    return this.inner.balance();
  }

  private async guard<T>(operation: GuardedOperation, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const finish = (outcome: CallOutcome, error?: string) => {
      const ms = performance.now() - started;
      this.breaker.record(outcome === 'failed' ? 'failure' : 'success', ms, error);
      this.observe({ providerId: this.id, operation, outcome, seconds: ms / 1000 });
    };
    try {
      const result = await call();
      finish('ok');
      return result;
    } catch (error) {
      if (error instanceof ProviderOutcomeUnknownError || (error instanceof ProviderError && error.unavailable)) finish('failed', error.message);
      else if (error instanceof ProviderError) finish('refused');
      throw error;
    }
  }
}

/**
 * Every configured provider by id, each with its breaker. A transaction's calls go to the
 * provider it is bound to (`get`); new charges and withdrawals are routed by the breakers' states.
 */
export class ProviderRegistry {
  private readonly byId = new Map<string, GuardedProvider>();
  /** The longest send budget and settling window of any provider: what a worker claims a send of any of them for. */
  readonly longestTiming: SendTiming;

  constructor(
    providers: readonly PixProvider[],
    options: { policy?: BreakerPolicy; now?: () => number; observe?: CallObserver; caps?: ReadonlyMap<string, ProviderCaps> } = {},
  ) {
    if (providers.length === 0) throw new Error('at least one PIX provider is required');
    for (const provider of providers) {
      const rule = capRuleOf(options.caps?.get(provider.id) ?? NO_CAPS);
      this.byId.set(provider.id, new GuardedProvider(provider, new Breaker(options.policy, options.now), options.observe ?? (() => {}), rule));
    }
    this.longestTiming = {
      sendBudgetMs: Math.max(...providers.map((provider) => provider.sendTiming.sendBudgetMs)),
      settlingWindowMs: Math.max(...providers.map((provider) => provider.sendTiming.settlingWindowMs)),
    };
  }

  /** Ids in the configured order. */
  get ids(): string[] {
    return [...this.byId.keys()];
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * The provider a transaction is bound to. One no longer configured is refused like an unreachable
   * one (nothing is sent), and its transactions wait for it to come back.
   */
  get(id: string): PixProvider {
    return this.byId.get(id) ?? new UnconfiguredProvider(id, this.longestTiming);
  }

  /** The send timing of a provider (the longest when it is no longer configured). */
  timingOf(id: string): SendTiming {
    return this.byId.get(id)?.sendTiming ?? this.longestTiming;
  }

  /** Whether the provider takes new traffic (its breaker closed). */
  isClosed(id: string): boolean {
    return this.byId.get(id)?.breaker.isClosed() ?? false;
  }

  /** Whether this caller is the one to try a down provider now (its half-open probe). */
  takeProbe(id: string): boolean {
    return this.byId.get(id)?.breaker.takeProbe() ?? false;
  }

  /** The most one PIX of `direction` may carry at the provider at `at` (DESIGN.md §19); null: no cap then (or not configured). */
  capAt(id: string, direction: CapDirection, at: Date): number | null {
    const provider = this.byId.get(id);
    return provider ? capAt(provider.capRule, direction, at) : null;
  }

  /** Every provider's health, and its caps with those in force at `at`. */
  health(at: Date): ProviderHealth[] {
    return [...this.byId.values()].map((provider) => ({
      id: provider.id,
      kind: provider.name,
      ...provider.breaker.snapshot(),
      caps: provider.capRule.caps,
      capNowCents: { charge: capAt(provider.capRule, 'charge', at), withdrawal: capAt(provider.capRule, 'withdrawal', at) },
    }));
  }
}

/** A provider id a transaction names but the configuration no longer has: every call is refused before anything is sent. */
class UnconfiguredProvider implements PixProvider {
  readonly name = 'unconfigured';
  readonly dueCharges = false;

  constructor(
    readonly id: string,
    readonly sendTiming: SendTiming,
  ) {}

  private refuse(): never {
    throw new ProviderError(`provider ${this.id} is not configured`, { unavailable: true });
  }

  createCharge(): Promise<CreatedCharge> {
    this.refuse();
  }
  cancelCharge(): Promise<ChargeRemoval> {
    this.refuse();
  }
  createWithdrawal(): Promise<WithdrawalSubmission> {
    this.refuse();
  }
  async withdrawalOutcome(): Promise<WithdrawalOutcome> {
    return { status: 'unknown' };
  }
  requestRefund(): Promise<RefundOutcome> {
    this.refuse();
  }
  async refundOutcome(): Promise<RefundOutcome> {
    return { status: 'unknown' };
  }
  listRecords(): Promise<ProviderRecord[]> {
    this.refuse();
  }
  balance(): Promise<number | null> {
    this.refuse();
  }
}
