import type { Config } from '../config.js';
import { messages } from '../messages.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { InvalidRequestError, InvalidStateError, LimitExceededError, NotFoundError, RateLimitedError } from '../errors.js';
import { newId } from '../platform/ids.js';
import { consumeRateLimit, FIXED_WINDOW_MS } from '../platform/rateLimitRepository.js';
import type { WebhookEndpointRow } from '../platform/schema.js';
import { encryptSecret } from '../platform/secrets.js';
import { normalizeEventFilter } from './events.js';
import { allowsProtocol, isNonPublicLiteral } from './outbound.js';
import * as repository from './repository.js';
import { generateWebhookSecret } from './signature.js';

/** Spec limits: 6 URLs per account, 10 manual resends per hour per account. */
const MAX_ENDPOINTS_PER_ACCOUNT = 6;
const RESENDS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;
const DEFAULT_OVERLAP_SECONDS = 86_400;
const HISTORY_RETENTION_MS = 60 * 24 * HOUR_MS;
const MAX_URL_LENGTH = 2048;

function presentEndpoint(row: WebhookEndpointRow, now: Date) {
  return {
    endpointId: row.id,
    url: row.url,
    events: row.filters,
    previousSecretExpiresAt: row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt.getTime() : null,
    createdAt: row.createdAt.getTime(),
  };
}

function presentAttempt(record: repository.AttemptRecord) {
  return {
    attemptId: record.attemptId,
    deliveryId: record.deliveryId,
    endpointId: record.endpointId,
    eventId: record.eventId,
    event: record.eventName,
    transactionId: record.transactionId,
    resendOf: record.resendOf,
    deliveryStatus: record.deliveryStatus,
    attemptNumber: record.attemptNumber,
    url: record.url,
    attemptedAt: record.attemptedAt.getTime(),
    durationMs: record.durationMs,
    httpStatus: record.httpStatus,
    error: record.error,
    payload: record.payload,
  };
}

/** Endpoints, their secrets and the delivery history: what the operator API and the dashboard use. */
/** How far back Início looks for failed webhook attempts. */
const FAILING_WINDOW_MS = 7 * 86_400_000;

export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'secretKey' | 'webhookAllowPrivate'>,
  ) {}

  /**
   * The account's endpoints whose latest attempt failed, among the attempts of the last 7 days (at
   * most 500): Início's attention list. A delivery retried to success clears its endpoint.
   */
  failingEndpoints(accountId: string) {
    return repository.failingEndpoints(this.db, accountId, new Date(this.clock.now().getTime() - FAILING_WINDOW_MS), 500);
  }

  /** HTTPS (http too when private receivers are allowed); a literal address must be public. */
  private checkUrl(url: string): void {
    if (url.length > MAX_URL_LENGTH || !URL.canParse(url)) throw new InvalidRequestError(messages.webhookUrlInvalid);
    const { protocol, username, password, hostname } = new URL(url);
    if (!allowsProtocol(protocol, this.config.webhookAllowPrivate) || username || password) throw new InvalidRequestError(messages.webhookUrlInvalid);
    if (!this.config.webhookAllowPrivate && (isNonPublicLiteral(hostname) || hostname === 'localhost' || hostname.endsWith('.localhost'))) {
      throw new InvalidRequestError(messages.webhookUrlNotPublic);
    }
  }

  async registerEndpoint(accountId: string, input: { url: string; events?: string[] | undefined }) {
    this.checkUrl(input.url);
    const filter = normalizeEventFilter(input.events ?? []);
    if ('unknown' in filter) throw new InvalidRequestError(messages.webhookEventsInvalid(filter.unknown));
    const secret = generateWebhookSecret();
    const row = await this.db.transaction().execute(async (tx) => {
      if (!(await repository.lockAccountForEndpoints(tx, accountId))) throw new NotFoundError(messages.accountNotFound);
      const existing = await repository.listEndpoints(tx, accountId);
      if (existing.length >= MAX_ENDPOINTS_PER_ACCOUNT) throw new LimitExceededError(messages.webhookEndpointLimit(MAX_ENDPOINTS_PER_ACCOUNT));
      return repository.insertEndpoint(tx, {
        id: newId(),
        accountId,
        url: input.url,
        filters: filter.filters,
        eventNames: filter.eventNames,
        secretEncrypted: encryptSecret(secret, this.config.secretKey),
        createdAt: this.clock.now(),
      });
    });
    return { ...presentEndpoint(row, this.clock.now()), secret };
  }

  async listEndpoints(accountId: string) {
    const rows = await repository.listEndpoints(this.db, accountId);
    const now = this.clock.now();
    return { endpoints: rows.map((row) => presentEndpoint(row, now)), count: rows.length };
  }

  async getEndpoint(accountId: string, endpointId: string) {
    const row = await repository.findEndpoint(this.db, endpointId);
    if (!row || row.accountId !== accountId) throw new NotFoundError(messages.webhookEndpointNotFound);
    return presentEndpoint(row, this.clock.now());
  }

  async deleteEndpoint(accountId: string, endpointId: string): Promise<void> {
    const deleted = await this.db.transaction().execute((tx) => repository.deleteEndpoint(tx, accountId, endpointId, this.clock.now()));
    if (!deleted) throw new NotFoundError(messages.webhookEndpointNotFound);
  }

  /** A new secret; the current one keeps signing (second signature) until the overlap ends. With `accountId`, only that account's endpoint. */
  async rotateSecret(endpointId: string, overlapSeconds = DEFAULT_OVERLAP_SECONDS, accountId?: string) {
    const secret = generateWebhookSecret();
    const now = this.clock.now();
    const previousExpiresAt = new Date(now.getTime() + overlapSeconds * 1000);
    await this.db.transaction().execute(async (tx) => {
      const endpoint = await repository.findEndpoint(tx, endpointId, { lock: true });
      if (!endpoint || (accountId && endpoint.accountId !== accountId)) throw new NotFoundError(messages.webhookEndpointNotFound);
      const previous = overlapSeconds > 0 ? { secretEncrypted: endpoint.secretEncrypted, expiresAt: previousExpiresAt } : null;
      await repository.rotateEndpointSecret(tx, endpointId, encryptSecret(secret, this.config.secretKey), previous);
    });
    return { endpointId, secret, previousSecretExpiresAt: overlapSeconds > 0 ? previousExpiresAt.getTime() : null };
  }

  async listAttempts(accountId: string, filter: { eventId?: string | undefined; transactionId?: string | undefined; limit: number }) {
    const records = await repository.listAttempts(this.db, accountId, {
      limit: filter.limit,
      ...(filter.eventId ? { eventId: filter.eventId } : {}),
      ...(filter.transactionId ? { transactionId: filter.transactionId } : {}),
    });
    return { attempts: records.map(presentAttempt), count: records.length };
  }

  /** Re-fires a past delivery: same event id and body, new timestamp and signature; 10 per hour per account. With `accountId`, only that account's. Says whose it was (the audit log files it under that account). */
  async resend(deliveryId: string, accountId?: string) {
    const now = this.clock.now();
    const resendId = newId();
    const original = await this.db.transaction().execute(async (tx) => {
      const delivery = await repository.findDelivery(tx, deliveryId);
      if (!delivery || (accountId && delivery.accountId !== accountId)) throw new NotFoundError(messages.webhookDeliveryNotFound);
      if (!(await repository.findEndpoint(tx, delivery.endpointId))) throw new InvalidStateError(messages.webhookResendEndpointRemoved);
      const allowed = await consumeRateLimit(
        tx,
        delivery.accountId,
        { bucket: 'webhook-resends:hour', windowMs: FIXED_WINDOW_MS.hour, limit: RESENDS_PER_HOUR },
        now,
      );
      if (!allowed) throw new RateLimitedError(messages.webhookResendRateLimited);
      await repository.insertResend(tx, delivery, resendId, now);
      return delivery;
    });
    return { deliveryId: resendId, resendOf: original.id, eventId: original.eventId, status: 'pending' as const, accountId: original.accountId };
  }

  /** The outbox backlog (metrics): deliveries due now and the age of the oldest, in seconds. */
  backlog(): Promise<{ due: number; oldestDueSeconds: number }> {
    return repository.dueDeliveryBacklog(this.db, this.clock.now());
  }

  /** Housekeeping: history older than 60 days goes. */
  purgeHistory(): Promise<number> {
    return repository.purgeHistory(this.db, new Date(this.clock.now().getTime() - HISTORY_RETENTION_MS));
  }
}
