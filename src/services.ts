import { AccountService } from './accounts/service.js';
import { ChargeService } from './charges/service.js';
import { locationHost, type Config } from './config.js';
import { LedgerService } from './ledger/service.js';
import type { Clock } from './platform/clock.js';
import type { Database, Db } from './platform/database.js';
import type { PixProvider } from './provider/provider.js';
import { SimulatedPixProvider } from './provider/simulated.js';
import { RecipientService } from './recipients/service.js';
import { SandboxService } from './sandbox/service.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { WebhookClient } from './webhooks/outbound.js';
import { WebhookService } from './webhooks/service.js';
import { WithdrawalService } from './withdrawals/service.js';

/** Everything the routes and workers use, wired once per process. */
export type Services = {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  provider: PixProvider;
  /** The built-in simulator behind `provider`, for the sandbox's own calls. */
  simulator: SimulatedPixProvider;
  accounts: AccountService;
  charges: ChargeService;
  ledger: LedgerService;
  recipients: RecipientService;
  withdrawals: WithdrawalService;
  sandbox: SandboxService;
  webhooks: WebhookService;
  /** Delivers queued webhooks; started by the worker (in `serve` itself on the embedded database). */
  webhookDispatcher: WebhookDispatcher;
};

/** BR Code field 26.25 holds at most 77 characters: host + `/pix/v2/` + 32 hex. */
const MAX_LOCATION_HOST_LENGTH = 77 - '/pix/v2/'.length - 32;

export function createServices(config: Config, database: Database, clock: Clock): Services {
  const host = locationHost(config);
  if (host.length > MAX_LOCATION_HOST_LENGTH) {
    throw new Error(`PUBLIC_BASE_URL host "${host}" is longer than ${MAX_LOCATION_HOST_LENGTH} characters and does not fit a BR Code location`);
  }
  const db = database.db;
  const provider = new SimulatedPixProvider(db, clock, host, config.sandboxSettleMs);
  const accounts = new AccountService(db, clock);
  const withdrawals = new WithdrawalService(db, clock, provider);
  return {
    config,
    database,
    db,
    clock,
    provider,
    simulator: provider,
    accounts,
    charges: new ChargeService(db, clock, provider),
    ledger: new LedgerService(db, clock, accounts),
    recipients: new RecipientService(db, clock, config),
    withdrawals,
    sandbox: new SandboxService(db, provider, withdrawals),
    webhooks: new WebhookService(db, clock, config),
    webhookDispatcher: new WebhookDispatcher(
      db,
      clock,
      config,
      new WebhookClient({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate }),
    ),
  };
}
