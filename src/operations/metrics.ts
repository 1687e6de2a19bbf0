import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the process can tell of its database pool, the webhook outbox and the MED cases when scraped. */
export type MetricSources = {
  pool: () => { total: number; idle: number; waiting: number };
  outbox: () => Promise<{ due: number; oldestDueSeconds: number }>;
  openInfractions: () => Promise<number>;
  /** Sends to the PSP not closed yet, by kind, state and age bucket. */
  providerSends: () => Promise<{ kind: string; state: string; age: string; count: number }[]>;
  /** Each provider's breaker state and latency percentiles as this process sees them. */
  providers: () => {
    id: string;
    state: string;
    latencyMsP50: number | null;
    latencyMsP99: number | null;
    /** The cap on one PIX in force now, by direction (null: none). */
    capNowCents: { charge: number | null; withdrawal: number | null };
  }[];
  /** Each provider's latest finished reconciliation run's count of differences. */
  reconciliation: () => Promise<{ providerId: string; differences: number }[]>;
  /** What is left to undo at each provider: charges (`charge`) and recs (`recurrence`) not removed or cancelled there yet. */
  orphans: () => Promise<{ kind: 'charge' | 'recurrence'; providerId: string; count: number }[]>;
  /** Each provider's latest treasury reading. */
  treasury: () => Promise<{ providerId: string; ledgerNetCents: number; reportedCents: number | null }[]>;
};

/** The states a provider's breaker reports (DESIGN.md §14). */
const PROVIDER_STATES = ['up', 'degraded', 'down'] as const;

/** The directions a provider's cap on one PIX applies to (DESIGN.md §19). */
const CAP_DIRECTIONS = ['charge', 'withdrawal'] as const;

/**
 * The process's Prometheus metrics (DESIGN.md §13), served at /metrics (or on METRICS_PORT).
 * Names carry the `pix_gateway_` prefix; durations are in seconds.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'pix_gateway_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'pix_gateway_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'pix_gateway_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (will be tried again) or failed (final).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly providerCalls = new Histogram({
    name: 'pix_gateway_provider_call_duration_seconds',
    help: 'Calls that move something at a PIX provider, by provider, operation and outcome: ok, refused (the provider said no), failed (timeout or unreachable) or skipped (breaker open: not made).',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly workerStep = new Histogram({
    name: 'pix_gateway_worker_step_duration_seconds',
    help: 'Duration of one run of a background job, by job.',
    labelNames: ['job'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    collectDefaultMetrics({ register: this.registry, prefix: 'pix_gateway_' });
    new Gauge({
      name: 'pix_gateway_db_pool_connections',
      help: 'Database pool connections: total open, idle, and requests waiting for one.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const { total, idle, waiting } = sources.pool();
        this.set({ state: 'total' }, total);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'in_use' }, total - idle);
        this.set({ state: 'waiting' }, waiting);
      },
    });
    // Both outbox gauges come from one query: a scrape collects them together and shares it.
    let reading: ReturnType<MetricSources['outbox']> | null = null;
    const readOutbox = () =>
      (reading ??= sources.outbox().finally(() => {
        reading = null;
      }));
    new Gauge({
      name: 'pix_gateway_webhook_deliveries_due',
      help: 'Webhook deliveries due now and not yet attempted (the outbox backlog).',
      registers: [this.registry],
      async collect() {
        this.set((await readOutbox()).due);
      },
    });
    new Gauge({
      name: 'pix_gateway_webhook_oldest_due_seconds',
      help: 'How long the oldest due webhook delivery has waited (0 when none is due).',
      registers: [this.registry],
      async collect() {
        this.set((await readOutbox()).oldestDueSeconds);
      },
    });
    new Gauge({
      name: 'pix_gateway_provider_sends_open',
      help: 'Withdrawals and refunds whose send to the PSP is not closed, by kind, state (unsent, sent, watching, owed) and age since creation (under_1m, under_1h, under_24h, over_24h).',
      labelNames: ['kind', 'state', 'age'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const { kind, state, age, count } of await sources.providerSends()) this.set({ kind, state, age }, count);
      },
    });
    new Gauge({
      name: 'pix_gateway_provider_state',
      help: "Each provider's breaker state in this process: 1 for its current state (up, degraded, down), 0 for the others.",
      labelNames: ['provider', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const provider of sources.providers()) {
          for (const state of PROVIDER_STATES) this.set({ provider: provider.id, state }, provider.state === state ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'pix_gateway_provider_latency_ms',
      help: "Each provider's call latency over its latest calls in this process, by quantile (0.5, 0.99).",
      labelNames: ['provider', 'quantile'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const provider of sources.providers()) {
          if (provider.latencyMsP50 !== null) this.set({ provider: provider.id, quantile: '0.5' }, provider.latencyMsP50);
          if (provider.latencyMsP99 !== null) this.set({ provider: provider.id, quantile: '0.99' }, provider.latencyMsP99);
        }
      },
    });
    new Gauge({
      name: 'pix_gateway_provider_cap_cents',
      help: 'The most one PIX may carry at each provider now (its lowest cap in force at this São Paulo hour), by direction (charge, withdrawal); no series where the provider has no cap then.',
      labelNames: ['provider', 'direction'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const provider of sources.providers()) {
          for (const direction of CAP_DIRECTIONS) {
            const cap = provider.capNowCents[direction];
            if (cap !== null) this.set({ provider: provider.id, direction }, cap);
          }
        }
      },
    });
    new Gauge({
      name: 'pix_gateway_reconciliation_differences',
      help: "Differences the latest finished reconciliation of each provider found between the ledger and the PSP's records (0: they agree).",
      labelNames: ['provider'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const { providerId, differences } of await sources.reconciliation()) this.set({ provider: providerId }, differences);
      },
    });
    new Gauge({
      name: 'pix_gateway_provider_balance_cents',
      help: 'What each provider holds for the gateway at the latest treasury reading: as the ledger tells (source=ledger) and as the PSP reports (source=reported, where it has a balance).',
      labelNames: ['provider', 'source'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const reading of await sources.treasury()) {
          this.set({ provider: reading.providerId, source: 'ledger' }, reading.ledgerNetCents);
          if (reading.reportedCents !== null) this.set({ provider: reading.providerId, source: 'reported' }, reading.reportedCents);
        }
      },
    });
    new Gauge({
      name: 'pix_gateway_orphans_open',
      help: 'What the worker still has to undo at each provider, by kind: charges registered whose answer was lost (charge) and recs of recurrences over here (recurrence), not removed or cancelled there yet.',
      labelNames: ['kind', 'provider'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const { kind, providerId, count } of await sources.orphans()) this.set({ kind, provider: providerId }, count);
      },
    });
    new Gauge({
      name: 'pix_gateway_med_cases_open',
      help: 'MED cases still running (open, in defense or under analysis), all accounts.',
      registers: [this.registry],
      async collect() {
        this.set(await sources.openInfractions());
      },
    });
  }

  /** The text Prometheus scrapes. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
