import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com, DESIGN.md §5): the secret is `whsec_` + base64
 * of 32 random bytes and the HMAC key is those bytes; the signed content is
 * `<id>.<timestamp>.<raw body>`, HMAC-SHA256, base64.
 */
const SECRET_PREFIX = 'whsec_';

export const generateWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');

export const secretKeyBytes = (secret: string): Buffer => Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');

export function signPayload(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/**
 * The signature headers of one attempt. With two keys (a rotation's overlap), both signatures are
 * sent, the current one first: space-separated in `webhook-signature`, repeated `v1=` in
 * `X-Svc-Signature`.
 */
export function signatureHeaders(keys: readonly Buffer[], eventId: string, timestampSeconds: number, body: string): Record<string, string> {
  const signatures = keys.map((key) => signPayload(key, eventId, timestampSeconds, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.map((signature) => `v1,${signature}`).join(' '),
    'x-svc-signature': [`t=${timestampSeconds}`, ...signatures.map((signature) => `v1=${signature}`)].join(','),
  };
}
