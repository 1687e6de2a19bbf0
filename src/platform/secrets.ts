import { createHash, timingSafeEqual } from 'node:crypto';

export const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Compares secrets of any length without leaking where they differ. */
export const secretsEqual = (a: string, b: string): boolean => constantTimeEqual(sha256(a), sha256(b));
