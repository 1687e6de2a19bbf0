import pino from 'pino';
import { AccountService } from './accounts/service.js';
import { AlertService } from './alerts/service.js';
import { AuditService } from './audit/service.js';
import { ChargeService } from './charges/service.js';
import type { Config } from './config.js';
import { LedgerService } from './ledger/service.js';
import { FraudMarkService } from './fraudmarks/service.js';
import { Metrics } from './operations/metrics.js';
import { HealthService } from './operations/service.js';
import { DeadlineReminderService } from './infractions/reminders.js';
import { InfractionService } from './infractions/service.js';
import { HoldService } from './holds/service.js';
import { EvidenceService } from './infractions/evidenceService.js';
import { OperatorService } from './operators/service.js';
import { RefundService } from './refunds/service.js';
import { UserService } from './users/service.js';
import type { Clock } from './platform/clock.js';
import type { Db } from './platform/database.js';
import { createMailer } from './platform/mailer.js';
import { InboundService } from './inbound/service.js';
import { createProviders } from './provider/index.js';
import { RoutingService } from './routing/service.js';
import { ReconciliationService } from './reconciliation/service.js';
import { TreasuryService } from './treasury/service.js';
import { ProviderSendService } from './sends/service.js';
import type { ProviderInbound, ProviderLogger } from './provider/provider.js';
import { RecipientService } from './recipients/service.js';
import { SandboxService } from './sandbox/service.js';
import { StaticQrService } from './staticqr/service.js';
import { RecurrenceService } from './recurrences/service.js';
import { TransactionService } from './transactions/service.js';
import { HistoryService } from './history/service.js';
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
  /** A merchant's reusable BR Codes (DESIGN.md §17). */
  staticQr: StaticQrService;
  /** Pix Automático recurrences and their cycles (DESIGN.md §17). */
  recurrences: RecurrenceService;
  transactions: TransactionService;
  /** The transactions as the read replica has them (DATABASE_READ_URL), for the back-office's history; `transactions` without one. */
  reportTransactions: TransactionService;
  /** Exports (on the read replica, when there is one) and daily statements (DESIGN.md §15). */
  history: HistoryService;
  ledger: LedgerService;
  recipients: RecipientService;
  withdrawals: WithdrawalService;
  refunds: RefundService;
  providerSends: ProviderSendService;
  infractions: InfractionService;
  /** The MED defense deadline's reminders (worker) and the dashboard's banner. */
  deadlineReminders: DeadlineReminderService;
  holds: HoldService;
  /** Evidence files of MED cases' defenses (DESIGN.md §19). */
  evidence: EvidenceService;
  users: UserService;
  /** The back-office's operator users (DESIGN.md §11). */
  operators: OperatorService;
  /** The operators' append-only audit log (DESIGN.md §11). */
  audit: AuditService;
  /** The service team's internal alerts. */
  alerts: AlertService;
  /** The operators' fraud-marked keys and documents, checked on the money paths (DESIGN.md §19). */
  fraudMarks: FraudMarkService;
  /** Which provider takes new charges and withdrawals, and every provider's health (DESIGN.md §14). */
  routing: RoutingService;
  /** Each PSP's records compared with the ledger (DESIGN.md §14). */
  reconciliation: ReconciliationService;
  /** Each PSP's money in and out, and its reported balance (DESIGN.md §14). */
  treasury: TreasuryService;
  /** Each real PSP's notification listener and poller (DESIGN.md §12); none with simulators only. */
  providerInbound: ProviderInbound[];
  /** The simulated providers' controls; null when every provider is a real PSP (no sandbox then). */
  sandbox: SandboxService | null;
  webhooks: WebhookService;
  health: HealthService;
  metrics: Metrics;
  /** Delivers queued webhooks; started by the worker (in `serve` itself on the embedded database). */
  webhookDispatcher: WebhookDispatcher;
};

/** What only the process has: its database pool's counts (for the metrics) and its logger (for the provider; one of its own otherwise). */
export type ProcessProbes = {
  poolStats?: () => { total: number; idle: number; waiting: number };
  logger?: ProviderLogger;
  /** The read replica's handle (DATABASE_READ_URL), for the reads that tolerate its lag. */
  reads?: Db;
};

export function createServices(config: Config, db: Db, clock: Clock, probes: ProcessProbes = {}): Services {
  // The metrics observe every provider call; the providers' health is read back when scraped.
  const webhooks = new WebhookService(db, clock, config);
  const accounts = new AccountService(db, clock);
  const providerSends = new ProviderSendService(db, clock);
  const metrics = new Metrics({
    pool: probes.poolStats ?? (() => ({ total: 0, idle: 0, waiting: 0 })),
    outbox: () => webhooks.backlog(),
    openInfractions: () => infractions.countOpen(),
    providerSends: () => providerSends.countOpenByAge(),
    providers: () => registry.health(clock.now()),
    reconciliation: () => reconciliation.latestDifferences(),
    treasury: () => treasury.list(),
    orphans: async () => {
      const [orphanCharges, orphanRecs] = await Promise.all([charges.countOpenOrphans(), recurrences.countOpenOrphans()]);
      return [...orphanCharges.map((row) => ({ kind: 'charge' as const, ...row })), ...orphanRecs.map((row) => ({ kind: 'recurrence' as const, ...row }))];
    },
  });
  const { registry, networks, inbound } = createProviders(config, db, clock, probes.logger ?? pino({ level: config.logLevel }), (call) =>
    metrics.providerCalls.observe({ provider: call.providerId, operation: call.operation, outcome: call.outcome }, call.seconds),
  );
  const routing = new RoutingService(db, clock, registry);
  const fraudMarks = new FraudMarkService(db, clock);
  const reconciliation = new ReconciliationService(db, clock, registry);
  const treasury = new TreasuryService(db, clock, registry, new Map(config.providers.map((provider) => [provider.id, provider.lowCoverCents])));
  const charges = new ChargeService(db, clock, registry, routing, fraudMarks);
  const staticQr = new StaticQrService(db, clock, routing, fraudMarks);
  const recurrences = new RecurrenceService(db, clock, registry, routing, accounts, fraudMarks);
  const withdrawals = new WithdrawalService(db, clock, registry, routing, treasury, fraudMarks, config);
  const refunds = new RefundService(db, clock, registry);
  const transactions = new TransactionService(db, clock);
  const reportTransactions = probes.reads ? new TransactionService(probes.reads, clock) : transactions;
  const infractions = new InfractionService(db, clock, config, refunds);
  const holds = new HoldService(db, clock);
  const providerInbound = inbound((providerId) => new InboundService(providerId, db, clock, charges, refunds, infractions, staticQr, accounts, recurrences));
  return {
    config,
    clock,
    accounts,
    charges,
    transactions,
    reportTransactions,
    history: new HistoryService(db, clock, { transactions: reportTransactions, reads: probes.reads ?? db }),
    ledger: new LedgerService(db, clock, accounts),
    recipients: new RecipientService(db, clock, fraudMarks, config),
    withdrawals,
    refunds,
    providerSends,
    infractions,
    deadlineReminders: new DeadlineReminderService(db, clock),
    evidence: new EvidenceService(db, clock),
    audit: new AuditService(db, clock),
    alerts: new AlertService(db),
    fraudMarks,
    users: new UserService(db, clock, config, accounts, createMailer(config)),
    operators: new OperatorService(db, clock, config),
    routing,
    reconciliation,
    treasury,
    providerInbound,
    staticQr,
    recurrences,
    holds,
    sandbox: networks.size > 0 ? new SandboxService(networks, charges, withdrawals, refunds, infractions, staticQr, recurrences, holds) : null,
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
