import { insertAlert } from '../alerts/repository.js';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { newId } from '../platform/ids.js';
import type { MovementKind, ReconciliationDifferenceRow, ReconciliationRunRow } from '../platform/schema.js';
import type { PixProvider, ProviderRecord } from '../provider/provider.js';
import type { ProviderRegistry } from '../provider/registry.js';
import * as repository from './repository.js';
import type { LedgerMovement, NewDifference, RefundMovement } from './repository.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest period one run compares. */
const MAX_PERIOD_MS = 31 * DAY_MS;
/** A PSP stamps a movement with its own time: its records are read this much beyond the period, and what belongs to the next period is left to it. */
const EDGE_MS = HOUR_MS;

export type Period = { from: Date; to: Date };

/**
 * The daily job compares a UTC day this long after it ends: what its last minutes left in flight
 * (a notification, a poll, a send's checks and settling window) has landed by then.
 */
const DAILY_GRACE_MS = 6 * HOUR_MS;

/** The day the daily job compares at `now`: the previous UTC day, once its grace has passed. */
function previousDay(now: Date): Period {
  const to = new Date(Math.floor((now.getTime() - DAILY_GRACE_MS) / DAY_MS) * DAY_MS);
  return { from: new Date(to.getTime() - DAY_MS), to };
}

const key = (movement: MovementKind, reference: string) => `${movement}:${reference}`;

/**
 * Reconciliation per PSP (DESIGN.md §14): the ledger's movements at a provider over a period
 * compared with the provider's own records — every difference listed (missing on either side, an
 * amount, a status), an alert when there is any, a report an accountant can download.
 */
export class ReconciliationService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly providers: ProviderRegistry,
  ) {}

  /** On demand: one run per provider (or the one named) over the period. */
  async runNow(input: { providerId?: string | undefined; from: Date; to: Date }, requestedBy: string): Promise<ReconciliationRunRow[]> {
    if (!(input.from.getTime() < input.to.getTime()) || input.to.getTime() - input.from.getTime() > MAX_PERIOD_MS) {
      throw new InvalidRequestError(messages.reconciliationPeriodInvalid);
    }
    if (input.providerId !== undefined && !this.providers.has(input.providerId)) throw new NotFoundError(messages.providerNotFound);
    const ids = input.providerId === undefined ? this.providers.ids : [input.providerId];
    const runs: ReconciliationRunRow[] = [];
    for (const providerId of ids) {
      const run = await this.run(providerId, { from: input.from, to: input.to }, requestedBy);
      if (run) runs.push(run);
    }
    return runs;
  }

  /** Worker step: yesterday (UTC, from 06:00 UTC on) of every provider, once whatever the number of workers (again after a failed run). Returns the runs made. */
  async runDaily(): Promise<number> {
    const period = previousDay(this.clock.now());
    let made = 0;
    for (const providerId of this.providers.ids) if (await this.run(providerId, period, 'schedule')) made++;
    return made;
  }

  list(providerId: string | undefined, limit = 50): Promise<ReconciliationRunRow[]> {
    return repository.listRuns(this.db, providerId, limit);
  }

  async get(runId: string): Promise<{ run: ReconciliationRunRow; differences: ReconciliationDifferenceRow[] }> {
    const run = await repository.findRun(this.db, runId);
    if (!run) throw new NotFoundError(messages.reconciliationNotFound);
    return { run, differences: await repository.listDifferences(this.db, runId) };
  }

  /** Each provider's latest finished run's count of differences (metrics). */
  latestDifferences() {
    return repository.latestDifferences(this.db);
  }

  /** One run: undefined when a scheduled one for the period exists already. A PSP that cannot list its records fails the run (and says why). */
  private async run(providerId: string, period: Period, requestedBy: string): Promise<ReconciliationRunRow | undefined> {
    const started = await repository.insertRun(this.db, {
      id: newId(),
      providerId,
      periodFrom: period.from,
      periodTo: period.to,
      requestedBy,
      startedAt: this.clock.now(),
    });
    if (!started) return undefined;
    const provider = this.providers.get(providerId);
    let records: ProviderRecord[];
    let ledger: LedgerMovement[];
    try {
      records = await provider.listRecords({ from: new Date(period.from.getTime() - EDGE_MS), to: new Date(period.to.getTime() + EDGE_MS) });
      ledger = await repository.ledgerMovements(this.db, providerId, period.from, period.to);
      records.push(...(await this.askForUnlisted(provider, ledger, records, period)));
    } catch (error) {
      // Whatever stops it, a run never stays `running`: it fails and says why.
      return repository.finishRun(this.db, started.id, {
        status: 'failed',
        matched: 0,
        ledgerInCents: 0,
        ledgerOutCents: 0,
        pspInCents: 0,
        pspOutCents: 0,
        error: error instanceof Error ? error.message : String(error),
        finishedAt: this.clock.now(),
        differences: [],
      });
    }
    const { differences, matched } = await this.compare(ledger, records, period);
    const inPeriod = records.filter((record) => record.at >= period.from && record.at < period.to && record.status === 'settled');
    const sum = (items: { amountCents: number }[]) => items.reduce((total, item) => total + item.amountCents, 0);
    const settled = ledger.filter((movement) => movement.status === 'settled');
    return this.db.transaction().execute(async (tx) => {
      const at = this.clock.now();
      const finished = await repository.finishRun(tx, started.id, {
        status: 'done',
        matched,
        ledgerInCents: sum(settled.filter((movement) => movement.movement === 'payment')),
        ledgerOutCents: sum(settled.filter((movement) => movement.movement !== 'payment')),
        pspInCents: sum(inPeriod.filter((record) => record.movement === 'payment')),
        pspOutCents: sum(inPeriod.filter((record) => record.movement !== 'payment')),
        error: null,
        finishedAt: at,
        differences,
      });
      if (differences.length > 0) {
        await insertAlert(tx, {
          accountId: null,
          kind: 'reconciliation_differences',
          transactionId: null,
          details: { runId: started.id, providerId, from: period.from.toISOString(), to: period.to.toISOString(), differences: differences.length },
          at,
          severity: 'high',
        });
      }
      return finished;
    });
  }

  /**
   * A refund the provider's lists do not show may still be there: a PSP may list a devolução only
   * with the PIX it returns, by that PIX's time, so the devolução of an older PIX is asked for by its id.
   * Its amount is taken as the ledger's (the PSP's answer is its outcome); `unknown` is pending.
   */
  private async askForUnlisted(provider: PixProvider, ledger: LedgerMovement[], records: ProviderRecord[], period: Period): Promise<ProviderRecord[]> {
    const listed = new Set(records.filter((record) => record.movement === 'refund').flatMap((record) => [record.reference, record.endToEndId]));
    const unlisted = ledger.filter(
      (movement): movement is RefundMovement =>
        movement.movement === 'refund' &&
        movement.status !== 'pending' &&
        !listed.has(movement.reference) &&
        !(movement.endToEndId && listed.has(movement.endToEndId)),
    );
    const found: ProviderRecord[] = [];
    for (const refund of unlisted) {
      const outcome = await provider.refundOutcome({
        accountId: refund.accountId,
        refundId: refund.reference,
        transactionId: refund.transactionId,
        paymentEndToEndId: refund.paymentEndToEndId,
        amountCents: refund.amountCents,
        nature: refund.refundKind === 'med' ? 'med' : 'original',
      });
      if (outcome.status === 'not_received') continue;
      const status = outcome.status === 'refunded' ? 'settled' : outcome.status === 'failed' ? 'failed' : 'pending';
      found.push({ movement: 'refund', reference: refund.reference, amountCents: refund.amountCents, status, at: period.from });
    }
    return found;
  }

  /**
   * Each ledger movement with the provider's record of it: settled here and absent there, a
   * different amount, or a different outcome is a difference; a failed one the provider never had
   * matches (it was never sent); one still pending here is left to the checks unless the provider
   * already decided it. A provider's record the ledger does not know in any period is missing in
   * the ledger.
   */
  private async compare(ledger: LedgerMovement[], records: ProviderRecord[], period: Period): Promise<{ differences: NewDifference[]; matched: number }> {
    const byKey = new Map(records.map((record) => [key(record.movement, record.reference), record]));
    const used = new Set<ProviderRecord>();
    const differences: NewDifference[] = [];
    let matched = 0;
    for (const movement of ledger) {
      const record =
        byKey.get(key(movement.movement, movement.reference)) ?? (movement.endToEndId ? byKey.get(key(movement.movement, movement.endToEndId)) : undefined);
      if (record) used.add(record);
      const difference = (kind: NewDifference['kind']): NewDifference => ({
        kind,
        movement: movement.movement,
        reference: movement.reference,
        accountId: movement.accountId,
        transactionId: movement.transactionId,
        ledgerCents: movement.amountCents,
        pspCents: record?.amountCents ?? null,
        ledgerStatus: movement.status,
        pspStatus: record?.status ?? null,
      });
      if (movement.status === 'pending') {
        if (record && record.status !== 'pending') differences.push(difference('status'));
        continue;
      }
      if (!record) {
        if (movement.status === 'settled') differences.push(difference('missing_at_psp'));
        else matched++;
      } else if (record.status !== movement.status) {
        differences.push(difference('status'));
      } else if (record.amountCents !== movement.amountCents) {
        differences.push(difference('amount'));
      } else {
        matched++;
      }
    }
    const unmatched = records.filter((record) => !used.has(record));
    for (const movement of ['payment', 'withdrawal', 'refund'] as const) {
      const candidates = unmatched.filter((record) => record.movement === movement);
      const known = await repository.knownReferences(
        this.db,
        movement,
        candidates.flatMap((record) => [record.reference, ...(record.endToEndId ? [record.endToEndId] : [])]),
      );
      for (const record of candidates) {
        // Known in another period (read beyond this one's edges), or outside the period and not ours to judge here.
        if (known.has(record.reference) || (record.endToEndId && known.has(record.endToEndId))) continue;
        if (record.at < period.from || record.at >= period.to) continue;
        differences.push({
          kind: 'missing_in_ledger',
          movement,
          reference: record.reference,
          accountId: null,
          transactionId: null,
          ledgerCents: null,
          pspCents: record.amountCents,
          ledgerStatus: null,
          pspStatus: record.status,
        });
      }
    }
    return { differences, matched };
  }
}
