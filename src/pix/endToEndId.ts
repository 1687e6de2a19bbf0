import { randomInt } from 'node:crypto';

export const END_TO_END_ID_PATTERN = /^E[0-9A-Z]{8}\d{12}[a-zA-Z0-9]{11}$/;
export const REFUND_END_TO_END_ID_PATTERN = /^D[0-9A-Z]{8}\d{12}[a-zA-Z0-9]{11}$/;

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `E`/`D` + ISPB + yyyyMMddHHmm (UTC) + 11 random alphanumerics, as the SPI defines it. */
export function generateEndToEndId(ispb: string, at: Date, kind: 'E' | 'D' = 'E'): string {
  if (!/^[0-9A-Z]{8}$/.test(ispb)) throw new Error('ISPB must be 8 characters [0-9A-Z].');
  const minute = at.toISOString().slice(0, 16).replace(/[-T:]/g, '');
  let suffix = '';
  // randomInt is unbiased (rejection sampling inside) and cryptographically strong.
  for (let i = 0; i < 11; i++) suffix += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return `${kind}${ispb}${minute}${suffix}`;
}
