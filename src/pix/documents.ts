export type DocumentType = 'cpf' | 'cnpj';

/** Removes the usual punctuation only; letters stay, so they fail validation visibly. */
export function stripDocumentFormatting(value: string): string {
  return value.replace(/[.\-/\s]/g, '');
}

// Mod-11 check digit shared by CPF (weights 2..11) and CNPJ (weights cycling 2..9), weights
// counted from the right. Character value = code − 48, as Receita defines it.
function mod11CheckDigit(body: string, maxWeight: number): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const weight = ((body.length - 1 - i) % (maxWeight - 1)) + 2;
    sum += (body.charCodeAt(i) - 48) * weight;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function hasValidCheckDigits(digits: string, length: number, maxWeight: number): boolean {
  // Repeated digits (000.000.000-00 …) pass the arithmetic but are never issued.
  if (digits.length !== length || !/^\d+$/.test(digits) || /^(\d)\1*$/.test(digits)) return false;
  const body = digits.slice(0, -2);
  const first = mod11CheckDigit(body, maxWeight);
  const second = mod11CheckDigit(`${body}${first}`, maxWeight);
  return digits.endsWith(`${first}${second}`);
}

export function isValidCpf(digits: string): boolean {
  return hasValidCheckDigits(digits, 11, 11);
}

// Numeric only; alphanumeric CNPJs (issued from July 2026, see vectors.md) are not accepted yet.
export function isValidCnpj(digits: string): boolean {
  return hasValidCheckDigits(digits, 14, 9);
}

/** Masks for logs and API output: enough to recognise a document, not to recover it. */
export function maskDocument(type: DocumentType, digits: string): string {
  const length = type === 'cpf' ? 11 : 14;
  // Refuse to mask what is not a document rather than leak it in an unexpected shape.
  if (digits.length !== length || !/^\d+$/.test(digits)) {
    throw new Error(`maskDocument expects ${length} digits for ${type}.`);
  }
  return type === 'cpf' ? `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**` : `**.${digits.slice(2, 5)}.${digits.slice(5, 8)}/${digits.slice(8, 12)}-**`;
}
