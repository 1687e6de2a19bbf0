/** A provider's health as routing sees it (DESIGN.md §14). */
export type ProviderState = 'up' | 'degraded' | 'down';

/** What one call to a provider came to: `failure` is a timeout or an unreachable provider, never a business refusal. */
export type CallResult = 'success' | 'failure';

/** The breaker's thresholds; docs/providers.md "Running several PSPs" explains each. */
export type BreakerPolicy = {
  /** Consecutive failures that open the breaker. */
  consecutiveFailures: number;
  /** Failure rate over the window that opens it (once the window holds `minimumCalls`). */
  failureRate: number;
  /** Failure rate over the window above which the provider is `degraded`. */
  degradedRate: number;
  windowSize: number;
  minimumCalls: number;
  /** How long an open breaker refuses before one probe goes through; doubles while probes fail. */
  openMs: number;
  maxOpenMs: number;
};

const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  consecutiveFailures: 3,
  failureRate: 0.5,
  degradedRate: 0.1,
  windowSize: 50,
  minimumCalls: 10,
  openMs: 2_000,
  maxOpenMs: 30_000,
};

/** Latencies kept for the percentiles: the latest calls, whatever their result. */
const LATENCY_SAMPLES = 512;

/** A probe not reported back within this long frees its slot (the request that took it gave up before calling). */
const PROBE_EXPIRY_MS = 60_000;

/**
 * One provider's circuit breaker, in this process (each process judges by what it sees). Closed:
 * the provider takes its share of new traffic, and every call feeds the window. Open (`down`):
 * routing sends it nothing new while another provider of the list is available; once `openMs`
 * has passed, one request at a time tries it first (the probe, half-open): a success closes the
 * breaker, a failure opens it again for twice as long. Calls bound to the provider (a refund of
 * its charge, a query) are never refused: their results feed the breaker too, and any success
 * closes it.
 */
export class Breaker {
  private readonly results: CallResult[] = [];
  /** A ring of the latest latencies: the call path only writes one slot. */
  private readonly latencies = new Float64Array(LATENCY_SAMPLES);
  private latencyCount = 0;
  private consecutive = 0;
  private openUntil: number | null = null;
  private openFor: number;
  private probeTakenAt: number | null = null;
  private lastErrorText: string | null = null;
  private lastErrorAt: number | null = null;

  constructor(
    private readonly policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
    private readonly now: () => number = Date.now,
  ) {
    this.openFor = policy.openMs;
  }

  get state(): ProviderState {
    if (this.openUntil !== null) return 'down';
    const failures = this.results.filter((result) => result === 'failure').length;
    return this.results.length > 0 && failures / this.results.length > this.policy.degradedRate ? 'degraded' : 'up';
  }

  /** Closed: it takes new traffic. */
  isClosed(): boolean {
    return this.openUntil === null;
  }

  /** Open and due for a probe, which this caller takes (the next caller waits for its result, or for the probe to expire). */
  takeProbe(): boolean {
    if (this.openUntil === null) return false;
    const now = this.now();
    if (now < this.openUntil) return false;
    if (this.probeTakenAt !== null && now - this.probeTakenAt < PROBE_EXPIRY_MS) return false;
    this.probeTakenAt = now;
    return true;
  }

  record(result: CallResult, latencyMs: number, error?: string): void {
    this.latencies[this.latencyCount % LATENCY_SAMPLES] = latencyMs;
    this.latencyCount++;
    this.results.push(result);
    if (this.results.length > this.policy.windowSize) this.results.shift();
    if (result === 'failure') {
      this.consecutive++;
      this.lastErrorText = error ?? 'failure';
      this.lastErrorAt = this.now();
    } else {
      this.consecutive = 0;
    }
    if (this.openUntil !== null) {
      if (result === 'success') {
        this.close();
      } else if (this.probeTakenAt !== null) {
        // The probe failed: open again, for longer.
        this.probeTakenAt = null;
        this.openFor = Math.min(this.openFor * 2, this.policy.maxOpenMs);
        this.openUntil = this.now() + this.openFor;
      }
      return;
    }
    if (result === 'failure' && this.shouldOpen()) this.openUntil = this.now() + this.openFor;
  }

  snapshot(): { state: ProviderState; lastError: { message: string; at: Date } | null; latencyMsP50: number | null; latencyMsP99: number | null } {
    const sorted = this.latencies.slice(0, Math.min(this.latencyCount, LATENCY_SAMPLES)).sort();
    const percentile = (p: number) => (sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? null));
    return {
      state: this.state,
      lastError: this.lastErrorText !== null && this.lastErrorAt !== null ? { message: this.lastErrorText, at: new Date(this.lastErrorAt) } : null,
      latencyMsP50: percentile(0.5),
      latencyMsP99: percentile(0.99),
    };
  }

  private shouldOpen(): boolean {
    if (this.consecutive >= this.policy.consecutiveFailures) return true;
    if (this.results.length < this.policy.minimumCalls) return false;
    const failures = this.results.filter((result) => result === 'failure').length;
    return failures / this.results.length >= this.policy.failureRate;
  }

  private close(): void {
    this.openUntil = null;
    this.probeTakenAt = null;
    this.openFor = this.policy.openMs;
    this.consecutive = 0;
    // The window starts afresh: the failures that opened it are history, not the present.
    this.results.length = 0;
  }
}
