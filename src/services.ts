import pino from 'pino';
import { AccountService } from './accounts/service.js';
import { AlertService } from './alerts/service.js';
import { AuditService } from './audit/service.js';
import { ChargeService } from './charges/service.js';
import type { Config } from './config.js';
import { LedgerService } from './ledger/service.js';
import { Metrics } from './operations/metrics.js';
import { HealthService } from './operations/service.js';
import { InfractionService } from './infractions/service.js';
import { OperatorService } from './operators/service.js';
import { RefundService } from './refunds/service.js';
import { UserService } from './users/service.js';
import type { Clock } from './platform/clock.js';
import type { Db } from './platform/database.js';
import { createMailer } from './platform/mailer.js';
import { InboundService } from './inbound/service.js';
import { createProvider } from './provider/index.js';
import { ProviderSendService } from './sends/service.js';
import type { ProviderInbound, ProviderLogger } from './provider/provider.js';
import { RecipientService } from './recipients/service.js';
import { SandboxService } from './sandbox/service.js';
import { TransactionService } from './transactions/service.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { WebhookClient } from './webhooks/outbound.js';
import { WebhookService } from './webhooks/service.js';
import { WithdrawalService } from './withdrawals/service.js';

/** Everything the routes and workers use, wired once per process. The database handle stays inside the services. */
export type Services = {
  config: Config;
  clock: Clock;
  accounts: AccountService;
  charges: ChargeService;
  transactions: TransactionService;
  ledger: LedgerService;
  recipients: RecipientService;
  withdrawals: WithdrawalService;
  refunds: RefundService;
  providerSends: ProviderSendService;
  infractions: InfractionService;
  users: UserService;
  /** The back-office's operator users (DESIGN.md §11). */
  operators: OperatorService;
  /** The operators' append-only audit log (DESIGN.md §11). */
  audit: AuditService;
  /** The service team's internal alerts. */
  alerts: AlertService;
  /** A real PSP's notification listener and poller (DESIGN.md §12); null with the simulator. */
  providerInbound: ProviderInbound | null;
  /** The simulated network's controls; null with a real provider (no sandbox then). */
  sandbox: SandboxService | null;
  webhooks: WebhookService;
  health: HealthService;
  metrics: Metrics;
  /** Delivers queued webhooks; started by the worker (in `serve` itself on the embedded database). */
  webhookDispatcher: WebhookDispatcher;
};

/** What only the process has: its database pool's counts (for the metrics) and its logger (for the provider; one of its own otherwise). */
export type ProcessProbes = { poolStats?: () => { total: number; idle: number; waiting: number }; logger?: ProviderLogger };

export function createServices(config: Config, db: Db, clock: Clock, probes: ProcessProbes = {}): Services {
  const { provider, network, inbound } = createProvider(config, db, clock, probes.logger ?? pino({ level: config.logLevel }));
  const webhooks = new WebhookService(db, clock, config);
  const accounts = new AccountService(db, clock);
  const charges = new ChargeService(db, clock, provider);
  const withdrawals = new WithdrawalService(db, clock, provider, config);
  const refunds = new RefundService(db, clock, provider);
  const infractions = new InfractionService(db, clock, config, refunds);
  const providerInbound = inbound?.(new InboundService(db, clock, charges, refunds, infractions)) ?? null;
  const providerSends = new ProviderSendService(db, clock);
  const metrics = new Metrics({
    pool: probes.poolStats ?? (() => ({ total: 0, idle: 0, waiting: 0 })),
    outbox: () => webhooks.backlog(),
    openInfractions: () => infractions.countOpen(),
    providerSends: () => providerSends.countOpenByAge(),
  });
  return {
    config,
    clock,
    accounts,
    charges,
    transactions: new TransactionService(db, clock),
    ledger: new LedgerService(db, clock, accounts),
    recipients: new RecipientService(db, clock, config),
    withdrawals,
    refunds,
    providerSends,
    infractions,
    audit: new AuditService(db, clock),
    alerts: new AlertService(db),
    users: new UserService(db, clock, config, accounts, createMailer(config)),
    operators: new OperatorService(db, clock, config),
    providerInbound,
    sandbox: network ? new SandboxService(network, charges, withdrawals, refunds, infractions) : null,
    webhooks,
    health: new HealthService(db),
    metrics,
    webhookDispatcher: new WebhookDispatcher(
      db,
      clock,
      config,
      new WebhookClient({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate }),
      { onAttempt: (outcome) => metrics.webhookAttempts.inc({ outcome }) },
    ),
  };
}
