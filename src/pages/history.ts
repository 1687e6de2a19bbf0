import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { documentTypeOf, normalizeDocument } from '../pix/documents.js';
import { transactionIdOfTxid } from '../pix/txid.js';
import { isId } from '../platform/ids.js';
import type { TransactionStatus, TransactionType } from '../platform/schema.js';
import type { HistoryQuery } from '../transactions/service.js';
import { parseListFilter } from './filters.js';
import { field } from './forms.js';

/** Rows of one history page (DESIGN.md §15: nothing loads more than a page). */
export const HISTORY_PAGE_ROWS = 50;

/** Every status of either type, in the order a person follows a payment. */
export const HISTORY_STATUSES: readonly TransactionStatus[] = [
  'pending',
  'pending_approval',
  'processing',
  'failed_unknown',
  'paid',
  'expired',
  'cancelled',
  'failed',
  'refunded',
  'partially_refunded',
];

/**
 * A history page's filters as typed, each under its name in the address (`?de=&ate=&tipo=&status=&busca=&conta=&apos=`):
 * a filtered page and each of its pages are links, so the back button and a shared link work.
 * `account` is the back-office's only; the document is never here (it is posted, never in an address).
 */
export type HistoryForm = { from: string; to: string; type: string; status: string; search: string; account: string; after: string };

/** Each filter and its name in the address, in the address's order. */
const PARAMETERS = [
  ['from', 'de'],
  ['to', 'ate'],
  ['type', 'tipo'],
  ['status', 'status'],
  ['search', 'busca'],
  ['account', 'conta'],
  ['after', 'apos'],
] as const satisfies readonly (readonly [keyof HistoryForm, string])[];

/** The filters of a query string or a posted form. */
export function historyFormOf(source: unknown): HistoryForm {
  const read = (name: string) => field(source, name).trim();
  return { from: read('de'), to: read('ate'), type: read('tipo'), status: read('status'), search: read('busca'), account: read('conta'), after: read('apos') };
}

/** The form's fields as name/value pairs, the empty ones left out (hidden fields of a posted page, a link's query). */
export function historyFields(form: HistoryForm): [string, string][] {
  return PARAMETERS.filter(([name]) => form[name] !== '').map(([name, parameter]) => [parameter, form[name]]);
}

/** The address of a history page with these filters (and cursor). */
export function historyHref(path: string, form: HistoryForm): string {
  const query = new URLSearchParams(historyFields(form)).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * The canonical address of a GET history page when the request's is not it (a form sends its empty
 * fields, `?de=&ate=&…`): the page redirects there, so every address of a page reads the same.
 */
export function canonicalHistoryHref(path: string, url: string, form: HistoryForm): string | undefined {
  const canonical = historyHref(path, form);
  const asked = url.indexOf('?') === -1 ? path : `${path}${url.slice(url.indexOf('?'))}`;
  return asked === canonical ? undefined : canonical;
}

/** A download's Content-Disposition: the file's name kept to letters, digits, dots, hyphens and underscores (nothing to escape). */
export const attachment = (filename: string) => `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`;

/** Whether any filter narrows the list (the cursor is not a filter). */
export const isFiltered = (form: HistoryForm) => [form.from, form.to, form.type, form.status, form.search, form.account].some((value) => value !== '');

/** What a history page reads: the service's query, and where the search names one transaction (a txid, back-office), that id. */
export type HistoryRead = { query: Omit<HistoryQuery, 'limit'>; accountId?: string | undefined; transactionId?: string | undefined };

/**
 * The filters checked, as the service takes them: a bad value is a 400 with its catalog message,
 * never an empty list. Days are America/Sao_Paulo days, both ends included. The search is an
 * endToEndId when it is 32 letters and digits, else an externalRef; in the back-office (`operator`)
 * a txid (the transactionId's 32 hex digits) comes first, and `document` (digits, posted) narrows
 * to a counterpart's CPF or CNPJ.
 */
export function parseHistoryForm(form: HistoryForm, options: { operator: boolean; document?: string | undefined }): HistoryRead {
  const type = typeOf(form.type);
  const { status, createdFrom, createdTo } = parseListFilter(form, HISTORY_STATUSES);
  if (createdFrom && createdTo && createdFrom >= createdTo) throw new InvalidRequestError(messages.filterRangeInvalid);
  if (form.after !== '' && !isId(form.after)) throw new InvalidRequestError(messages.startingAfterInvalid);
  if (options.operator && form.account !== '' && !isId(form.account)) throw new InvalidRequestError(messages.accountIdInvalid);
  const search = searchOf(form.search, options.operator);
  const document = options.document === undefined ? undefined : documentOf(options.document);
  return {
    query: {
      type,
      status,
      createdFrom,
      createdTo,
      externalRef: search.externalRef,
      endToEndId: search.endToEndId,
      document,
      startingAfter: form.after === '' ? undefined : form.after,
    },
    accountId: options.operator && form.account !== '' ? form.account : undefined,
    transactionId: search.transactionId,
  };
}

function typeOf(text: string): TransactionType | undefined {
  if (text === '') return undefined;
  if (text === 'pix_in' || text === 'withdrawal') return text;
  throw new InvalidRequestError(messages.filterTypeInvalid);
}

function searchOf(text: string, operator: boolean): { externalRef?: string; endToEndId?: string; transactionId?: string } {
  if (text === '') return {};
  const transactionId = operator ? transactionIdOfTxid(text) : undefined;
  if (transactionId) return { transactionId };
  if (/^[a-zA-Z0-9]{32}$/.test(text)) return { endToEndId: text };
  if (text.length > 100) throw new InvalidRequestError(messages.externalRefInvalid);
  return { externalRef: text };
}

/** A CPF or CNPJ as typed (punctuation and case allowed), normalised as stored. */
function documentOf(text: string): string {
  const document = normalizeDocument(text.trim());
  if (documentTypeOf(document) === null) throw new InvalidRequestError(messages.filterDocumentInvalid);
  return document;
}
