import { messages } from '../messages.js';
import { isValidCnpj, isValidCpf, normalizeDocument } from './documents.js';

export const PIX_KEY_TYPES = ['cpf', 'cnpj', 'email', 'phone', 'evp'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

// DICT stores keys of at most 77 characters.
const MAX_EMAIL_LENGTH = 77;
const EMAIL_PATTERN = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;
const E164_PATTERN = /^\+[1-9]\d{1,14}$/;
const BRAZILIAN_PHONE_PATTERN = /^\+55\d{10,11}$/; // DDD + 8 or 9 digit number
// Any UUID version: DICT's own examples are not v4.
const EVP_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Tolerates case and surrounding spaces only: `e mail` is a typo, not `email`. */
export function normalizePixKeyType(value: unknown): PixKeyType | null {
  if (typeof value !== 'string') return null;
  const type = value.trim().toLowerCase();
  return PIX_KEY_TYPES.find((known) => known === type) ?? null;
}

/** Removes only the formatting people type around a key, never meaningful characters. */
export function normalizePixKey(type: PixKeyType, key: string): string {
  switch (type) {
    case 'cpf':
    case 'cnpj':
      return normalizeDocument(key); // also removes surrounding whitespace
    case 'email':
    case 'evp':
      return key.trim().toLowerCase();
    case 'phone':
      return key.trim().replace(/[\s()-]/g, '');
  }
}

/** Null when the (normalized) key has the DICT format for its type, else the API message. */
export function pixKeyFormatError(type: PixKeyType, normalizedKey: string): string | null {
  switch (type) {
    case 'cpf':
      return isValidCpf(normalizedKey) ? null : messages.pixKeyNotCpf;
    case 'cnpj':
      return isValidCnpj(normalizedKey) ? null : messages.pixKeyNotCnpj;
    case 'email':
      return normalizedKey.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(normalizedKey) ? null : messages.pixKeyNotEmail;
    case 'phone':
      return E164_PATTERN.test(normalizedKey) && (!normalizedKey.startsWith('+55') || BRAZILIAN_PHONE_PATTERN.test(normalizedKey))
        ? null
        : messages.pixKeyNotPhone;
    case 'evp':
      return EVP_PATTERN.test(normalizedKey) ? null : messages.pixKeyNotEvp;
  }
}
