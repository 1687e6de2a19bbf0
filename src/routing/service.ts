import { findAccount } from '../accounts/repository.js';
import { InvalidRequestError, LimitExceededError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { isId } from '../platform/ids.js';
import type { RoutingRules, RoutingTarget } from '../platform/schema.js';
import type { CapDirection } from '../provider/caps.js';
import type { PixProvider } from '../provider/provider.js';
import type { ProviderHealth, ProviderRegistry } from '../provider/registry.js';
import * as repository from './repository.js';

/** What is routed: new charges, and new withdrawals. */
export type RoutedKind = 'charges' | 'withdrawals';

const DIRECTION_OF: Record<RoutedKind, CapDirection> = { charges: 'charge', withdrawals: 'withdrawal' };

const fits = (amountCents: number, cap: number | null): boolean => cap === null || amountCents <= cap;

/** How long a process keeps the rules it read: another process's change reaches it within this. */
const RULES_TTL_MS = 2_000;

/**
 * Which provider takes a new charge or withdrawal (DESIGN.md §14): the account's list when it has
 * one, else the default list; among the providers of the list whose breaker lets calls through,
 * split by weight. Without stored rules every configured provider has weight 1. A transaction,
 * once made, stays with its provider: routing never moves it.
 */
export class RoutingService {
  private cached: { rules: RoutingRules; at: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly registry: ProviderRegistry,
    private readonly random: () => number = Math.random,
  ) {}

  /** The rules in force: the stored ones, or every provider with weight 1. */
  async rules(): Promise<RoutingRules> {
    const now = performance.now();
    if (this.cached && now - this.cached.at < RULES_TTL_MS) return this.cached.rules;
    const rules = (await repository.findRoutingRules(this.db)) ?? this.defaultRules();
    this.cached = { rules, at: now };
    return rules;
  }

  /** Replaces the rules (already of the right shape); answers them as stored. Refuses an unknown provider, a repeated one, or an unknown account. */
  async replace(rules: RoutingRules): Promise<RoutingRules> {
    const lists: [string, RoutingTarget[]][] = [
      ['charges', rules.charges],
      ['withdrawals', rules.withdrawals],
      ...Object.entries(rules.accounts).flatMap(([accountId, own]) =>
        (['charges', 'withdrawals'] as const).flatMap((kind): [string, RoutingTarget[]][] => {
          const list = own[kind];
          return list ? [[`accounts.${accountId}.${kind}`, list]] : [];
        }),
      ),
    ];
    for (const [path, list] of lists) {
      const seen = new Set<string>();
      for (const target of list) {
        if (!this.registry.has(target.providerId)) throw new InvalidRequestError(messages.routingProviderUnknown(path, target.providerId));
        if (seen.has(target.providerId)) throw new InvalidRequestError(messages.routingProviderRepeated(path, target.providerId));
        seen.add(target.providerId);
      }
    }
    for (const accountId of Object.keys(rules.accounts)) {
      if (!isId(accountId) || !(await findAccount(this.db, accountId))) throw new InvalidRequestError(messages.routingAccountUnknown(accountId));
    }
    await repository.replaceRoutingRules(this.db, rules, this.clock.now());
    this.cached = { rules, at: performance.now() };
    return rules;
  }

  /**
   * The providers to try for a new charge or withdrawal of the account, in order, from the list
   * that applies: a down provider due for its probe first (this request is the probe), then a
   * weighted draw among the providers whose breaker is closed (those `prefers` answers yes for
   * before the others), then the next draw among the rest of those. Only when none of them is up
   * are the down ones tried, as the last resort. `probe: false` for a caller that calls no
   * provider (a static QR code's creation): it must not take a probe nothing would then make.
   * With `amountCents`, a provider whose cap at this hour is below it is left out (withinCaps).
   */
  async candidates(
    kind: RoutedKind,
    accountId: string,
    options: { amountCents?: number; prefers?: (providerId: string) => Promise<boolean>; probe?: boolean } = {},
  ): Promise<PixProvider[]> {
    const rules = await this.rules();
    const list = rules.accounts[accountId]?.[kind] ?? rules[kind];
    const listed = list.filter((target) => this.registry.has(target.providerId));
    const ids = listed.map((target) => target.providerId);
    const taking = options.amountCents === undefined ? ids : this.withinCaps(kind, ids, options.amountCents);
    const configured = listed.filter((target) => taking.includes(target.providerId));
    const closed = configured.filter((target) => this.registry.isClosed(target.providerId));
    const down = configured.filter((target) => !this.registry.isClosed(target.providerId));
    const probe = options.probe === false ? undefined : down.find((target) => this.registry.takeProbe(target.providerId));
    // Among the up ones, those the caller prefers (e.g. a treasury that covers the withdrawal) come first.
    const { prefers } = options;
    const preferred = prefers ? await Promise.all(closed.map((target) => prefers(target.providerId))) : closed.map(() => true);
    const first = closed.filter((_, index) => preferred[index]);
    const rest = closed.filter((_, index) => !preferred[index]);
    const ordered = [...(probe ? [probe] : []), ...this.weightedOrder(first), ...this.weightedOrder(rest)];
    const chosen = ordered.length > 0 ? ordered : this.weightedOrder(down);
    return chosen.map((target) => this.registry.get(target.providerId));
  }

  /**
   * The providers of `providerIds` whose cap on one PIX of this kind, at this São Paulo hour, lets
   * `amountCents` through (DESIGN.md §19): a comparison with the configuration, no query. When
   * some are given and none does, a 422 naming the most one of them takes now.
   */
  withinCaps(kind: RoutedKind, providerIds: readonly string[], amountCents: number): string[] {
    const now = this.clock.now();
    const capsNow = providerIds.map((providerId) => this.registry.capAt(providerId, DIRECTION_OF[kind], now));
    const taking = providerIds.filter((_, index) => fits(amountCents, capsNow[index] ?? null));
    if (taking.length === 0 && providerIds.length > 0) {
      throw new LimitExceededError(messages.providerCapExceeded(Math.max(...capsNow.filter((cap): cap is number => typeof cap === 'number'))));
    }
    return taking;
  }

  /** Whether the provider's cap at this São Paulo hour lets one PIX of `amountCents` of this kind through. */
  takes(kind: RoutedKind, providerId: string, amountCents: number): boolean {
    return fits(amountCents, this.registry.capAt(providerId, DIRECTION_OF[kind], this.clock.now()));
  }

  /** A weighted draw, then the next among the rest, until none is left. */
  private weightedOrder(targets: RoutingTarget[]): RoutingTarget[] {
    const pool = [...targets];
    const ordered: RoutingTarget[] = [];
    while (pool.length > 0) {
      const total = pool.reduce((sum, target) => sum + target.weight, 0);
      let draw = this.random() * total;
      let index = pool.findIndex((target) => (draw -= target.weight) < 0);
      if (index < 0) index = pool.length - 1; // rounding at the very end of the range
      ordered.push(...pool.splice(index, 1));
    }
    return ordered;
  }

  /** Every provider's health as this process sees it (GET /admin/v1/providers). */
  health(): ProviderHealth[] {
    return this.registry.health(this.clock.now());
  }

  private defaultRules(): RoutingRules {
    const everyone = this.registry.ids.map((providerId) => ({ providerId, weight: 1 }));
    return { charges: everyone, withdrawals: everyone, accounts: {} };
  }
}
