import { stringify } from 'csv-stringify/sync';
import type { ReconciliationDifferenceRow, ReconciliationRunRow } from '../platform/schema.js';

/** Cents as reais with a dot and two decimals ("1234.56"), exact (integer arithmetic). */
const reais = (cents: number | null): string => (cents === null ? '' : `${Math.trunc(cents / 100)}.${String(Math.abs(cents % 100)).padStart(2, '0')}`);

const COLUMNS = [
  'provedor',
  'periodo_inicio_utc',
  'periodo_fim_utc',
  'linha',
  'movimento',
  'referencia',
  'conta',
  'transacao',
  'valor_razao',
  'valor_psp',
  'status_razao',
  'status_psp',
];

/**
 * A run as an accountant reads it (RFC 4180, UTF-8, header row; amounts in reais with a dot):
 * first the totals in and out by side (`linha` = `total`), then one row per difference
 * (`linha` = its kind: missing_at_psp, missing_in_ledger, amount, status).
 */
export function reconciliationCsv(run: ReconciliationRunRow, differences: ReconciliationDifferenceRow[]): string {
  const period = [run.providerId, run.periodFrom.toISOString(), run.periodTo.toISOString()];
  const totals = [
    [...period, 'total', 'entradas', '', '', '', reais(run.ledgerInCents), reais(run.pspInCents), '', ''],
    [...period, 'total', 'saidas', '', '', '', reais(run.ledgerOutCents), reais(run.pspOutCents), '', ''],
  ];
  const rows = differences.map((difference) => [
    ...period,
    difference.kind,
    difference.movement,
    difference.reference,
    difference.accountId ?? '',
    difference.transactionId ?? '',
    reais(difference.ledgerCents),
    reais(difference.pspCents),
    difference.ledgerStatus ?? '',
    difference.pspStatus ?? '',
  ]);
  return stringify([COLUMNS, ...totals, ...rows], { record_delimiter: '\r\n' });
}
