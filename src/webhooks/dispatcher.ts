import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { isDatabaseUnavailable } from '../platform/errors.js';
import { grouped } from '../platform/grouped.js';
import { newId } from '../platform/ids.js';
import { decryptSecret } from '../platform/secrets.js';
import type { WebhookDeliveryStatus } from '../platform/schema.js';
import type { WebhookClient, WebhookResponse } from './outbound.js';
import { claimDueDeliveries, recordAttempts, type AttemptOutcome, type ClaimedDelivery } from './repository.js';
import { secretKeyBytes, signatureHeaders } from './signature.js';

type Logger = Pick<FastifyBaseLogger, 'error' | 'warn'>;

export type DispatcherOptions = {
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** How long an idle dispatcher waits before looking for due deliveries again. */
  idleMs?: number;
  /** Told of each attempt's outcome (metrics): delivered, retry (tried again later) or failed (final). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed') => void;
};

/**
 * Timeout, network error, 5xx, 408 and 429 are retried; 2xx is delivered; anything else (other
 * 4xx, 3xx, a URL never dialled because the rules forbid it) is final.
 */
export function attemptVerdict(response: WebhookResponse): 'delivered' | 'retry' | 'final' {
  if (response.refused) return 'final';
  const httpStatus = response.status;
  if (httpStatus === null || httpStatus >= 500 || httpStatus === 408 || httpStatus === 429) return 'retry';
  return httpStatus >= 200 && httpStatus < 300 ? 'delivered' : 'final';
}

/**
 * Delivers due webhook attempts. Any number of processes may run one: each claims its own rows
 * (SKIP LOCKED) under a lease long enough for one attempt, so an attempt is made once, and a
 * process that dies mid-attempt leaves the delivery to be claimed again when its lease ends.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly concurrency: number;
  private readonly idleMs: number;
  private readonly leaseMs: number;
  private readonly onAttempt: NonNullable<DispatcherOptions['onAttempt']>;
  private readonly keyCache = new LRUCache<string, Buffer>({ max: 10_000 });
  private loop: Promise<void> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  /**
   * Records a finished attempt: attempts that finish while a record is being written are written
   * together, in one statement and one commit (platform/grouped.ts; one write per attempt was
   * measured as the bottleneck).
   */
  private readonly record: (outcome: AttemptOutcome) => Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'secretKey' | 'webhookRetryScheduleSeconds' | 'webhookTimeoutMs'>,
    private readonly client: WebhookClient,
    options: DispatcherOptions = {},
  ) {
    this.onAttempt = options.onAttempt ?? (() => undefined);
    this.concurrency = options.concurrency ?? 128;
    this.idleMs = options.idleMs ?? 50;
    // An attempt ends within its timeout; the margin covers recording it.
    this.leaseMs = 2 * config.webhookTimeoutMs + 5000;
    this.record = grouped(async (outcomes: AttemptOutcome[]) => {
      await recordAttempts(db, outcomes, clock.now());
      return outcomes.map(() => undefined);
    });
  }

  /** Claims as many due deliveries as there are free slots and starts them; resolves to how many started. */
  async dispatchDue(logger?: Logger): Promise<number> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const now = this.clock.now();
    const leaseId = newId();
    const claimed = await claimDueDeliveries(this.db, leaseId, now, new Date(now.getTime() + this.leaseMs), free);
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery, leaseId)
        .catch((error: unknown) => {
          // Its delivery is claimed again when the lease ends: a lost database only delays it.
          if (isDatabaseUnavailable(error))
            logger?.warn({ err: error, deliveryId: delivery.id }, 'webhook attempt not recorded (database unavailable); retried when its lease ends');
          else logger?.error({ err: error, deliveryId: delivery.id }, 'webhook attempt not recorded; retried when its lease ends');
        })
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake?.();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** Delivers everything due now and waits for it (tests, one-shot runs). */
  async deliverDue(): Promise<void> {
    for (;;) {
      const started = await this.dispatchDue();
      await Promise.all(this.inFlight);
      if (started === 0) return;
    }
  }

  start(logger: Logger): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
        let started = 0;
        try {
          started = await this.dispatchDue(logger);
        } catch (error) {
          if (isDatabaseUnavailable(error)) logger.warn({ err: error }, 'webhook dispatch paused: database unavailable');
          else logger.error({ err: error }, 'webhook dispatch failed');
        }
        // A full batch means a backlog: go again at once unless every slot is busy.
        if (!this.stopped && (started === 0 || this.inFlight.size >= this.concurrency)) await this.pause();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
    this.loop = null;
  }

  /** Sleeps for the idle interval, or less when an attempt frees a slot or the dispatcher stops. */
  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.idleMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.wake = null;
    });
  }

  private signingKeys(delivery: ClaimedDelivery, at: Date): Buffer[] {
    const keys = [this.key(delivery.secretEncrypted)];
    if (delivery.previousSecretEncrypted && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > at) {
      keys.push(this.key(delivery.previousSecretEncrypted));
    }
    return keys;
  }

  private key(secretEncrypted: string): Buffer {
    let key = this.keyCache.get(secretEncrypted);
    if (!key) {
      key = secretKeyBytes(decryptSecret(secretEncrypted, this.config.secretKey));
      this.keyCache.set(secretEncrypted, key);
    }
    return key;
  }

  private async attempt(delivery: ClaimedDelivery, leaseId: string): Promise<void> {
    const attemptedAt = this.clock.now();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    let response: WebhookResponse;
    try {
      const headers = {
        'x-svc-event': delivery.eventName,
        'x-svc-event-id': delivery.eventId,
        ...signatureHeaders(this.signingKeys(delivery, attemptedAt), delivery.eventId, timestamp, delivery.payload),
      };
      response = await this.client.post(delivery.url, headers, delivery.payload);
    } catch {
      // A secret that no longer decrypts (SECRET_KEY changed): final, visible in the history.
      response = { status: null, error: 'signing failed: the endpoint secret cannot be read', durationMs: 0, refused: true };
    }

    const finishedAt = this.clock.now();
    const verdict = attemptVerdict(response);
    // The schedule holds the waits between attempts: 5 waits, 6 attempts in all.
    const wait = this.config.webhookRetryScheduleSeconds[delivery.attemptCount];
    const status: WebhookDeliveryStatus = verdict === 'delivered' ? 'succeeded' : verdict === 'retry' && wait !== undefined ? 'pending' : 'failed';
    this.onAttempt(status === 'succeeded' ? 'delivered' : status === 'pending' ? 'retry' : 'failed');
    await this.record({
      deliveryId: delivery.id,
      leaseId,
      attemptId: newId(),
      url: delivery.url,
      attemptedAt,
      durationMs: response.durationMs,
      httpStatus: response.status,
      error: response.error,
      status,
      nextAttemptAt: status === 'pending' ? new Date(finishedAt.getTime() + (wait ?? 0) * 1000) : finishedAt,
    });
  }
}
