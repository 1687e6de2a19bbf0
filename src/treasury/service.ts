import { insertAlert } from '../alerts/repository.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { ProviderBalanceRow } from '../platform/schema.js';
import { ProviderError, ProviderOutcomeUnknownError } from '../provider/provider.js';
import type { ProviderRegistry } from '../provider/registry.js';
import * as repository from './repository.js';

/** How long a process trusts the readings it loaded for routing. */
const READINGS_TTL_MS = 10_000;

/** A provider's treasury as operators read it. */
export type ProviderTreasury = {
  providerId: string;
  ledgerInCents: number;
  ledgerOutCents: number;
  /** What the ledger says the PSP holds for the gateway: in − out. */
  ledgerNetCents: number;
  /** The PSP's own balance; null when it has none or could not be read (`readError`). */
  reportedCents: number | null;
  readError: string | null;
  /** The figure withdrawals are measured against: the reported balance, else the ledger's net. */
  coverCents: number;
  lowCoverCents: number;
  low: boolean;
  readAt: Date;
};

/**
 * Treasury per PSP (DESIGN.md §14): money received minus money sent through each provider, as
 * the ledger tells, against the balance the PSP reports where it has one; read every minute by the
 * worker. A provider whose cover falls below its mark raises a high alert (once, when it falls);
 * withdrawals prefer a provider whose cover is enough for them.
 */
export class TreasuryService {
  private loaded: { readings: Map<string, ProviderTreasury>; at: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly providers: ProviderRegistry,
    /** Each provider's low-cover mark (0: no alert). */
    private readonly lowCover: ReadonlyMap<string, number>,
  ) {}

  /** Worker step (and the operator's refresh): reads every provider now. Returns the readings. */
  async refresh(): Promise<ProviderTreasury[]> {
    const settlement = await repository.settlementByProvider(this.db);
    const readings: ProviderTreasury[] = [];
    for (const providerId of this.providers.ids) {
      let reportedCents: number | null = null;
      let readError: string | null = null;
      try {
        reportedCents = await this.providers.get(providerId).balance();
      } catch (error) {
        if (!(error instanceof ProviderError || error instanceof ProviderOutcomeUnknownError)) throw error;
        readError = error.message;
      }
      const { inCents, outCents } = settlement.get(providerId) ?? { inCents: 0, outCents: 0 };
      const row: ProviderBalanceRow = {
        providerId,
        ledgerInCents: inCents,
        ledgerOutCents: outCents,
        reportedCents,
        readError,
        low: false,
        readAt: this.clock.now(),
      };
      const reading = this.present(row);
      row.low = reading.low;
      await this.db.transaction().execute(async (tx) => {
        const { wasLow } = await repository.storeBalance(tx, row);
        if (reading.low && !wasLow) {
          await insertAlert(tx, {
            accountId: null,
            kind: 'treasury_low_cover',
            transactionId: null,
            details: {
              providerId,
              coverCents: reading.coverCents,
              lowCoverCents: reading.lowCoverCents,
              reportedCents,
              ledgerNetCents: reading.ledgerNetCents,
            },
            at: row.readAt,
            severity: 'high',
          });
        }
      });
      readings.push(reading);
    }
    this.loaded = { readings: new Map(readings.map((reading) => [reading.providerId, reading])), at: performance.now() };
    return readings;
  }

  /** The latest readings, one per provider that has been read. */
  async list(): Promise<ProviderTreasury[]> {
    return (await repository.findBalances(this.db)).map((row) => this.present(row));
  }

  /** Whether a provider's cover is enough for `amountCents` as far as this process knows (unknown: yes). */
  async covers(providerId: string, amountCents: number): Promise<boolean> {
    if (!this.loaded || performance.now() - this.loaded.at > READINGS_TTL_MS) {
      const readings = await this.list();
      this.loaded = { readings: new Map(readings.map((reading) => [reading.providerId, reading])), at: performance.now() };
    }
    const reading = this.loaded.readings.get(providerId);
    return reading === undefined || reading.coverCents >= amountCents;
  }

  private present(row: ProviderBalanceRow): ProviderTreasury {
    const ledgerInCents = Number(row.ledgerInCents);
    const ledgerOutCents = Number(row.ledgerOutCents);
    const reportedCents = row.reportedCents === null ? null : Number(row.reportedCents);
    const ledgerNetCents = ledgerInCents - ledgerOutCents;
    const coverCents = reportedCents ?? ledgerNetCents;
    const lowCoverCents = this.lowCover.get(row.providerId) ?? 0;
    return {
      providerId: row.providerId,
      ledgerInCents,
      ledgerOutCents,
      ledgerNetCents,
      reportedCents,
      readError: row.readError,
      coverCents,
      lowCoverCents,
      low: lowCoverCents > 0 && coverCents < lowCoverCents,
      readAt: row.readAt,
    };
  }
}
