import { documentTypeOf, maskAnyDocument, normalizeDocument } from '../pix/documents.js';

/** Fields whose value is a credential: never written to the audit log. */
const SECRET_FIELDS = new Set(['apiKey', 'secret', 'inviteUrl', 'token', 'password', 'previousSecret']);
/** Fields holding a CPF or CNPJ (alone, or as `{ number }` in a document object). */
const DOCUMENT_FIELDS = new Set(['document', 'cpf', 'cnpj', 'number', 'documentNumber']);

/** A CPF or CNPJ as the API masks it (one mask per type); anything else holding a digit, '[masked]'. */
function maskDocumentText(text: string): string {
  const document = normalizeDocument(text);
  if (documentTypeOf(document)) return maskAnyDocument(document);
  return /\d/.test(text) ? '[masked]' : text;
}

/**
 * A copy of a value fit for the audit log: documents masked wherever they are (a document field,
 * or a pixKey of type cpf/cnpj), credentials redacted. DESIGN.md §11: "documents masked".
 */
export function maskForAudit(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskForAudit);
  if (typeof value !== 'object' || value === null) return value;
  const documentKey = Reflect.get(value, 'pixKeyType') === 'cpf' || Reflect.get(value, 'pixKeyType') === 'cnpj';
  // A fraud mark's `value` (DESIGN.md §19): a document, or a key whose type is cpf/cnpj or not known yet (the request's body).
  const markKeyType: unknown = Reflect.get(value, 'keyType');
  const markedDocument =
    Reflect.get(value, 'kind') === 'document' ||
    (Reflect.get(value, 'kind') === 'key' && (markKeyType === undefined || markKeyType === 'cpf' || markKeyType === 'cnpj'));
  const masked: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (SECRET_FIELDS.has(key)) masked[key] = '[redacted]';
    else if (typeof field === 'string' && (DOCUMENT_FIELDS.has(key) || (key === 'pixKey' && documentKey) || (key === 'value' && markedDocument)))
      masked[key] = maskDocumentText(field);
    else masked[key] = maskForAudit(field);
  }
  return masked;
}
