import { stringify } from 'csv-stringify/sync';
import { decimalOf } from '../pix/money.js';
import type { MerchantMovement } from '../ledger/repository.js';
import { saoPauloIso } from '../platform/saoPauloDay.js';
import type { ExportedRow } from '../transactions/repository.js';
import { SETTLED_STATUSES } from '../transactions/states.js';

/**
 * Text a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading quote
 * mark: an externalRef or a payer's name is someone else's text (OWASP "CSV injection").
 */
function inert(text: string | null | undefined): string {
  if (!text) return '';
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

const CSV_COLUMNS = [
  'transactionId',
  'type',
  'status',
  'amountCents',
  'feeCents',
  'netCents',
  'amount',
  'fee',
  'net',
  'externalRef',
  'endToEndId',
  'counterpartName',
  'counterpartDocument',
  'createdAt',
  'createdAtUtc',
  'paidAt',
  'paidAtUtc',
] as const;

/** The same columns for Excel in Portuguese (the semicolon variant): named in Portuguese. */
const EXCEL_COLUMNS: Record<(typeof CSV_COLUMNS)[number], string> = {
  transactionId: 'ID da transação',
  type: 'Tipo',
  status: 'Status',
  amountCents: 'Valor (centavos)',
  feeCents: 'Tarifa (centavos)',
  netCents: 'Líquido (centavos)',
  amount: 'Valor (R$)',
  fee: 'Tarifa (R$)',
  net: 'Líquido (R$)',
  externalRef: 'Referência externa',
  endToEndId: 'EndToEndId',
  counterpartName: 'Nome da contraparte',
  counterpartDocument: 'Documento da contraparte',
  createdAt: 'Criada em',
  createdAtUtc: 'Criada em (UTC)',
  paidAt: 'Paga em',
  paidAtUtc: 'Paga em (UTC)',
};

/**
 * `comma`: RFC 4180 for programs, the API's names and a decimal point. `semicolon`: for Excel in
 * Portuguese, which splits on `;` and reads `1234,50` as a number: Portuguese names, decimal comma.
 */
export type CsvDelimiter = 'comma' | 'semicolon';

const csvOptions = (delimiter: CsvDelimiter) => ({ delimiter: delimiter === 'semicolon' ? ';' : ',', record_delimiter: 'windows' as const });

/** Reais with two decimals: `1234.50`, or `1234,50` for Excel in Portuguese. */
const reais = (cents: number, delimiter: CsvDelimiter): string => (delimiter === 'semicolon' ? decimalOf(cents).replace('.', ',') : decimalOf(cents));

/** The CSV's first bytes: the UTF-8 byte order mark (spreadsheets then read the accents right) and the header row. */
export function csvHeader(delimiter: CsvDelimiter): string {
  const names = delimiter === 'semicolon' ? CSV_COLUMNS.map((column) => EXCEL_COLUMNS[column]) : [...CSV_COLUMNS];
  return `\uFEFF${stringify([names], csvOptions(delimiter))}`;
}

/** Rows of the CSV (RFC 4180: CRLF, quotes doubled), one per transaction, as the list shows it. */
export function csvRows(rows: readonly ExportedRow[], delimiter: CsvDelimiter): string {
  return stringify(
    rows.map((row) => {
      // As the list: the PIX settlement fields only once the transaction is settled.
      const settled = SETTLED_STATUSES.has(row.status);
      return [
        row.id,
        row.type,
        row.status,
        row.amountCents,
        row.feeCents,
        row.netCents,
        reais(row.amountCents, delimiter),
        reais(row.feeCents, delimiter),
        reais(row.netCents, delimiter),
        inert(row.externalRef),
        (settled && row.endToEndId) || '',
        settled ? inert(row.counterpartName) : '',
        (settled && row.counterpartDocument) || '',
        saoPauloIso(row.createdAt),
        row.createdAt.toISOString(),
        row.paidAt ? saoPauloIso(row.paidAt) : '',
        row.paidAt ? row.paidAt.toISOString() : '',
      ];
    }),
    csvOptions(delimiter),
  );
}

/** OFX's date-time: local time with its offset and zone name, 20261125213000.000[-3:BRT]. */
function ofxTime(at: Date): string {
  return `${saoPauloIso(at).slice(0, 23).replace(/[-T:]/g, '')}[-3:BRT]`;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (text: string) => text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character] ?? character);

/** The names accounting tools show for the ledger's kinds of movement (OFX NAME: at most 32 characters). */
const MOVEMENT_NAMES: Record<string, string> = {
  charge_paid: 'PIX recebido',
  withdrawal_debit: 'Saque PIX',
  withdrawal_reversal: 'Saque PIX estornado',
  withdrawal_returned: 'Saque PIX devolvido',
  withdrawal_late_debit: 'Saque PIX debitado após estorno',
  refund_reserve: 'Devolução de PIX',
  refund_reversal: 'Devolução de PIX não realizada',
  refund_late_debit: 'Devolução debitada após estorno',
  chargeback: 'Devolução MED',
  chargeback_reversal: 'Devolução MED não realizada',
  chargeback_late_debit: 'Devolução MED debitada',
  cautionary_return: 'PIX retido devolvido pelo PSP',
  adjustment: 'Ajuste',
};
const movementName = (kind: string) => (MOVEMENT_NAMES[kind] ?? kind.replaceAll('_', ' ')).slice(0, 32);

/** OFX 2.2 (XML): the account's identification in the statement (ACCTID: at most 22 characters). */
export type OfxStatement = { accountId: string; from: Date; to: Date; generatedAt: Date };

export function ofxHeader(statement: OfxStatement): string {
  const status = '<STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>';
  return [
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
    '<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>',
    '<OFX>',
    `<SIGNONMSGSRSV1><SONRS>${status}<DTSERVER>${ofxTime(statement.generatedAt)}</DTSERVER><LANGUAGE>POR</LANGUAGE></SONRS></SIGNONMSGSRSV1>`,
    `<BANKMSGSRSV1><STMTTRNRS><TRNUID>0</TRNUID>${status}<STMTRS><CURDEF>BRL</CURDEF>`,
    `<BANKACCTFROM><BANKID>PIXGW</BANKID><ACCTID>${ofxAccountId(statement.accountId)}</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>`,
    `<BANKTRANLIST><DTSTART>${ofxTime(statement.from)}</DTSTART><DTEND>${ofxTime(statement.to)}</DTEND>`,
    '',
  ].join('\n');
}

/** One STMTTRN per movement of the merchant book: what moved the balance, net of its fee. */
export function ofxMovements(movements: readonly MerchantMovement[]): string {
  return movements
    .map((movement) => {
      const memo = [
        movement.transactionId ? `Transação ${movement.transactionId}` : null,
        movement.feeCents ? `tarifa ${decimalOf(movement.feeCents)}` : null,
        movement.memo,
      ]
        .filter(Boolean)
        .join('; ');
      return (
        `<STMTTRN><TRNTYPE>${movement.amountCents >= 0 ? 'CREDIT' : 'DEBIT'}</TRNTYPE><DTPOSTED>${ofxTime(movement.at)}</DTPOSTED>` +
        `<TRNAMT>${decimalOf(movement.amountCents)}</TRNAMT><FITID>${movement.movementId}</FITID><NAME>${xml(movementName(movement.kind))}</NAME>` +
        (memo ? `<MEMO>${xml(memo.slice(0, 255))}</MEMO>` : '') +
        '</STMTTRN>\n'
      );
    })
    .join('');
}

/** The end of the statement: the balance at the period's end. */
export function ofxFooter(statement: OfxStatement, balanceCents: number): string {
  return (
    `</BANKTRANLIST><LEDGERBAL><BALAMT>${decimalOf(balanceCents)}</BALAMT><DTASOF>${ofxTime(statement.to)}</DTASOF></LEDGERBAL>` +
    '</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n'
  );
}

/** ACCTID (22 characters at most): the last 22 hexadecimal digits of the account id, its random part. */
const ofxAccountId = (accountId: string): string => accountId.replaceAll('-', '').slice(-22);
