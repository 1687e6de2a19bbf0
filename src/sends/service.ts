import { NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { ProviderSendRow } from '../platform/schema.js';
import * as repository from './repository.js';

/** A send as the operator sees it: where it stands and everything known of its attempts and checks. */
export function presentSend(row: ProviderSendRow) {
  return {
    sendId: row.id,
    kind: row.kind,
    accountId: row.accountId,
    state: row.state,
    acknowledged: row.acknowledged,
    attempts: row.attempts,
    checks: row.checks,
    nextCheckAt: row.nextCheckAt?.getTime() ?? null,
    deadlineAt: row.deadlineAt.getTime(),
    escalatedAt: row.escalatedAt?.getTime() ?? null,
    blockId: row.blockId,
    createdAt: row.createdAt.getTime(),
    history: row.history,
  };
}

/** The operator's view of the sends to PSPs (docs/providers.md "Unknown outcomes"): the queue, one send, metrics. */
export class ProviderSendService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Sends still without an outcome past their 24 hours, and debits owed after a late completion: oldest first. */
  async needingOperator(limit = 100) {
    return (await repository.listNeedingOperator(this.db, this.clock.now(), limit)).map(presentSend);
  }

  countNeedingOperator(): Promise<number> {
    return repository.countNeedingOperator(this.db, this.clock.now());
  }

  /** A withdrawal's or refund's send, by the withdrawal's transactionId or the refundId. */
  async find(id: string) {
    const row = await repository.findSend(this.db, id);
    if (!row) throw new NotFoundError(messages.providerSendNotFound);
    return presentSend(row);
  }

  /** Open sends by kind, state and age (metrics). */
  countOpenByAge() {
    return repository.countOpenByAge(this.db, this.clock.now());
  }
}
