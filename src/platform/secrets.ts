import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Compares secrets of any length without leaking where they differ. */
export const secretsEqual = (a: string, b: string): boolean => constantTimeEqual(sha256(a), sha256(b));

/** AES-256-GCM under a key derived from the server secret, for secrets the service must use again (webhook signing). */
const encryptionKey = (serverSecret: string): Buffer => Buffer.from(hkdfSync('sha256', serverSecret, 'pix-gateway', 'stored-secrets', 32));

export function encryptSecret(plaintext: string, serverSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(serverSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':');
}

export function decryptSecret(stored: string, serverSecret: string): string {
  const [version, iv, tag, ciphertext] = stored.split(':');
  if (version !== 'v1' || !iv || !tag || !ciphertext) throw new Error('unknown stored secret format');
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(serverSecret), Buffer.from(iv, 'base64'), { authTagLength: 16 });
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
