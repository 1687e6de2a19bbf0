import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { callBudgetMs, PspClient } from './apipix/client.js';
import { ApiPixInbound } from './apipix/inbound.js';
import { ApiPixProvider } from './apipix/provider.js';
import { DEFAULT_PROVIDER_ID, type PixProvider, type ProviderInbound, type ProviderLogger, type ProviderReports, type SimulatedNetwork } from './provider.js';
import { SimulatedPixProvider } from './simulated/simulator.js';

/** BR Code field 26.25 holds at most 77 characters: host + `/pix/v2/` + 32 hex. */
const MAX_LOCATION_HOST_LENGTH = 77 - '/pix/v2/'.length - 32;

export type ProviderSelection = {
  provider: PixProvider;
  /** The sandbox's controls: only the simulator has them. */
  network: SimulatedNetwork | null;
  /** A real PSP's notifications and poller, once the services that apply its reports exist. */
  inbound: ((reports: ProviderReports) => ProviderInbound) | null;
};

/** The provider PIX_PROVIDER names. Adding one touches this folder and the configuration only (docs/providers.md). */
export function createProvider(
  config: Pick<Config, 'pixProvider' | 'publicBaseUrl' | 'sandboxSettleMs' | 'psp'>,
  db: Db,
  clock: Clock,
  logger: ProviderLogger,
): ProviderSelection {
  switch (config.pixProvider) {
    case 'simulated': {
      const host = new URL(config.publicBaseUrl).hostname;
      if (host.length > MAX_LOCATION_HOST_LENGTH) {
        throw new Error(`PUBLIC_BASE_URL host "${host}" is longer than ${MAX_LOCATION_HOST_LENGTH} characters and does not fit a BR Code location`);
      }
      const simulator = new SimulatedPixProvider(DEFAULT_PROVIDER_ID, db, clock, host, config.sandboxSettleMs);
      return { provider: simulator, network: simulator, inbound: null };
    }
    case 'apipix': {
      const { psp } = config;
      if (!psp) throw new Error('PIX_PROVIDER=apipix without its PSP settings');
      const client = new PspClient(psp);
      const sendBudgetMs = callBudgetMs(psp.timeoutMs);
      // Never shorter than twice a send's budget: one for an attempt that starts as its lease ends, one for its own calls.
      const sendTiming = { sendBudgetMs, settlingWindowMs: Math.max(psp.settlingWindowMs, 2 * sendBudgetMs) };
      return {
        provider: new ApiPixProvider(DEFAULT_PROVIDER_ID, client, sendTiming, psp.pixKey, logger),
        network: null,
        inbound: (reports) => new ApiPixInbound(client, db, clock, reports, psp, logger),
      };
    }
  }
}
