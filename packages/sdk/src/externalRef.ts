import { createHash, randomBytes } from 'node:crypto';

/** The gateway's limit on `externalRef` (charges, withdrawals, refunds). */
export const EXTERNAL_REF_MAX_LENGTH = 100;

/**
 * A new, unique `externalRef`: `<prefix>_<time><random>` (time-ordered, 16 random bytes). Give
 * one to a charge or withdrawal before the first attempt and keep it with your order: a retry
 * with the same value answers the original (200, `idempotent: true`) instead of creating another.
 * The client generates one itself when a charge or withdrawal has none, so its own retries are safe.
 */
export function generateExternalRef(prefix = 'sdk'): string {
  if (prefix.length === 0 || prefix.length > 60) throw new RangeError('generateExternalRef: the prefix must have 1 to 60 characters');
  return `${prefix}_${Date.now().toString(36)}${randomBytes(16).toString('base64url')}`;
}

/**
 * A deterministic `externalRef` from your own identifiers, e.g. `externalRefFrom('order', 1234)`
 * → `order:1234`, or `externalRefFrom('payout', sellerId, '2026-11')`: the same business event
 * always gets the same reference, so sending it twice (a crash, a redelivered job) creates one
 * transaction. Beyond 100 characters the reference becomes `<first part>:<SHA-256, base64url>`.
 */
export function externalRefFrom(...parts: (string | number)[]): string {
  if (parts.length === 0) throw new RangeError('externalRefFrom needs at least one part');
  const joined = parts.map(String).join(':');
  if (joined.length <= EXTERNAL_REF_MAX_LENGTH && joined.length > 0) return joined;
  const digest = createHash('sha256').update(joined).digest('base64url');
  return `${String(parts[0]).slice(0, EXTERNAL_REF_MAX_LENGTH - digest.length - 1)}:${digest}`;
}
