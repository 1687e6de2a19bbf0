import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { messages } from './messages.js';
import type { WebhookEvent } from './types.js';

/** A delivery's headers: a fetch `Headers`, or Node's `IncomingHttpHeaders` (any letter case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export type VerifyWebhookOptions = {
  /** How far the `webhook-timestamp` may be from now, either way (default 300 s, as the Standard Webhooks libraries). */
  toleranceSeconds?: number;
  /** The receiver's clock (Unix milliseconds or a Date; default `Date.now()`). */
  now?: number | Date;
};

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

/** The HMAC key of a secret: the base64 after `whsec_` (Standard Webhooks). */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new TypeError(messages.webhookSecretInvalid);
  return Buffer.from(encoded, 'base64');
}

function isWebhookEvent(value: unknown): value is WebhookEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'event' in value &&
    typeof value.event === 'string' &&
    'eventId' in value &&
    typeof value.eventId === 'string'
  );
}

/**
 * Verifies a webhook delivery (Standard Webhooks: docs/webhooks.md) and returns its event, typed
 * by its `event` name. `rawBody` must be the body exactly as received (the bytes, or their UTF-8
 * text), before any JSON parsing. `secretOrSecrets` is the endpoint's `whsec_…` secret, or several
 * during a rotation (the delivery is good when one of them signed it). Throws a
 * WebhookVerificationError when a header is missing, the timestamp is further than
 * `toleranceSeconds` from now (a replay), no signature matches (compared in constant time), or
 * the body is not an event. Deduplicate on `eventId`: a delivery may arrive more than once.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secretOrSecrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = typeof secretOrSecrets === 'string' ? [secretOrSecrets] : secretOrSecrets;
  if (secrets.length === 0) throw new TypeError(messages.webhookSecretMissing);
  const keys = secrets.map(keyOf);

  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) throw new WebhookVerificationError('missing_headers', messages.webhookHeadersMissing);
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', messages.webhookTimestampInvalid);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowMs = options.now === undefined ? Date.now() : options.now instanceof Date ? options.now.getTime() : options.now;
  const age = Math.floor(nowMs / 1000) - Number(timestamp);
  if (age > tolerance) throw new WebhookVerificationError('timestamp_too_old', messages.webhookTimestampTooOld(tolerance));
  if (-age > tolerance) throw new WebhookVerificationError('timestamp_too_new', messages.webhookTimestampTooNew(tolerance));

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const expected = keys.map((key) => Buffer.from(createHmac('sha256', key).update(signed).digest('base64'), 'utf8'));
  // `v1,<base64>` entries separated by spaces; other versions are ignored.
  const offered = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'utf8'));
  const matches = offered.some((candidate) => expected.some((mine) => mine.length === candidate.length && timingSafeEqual(mine, candidate)));
  if (!matches) throw new WebhookVerificationError('invalid_signature', messages.webhookSignatureInvalid);

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', messages.webhookBodyInvalid);
  }
  if (!isWebhookEvent(event)) throw new WebhookVerificationError('invalid_body', messages.webhookBodyInvalid);
  return event;
}
