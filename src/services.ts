import { AccountService } from './accounts/service.js';
import { ChargeService } from './charges/service.js';
import { locationHost, type Config } from './config.js';
import { LedgerService } from './ledger/service.js';
import type { Clock } from './platform/clock.js';
import type { Database, Db } from './platform/database.js';
import type { PixProvider } from './provider/provider.js';
import { SimulatedPixProvider } from './provider/simulated.js';

/** Everything the routes and workers use, wired once per process. */
export type Services = {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  provider: PixProvider;
  accounts: AccountService;
  charges: ChargeService;
  ledger: LedgerService;
};

/** BR Code field 26.25 holds at most 77 characters: host + `/pix/v2/` + 32 hex. */
const MAX_LOCATION_HOST_LENGTH = 77 - '/pix/v2/'.length - 32;

export function createServices(config: Config, database: Database, clock: Clock): Services {
  const host = locationHost(config);
  if (host.length > MAX_LOCATION_HOST_LENGTH) {
    throw new Error(`PUBLIC_BASE_URL host "${host}" is longer than ${MAX_LOCATION_HOST_LENGTH} characters and does not fit a BR Code location`);
  }
  const db = database.db;
  const provider = new SimulatedPixProvider(db, host);
  const accounts = new AccountService(db, clock);
  return {
    config,
    database,
    db,
    clock,
    provider,
    accounts,
    charges: new ChargeService(db, clock, provider),
    ledger: new LedgerService(db, clock, accounts),
  };
}
