import { crc16CcittFalse } from './crc16.js';

const PIX_GUI = 'br.gov.bcb.pix';
// Manual de Padrões para Iniciação do Pix: the location (26-25) holds at most 77 characters.
const MAX_LOCATION_LENGTH = 77;
const MAX_MERCHANT_NAME_LENGTH = 25;
const MAX_MERCHANT_CITY_LENGTH = 15;

/**
 * Fields 59/60 must be plain ASCII of bounded length; payer apps render them as-is, so accents
 * are folded (São → Sao) instead of dropped, and anything else outside 0x20–0x7E is removed.
 */
export function toBrCodeText(value: string, maxLength: number): string {
  return value
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/\s+/gu, ' ')
    .replace(/[^\x20-\x7E]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, maxLength)
    .trim();
}

// ID(2) + length(2) + value; all values are ASCII here, so characters equal bytes.
function field(id: string, value: string): string {
  if (value.length > 99) throw new Error(`BR Code field ${id} exceeds 99 characters.`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * Dynamic BR Code: the payer's app fetches the charge (amount included) from the location,
 * so no field 54 is written; 01=12 marks the code as single-use.
 */
export function buildDynamicBrCode(input: { locationUrl: string; merchantName: string; merchantCity: string }): string {
  const { locationUrl } = input;
  // The manual requires the location without scheme: apps always prepend https://.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(locationUrl)) {
    throw new Error('BR Code location must not include a scheme.');
  }
  if (!/^[\x21-\x7E]+$/.test(locationUrl) || locationUrl.length > MAX_LOCATION_LENGTH) {
    throw new Error(`BR Code location must be 1 to ${MAX_LOCATION_LENGTH} printable ASCII characters.`);
  }
  const name = toBrCodeText(input.merchantName, MAX_MERCHANT_NAME_LENGTH) || 'NAO INFORMADO';
  const city = toBrCodeText(input.merchantCity, MAX_MERCHANT_CITY_LENGTH) || 'BRASIL';
  const withoutCrc =
    field('00', '01') +
    field('01', '12') +
    field('26', field('00', PIX_GUI) + field('25', locationUrl)) +
    field('52', '0000') +
    field('53', '986') +
    field('58', 'BR') +
    field('59', name) +
    field('60', city) +
    field('62', field('05', '***')) +
    '6304';
  return withoutCrc + crc16CcittFalse(withoutCrc);
}

/** A static BR Code's txid (62-05): 1 to 25 letters and digits, or `***` for none (Manual de Padrões). */
export const STATIC_TXID_PATTERN = /^[a-zA-Z0-9]{1,25}$/;
/** What the payer's app shows beside the key (26-02): the template's 99 characters less the GUI and a 36-character (EVP) key. */
export const MAX_STATIC_DESCRIPTION_LENGTH = 37;

/**
 * Static BR Code: a key the payer's app pays directly, as often as it is scanned (01 absent: reusable),
 * with an optional fixed amount (54), description (26-02) and txid (62-05) that names what is paid.
 */
export function buildStaticBrCode(input: {
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  amountCents?: number | undefined;
  description?: string | undefined;
  txid?: string | undefined;
}): string {
  // A longer key (an e-mail) leaves less room in template 26: the description is cut to fit.
  const room = Math.max(0, Math.min(MAX_STATIC_DESCRIPTION_LENGTH, 99 - field('00', PIX_GUI).length - field('01', input.pixKey).length - 4));
  const description = input.description && room > 0 ? toBrCodeText(input.description, room) : '';
  if (input.txid !== undefined && !STATIC_TXID_PATTERN.test(input.txid)) throw new Error('BR Code txid must be 1 to 25 letters and digits.');
  const account = field('00', PIX_GUI) + field('01', input.pixKey) + (description ? field('02', description) : '');
  const amount =
    input.amountCents === undefined ? '' : field('54', `${Math.floor(input.amountCents / 100)}.${String(input.amountCents % 100).padStart(2, '0')}`);
  const withoutCrc =
    field('00', '01') +
    field('26', account) +
    field('52', '0000') +
    field('53', '986') +
    amount +
    field('58', 'BR') +
    field('59', toBrCodeText(input.merchantName, MAX_MERCHANT_NAME_LENGTH) || 'NAO INFORMADO') +
    field('60', toBrCodeText(input.merchantCity, MAX_MERCHANT_CITY_LENGTH) || 'BRASIL') +
    field('62', field('05', input.txid ?? '***')) +
    '6304';
  return withoutCrc + crc16CcittFalse(withoutCrc);
}

/** Splits one TLV level (call again on a template's value for its sub-fields). */
export function parseBrCodeFields(payload: string): Map<string, string> {
  if (payload.length === 0) throw new Error('Empty BR Code.');
  const fields = new Map<string, string>();
  let position = 0;
  while (position < payload.length) {
    const header = payload.slice(position, position + 4);
    if (!/^\d{4}$/.test(header)) throw new Error(`Malformed BR Code field at ${position}.`);
    const id = header.slice(0, 2);
    const end = position + 4 + Number(header.slice(2));
    if (end > payload.length) throw new Error(`BR Code field ${id} overruns the payload.`);
    if (fields.has(id)) throw new Error(`Duplicate BR Code field ${id}.`);
    fields.set(id, payload.slice(position + 4, end));
    position = end;
  }
  return fields;
}
