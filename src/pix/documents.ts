export type DocumentType = 'cpf' | 'cnpj';

/**
 * A CPF or CNPJ as stored and compared: the usual punctuation and spaces removed, letters
 * upper-cased (an alphanumeric CNPJ may be typed in lower case). Other characters stay, so they
 * fail validation visibly.
 */
export function normalizeDocument(value: string): string {
  return value.replace(/[.\-/\s]/g, '').toUpperCase();
}

// Mod-11 check digit shared by CPF (weights 2..11) and CNPJ (weights cycling 2..9), weights
// counted from the right. Character value = code − 48, as Receita defines it: '0'–'9' are 0–9
// and 'A'–'Z' are 17–42 (alphanumeric CNPJ, IN RFB 2.229/2024).
function mod11CheckDigit(body: string, maxWeight: number): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const weight = ((body.length - 1 - i) % (maxWeight - 1)) + 2;
    sum += (body.charCodeAt(i) - 48) * weight;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function hasValidCheckDigits(value: string, maxWeight: number): boolean {
  // Repeated digits (000.000.000-00 …) pass the arithmetic but are never issued.
  if (/^(\d)\1*$/.test(value)) return false;
  const body = value.slice(0, -2);
  const first = mod11CheckDigit(body, maxWeight);
  const second = mod11CheckDigit(`${body}${first}`, maxWeight);
  return value.endsWith(`${first}${second}`);
}

const CPF_PATTERN = /^\d{11}$/;
// 12 characters of [0-9A-Z] (numeric CNPJs are the all-digit case), then 2 numeric check digits.
const CNPJ_PATTERN = /^[0-9A-Z]{12}\d{2}$/;

/** A normalised CPF: 11 digits with valid check digits. */
export function isValidCpf(value: string): boolean {
  return CPF_PATTERN.test(value) && hasValidCheckDigits(value, 11);
}

/** A normalised CNPJ, numeric or alphanumeric: 14 characters with valid check digits. */
export function isValidCnpj(value: string): boolean {
  return CNPJ_PATTERN.test(value) && hasValidCheckDigits(value, 9);
}

/** The characters a document of this type may be typed with, punctuation included. */
export function hasDocumentCharacters(type: DocumentType, value: string): boolean {
  return type === 'cpf' ? /^[\d.\-/\s]+$/.test(value) : /^[\dA-Za-z.\-/\s]+$/.test(value);
}

/** The type of a normalised document by its shape (11 digits: CPF; 14 characters of a CNPJ: CNPJ), or null. */
export function documentTypeOf(value: string): DocumentType | null {
  if (CPF_PATTERN.test(value)) return 'cpf';
  if (CNPJ_PATTERN.test(value)) return 'cnpj';
  return null;
}

/**
 * The one mask of each document type, for the API, pages and logs: enough to recognise a
 * document, not to recover it (***.444.777-** · **.222.333/0001-** · **.ABC.345/01DE-**).
 */
export function maskDocument(type: DocumentType, value: string): string {
  // Refuse to mask what is not a document rather than leak it in an unexpected shape.
  if (!(type === 'cpf' ? CPF_PATTERN : CNPJ_PATTERN).test(value)) throw new Error(`maskDocument expects a normalised ${type}.`);
  return type === 'cpf' ? `***.${value.slice(3, 6)}.${value.slice(6, 9)}-**` : `**.${value.slice(2, 5)}.${value.slice(5, 8)}/${value.slice(8, 12)}-**`;
}

/** The mask of a document whose type is known only by its shape; '—' for anything else. */
export function maskAnyDocument(value: string): string {
  const type = documentTypeOf(value);
  return type ? maskDocument(type, value) : '—';
}
