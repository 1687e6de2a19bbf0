import type { Config, ProviderSettings } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { callBudgetMs, PspClient } from './apipix/client.js';
import { ApiPixInbound } from './apipix/inbound.js';
import { ApiPixProvider } from './apipix/provider.js';
import type { PixProvider, ProviderInbound, ProviderLogger, ProviderReports, SimulatedNetwork } from './provider.js';
import { ProviderRegistry, type CallObserver } from './registry.js';
import { SimulatedPixProvider } from './simulated/simulator.js';

/** BR Code field 26.25 holds at most 77 characters: host + `/pix/v2/` + 32 hex. */
const MAX_LOCATION_HOST_LENGTH = 77 - '/pix/v2/'.length - 32;

export type ProviderSelection = {
  /** Every configured provider, each behind its breaker. */
  registry: ProviderRegistry;
  /** The sandbox's controls of each simulated provider, by id: empty when every provider is a real PSP. */
  networks: ReadonlyMap<string, SimulatedNetwork>;
  /** Each real PSP's notifications and poller, once the services that apply a provider's reports exist. */
  inbound: (reportsOf: (providerId: string) => ProviderReports) => ProviderInbound[];
};

type Built = { provider: PixProvider; network: SimulatedNetwork | null; inbound: ((reports: ProviderReports) => ProviderInbound) | null };

/**
 * The providers of the configuration (PROVIDERS_FILE, or PIX_PROVIDER as `default`). Adding a kind
 * touches this folder and the configuration only (docs/providers.md).
 */
export function createProviders(
  config: Pick<Config, 'providers' | 'publicBaseUrl' | 'sandboxSettleMs'>,
  db: Db,
  clock: Clock,
  logger: ProviderLogger,
  observe?: CallObserver,
): ProviderSelection {
  const built = config.providers.map((settings) => build(settings, config, db, clock, logger));
  const networks = new Map<string, SimulatedNetwork>();
  for (const { network } of built) if (network) networks.set(network.id, network);
  return {
    registry: new ProviderRegistry(
      built.map(({ provider }) => provider),
      { caps: new Map(config.providers.map((settings) => [settings.id, settings.caps])), ...(observe ? { observe } : {}) },
    ),
    networks,
    inbound: (reportsOf) => built.flatMap(({ provider, inbound }) => (inbound ? [inbound(reportsOf(provider.id))] : [])),
  };
}

function build(settings: ProviderSettings, config: Pick<Config, 'publicBaseUrl' | 'sandboxSettleMs'>, db: Db, clock: Clock, logger: ProviderLogger): Built {
  switch (settings.kind) {
    case 'simulated': {
      const host = new URL(config.publicBaseUrl).hostname;
      if (host.length > MAX_LOCATION_HOST_LENGTH) {
        throw new Error(`PUBLIC_BASE_URL host "${host}" is longer than ${MAX_LOCATION_HOST_LENGTH} characters and does not fit a BR Code location`);
      }
      const simulator = new SimulatedPixProvider(settings.id, db, clock, host, config.sandboxSettleMs, settings.timeoutMs, settings.openingBalanceCents);
      return { provider: simulator, network: simulator, inbound: null };
    }
    case 'apipix': {
      const { psp } = settings;
      const client = new PspClient(psp);
      const sendBudgetMs = callBudgetMs(psp.timeoutMs);
      // Never shorter than twice a send's budget: one for an attempt that starts as its lease ends, one for its own calls.
      const sendTiming = { sendBudgetMs, settlingWindowMs: Math.max(psp.settlingWindowMs, 2 * sendBudgetMs) };
      const providerLogger = logger;
      return {
        provider: new ApiPixProvider(settings.id, client, sendTiming, psp.pixKey, providerLogger, psp.receiverAccount),
        network: null,
        inbound: (reports) => new ApiPixInbound(settings.id, client, db, clock, reports, psp, providerLogger),
      };
    }
  }
}
