import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { messages } from '../../src/messages.js';

/**
 * docs/errors.md lists exactly the messages of src/messages.ts: every catalog entry is documented
 * and every documented message is a catalog entry.
 */

type Catalog = typeof messages;
type FunctionKey = { [K in keyof Catalog]: Catalog[K] extends string ? never : K }[keyof Catalog];
type Arguments<K extends FunctionKey> = Catalog[K] extends (...args: infer A) => string ? A : never;

/**
 * Sample arguments for each message built by a function: one call per variant when the text
 * branches on a parameter (cpf / cnpj). Where the doc shows a value rather than a placeholder
 * (the 6-URL ceiling, the operator's CPF/CNPJ fields), the sample is the value the code passes.
 */
const SAMPLES: { [K in FunctionKey]?: Arguments<K>[] } = {
  documentTypeInvalid: [['rg']],
  transactionStatusInvalid: [['pago']],
  exportRangeTooLarge: [[31]],
  statementNotClosed: [['2026-11-25']],
  statementBeforeAccount: [['2026-01-01']],
  documentNumberLength: [
    ['cpf', 10],
    ['cnpj', 13],
  ],
  amountBelowMinimum: [[123_456]],
  amountAboveMaximum: [[10_000_000]],
  providerCapExceeded: [[1_500_000]],
  withdrawalAboveMaximum: [[5_000_000]],
  pixKeyTypeNotAllowed: [['email']],
  recipientDeactivated: [['SVC']],
  withdrawalDailyCap: [[2_000_000]],
  withdrawalMonthlyCap: [[123_456_789]],
  withdrawalConfirmationInterrupted: [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']],
  withdrawalWrongStatus: [['paid']],
  transactionTypeInvalid: [['refund']],
  recipientDocumentTypeInvalid: [['rg']],
  recipientDocumentLength: [
    ['cpf', 12],
    ['cnpj', 11],
  ],
  recipientDocumentCheckDigits: [['cpf'], ['cnpj']],
  recipientDocumentCharacters: [['cpf'], ['cnpj']],
  pixKeyTypeInvalid: [['iban']],
  recipientLimitReached: [[10]],
  recipientPendingNote: [['SVC']],
  recipientActiveNote: [['SVC']],
  webhookEventsInvalid: [['transfer.unknown']],
  webhookEndpointLimit: [[6]],
  fieldInvalid: [['limits.pixPerHour']],
  chargeNotPending: [['expired']],
  bodyTooDeep: [[32]],
  migrationsPending: [[['005_states_and_provider.sql']]],
  balanceOutOfRange: [[Number.MAX_SAFE_INTEGER]],
  ipAllowlistInvalid: [['10.0.0.300']],
  cpfInvalid: [['responsible.cpf']],
  cnpjInvalid: [['company.cnpj']],
  chargeNotCancellable: [['paid']],
  qrFormatInvalid: [['jpg']],
  userRoleInvalid: [['admin']],
  operatorRoleInvalid: [['owner']],
  wholeNumberInvalid: [['limits.withdrawMaxCents']],
  roleNotAllowed: [['viewer']],
  refundChargeNotPaid: [['pending']],
  refundAboveRemainder: [[123_456]],
  refundNotProcessing: [['refunded']],
  infractionNoDefense: [['in_defense']],
  infractionStatusInvalid: [['closed']],
  infractionWrongStatus: [['rejected']],
  infractionAboveRemainder: [[100_000]],
  chargebackAboveCase: [[50_000]],
  routingProviderUnknown: [['charges', 'psp-x']],
  routingProviderRepeated: [['withdrawals', 'psp-a']],
  routingAccountUnknown: [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']],
  routingListEmpty: [['charges']],
  routingWeightInvalid: [['charges[].weight']],
  routingAccountWithoutWeights: [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']],
  recurrenceFrequencyInvalid: [['daily']],
  recurrenceRetryPolicyInvalid: [['always']],
  recurrenceNotCancellable: [['refused']],
  recurrenceNotAwaitingAuthorization: [['authorized']],
  recurrenceCycleNotPending: [['paid']],
  recurrenceDebitNotDue: [['2027-03-10']],
  recurrenceCycleThroughRecurrence: [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 3]],
  recurrenceCycleSandbox: [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 3]],
  recurrenceNotActive: [['cancelled']],
  recurrenceCycleSkippedNow: [[4]],
  sandboxPaidOnOutOfRange: [['2027-08-02', '2027-08-18']],
  recurrenceAmountAboveCeiling: [[15_000]],
  recurrenceAmountNotOpen: [['cancelled']],
  cautionaryBlockThroughHold: [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']],
};

/** Each catalog entry as text: a fixed message, or one text per sample call of a function. */
type CatalogText = { key: string; text: string; fixed: boolean };
const catalogTexts = Object.entries(messages).flatMap(([key, entry]): CatalogText[] => {
  if (typeof entry === 'string') return [{ key, text: entry, fixed: true }];
  const samples: readonly unknown[][] = SAMPLES[key as FunctionKey] ?? [];
  return samples.map((args) => ({ key, text: (entry as (...args: unknown[]) => string)(...args), fixed: false }));
});

/**
 * The messages of the doc's tables (header `| status | message | …`): in each row, the backticked
 * texts at the start of the message cell, separated by ` / `; whatever follows is a note.
 */
function documentedMessages(markdown: string): { section: string; status: string; message: string }[] {
  const found: { section: string; status: string; message: string }[] = [];
  let section = '';
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('#')) section = line.replace(/^#+\s*/, '');
    if (/^\|\s*status\s*\|\s*message\s*\|/.test(line)) {
      inTable = true;
      continue;
    }
    if (!inTable || /^\|[\s|:-]+\|$/.test(line)) continue;
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const [status = '', cell = ''] = line
      .split('|')
      .slice(1)
      .map((text) => text.trim());
    const lead = /^`[^`]+`(?:\s*\/\s*`[^`]+`)*/.exec(cell)?.[0] ?? '';
    const texts = [...lead.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
    // A row without a backticked message would be silently skipped: report it as an empty message.
    if (texts.length === 0) texts.push('');
    for (const message of texts) found.push({ section, status, message });
  }
  return found;
}

/** A formatted amount, as formatBrl writes it: `R$ 1.234,56`. */
const AMOUNT = String.raw`R\$ \d{1,3}(?:\.\d{3})*,\d{2}`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A doc message as a pattern: `R$ X,YY` stands for an amount, `<anything>` for any text. */
function docPattern(message: string): RegExp {
  const parts = message.split(/(R\$ X,YY|<[^<>]+>)/);
  const source = parts.map((part, index) => (index % 2 === 0 ? escapeRegExp(part) : part === 'R$ X,YY' ? AMOUNT : '.+')).join('');
  return new RegExp(`^${source}$`);
}

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = documentedMessages(doc);
const patterns = documented.map(({ message }) => docPattern(message));

describe('docs/errors.md and src/messages.ts', () => {
  it('finds the tables of the doc', () => {
    expect(documented.length).toBeGreaterThan(100);
  });

  it('has a status and a backticked message in every table row', () => {
    const malformed = documented.filter(({ status, message }) => !/^\d{3}$/.test(status) || message === '');
    expect(malformed).toEqual([]);
  });

  it('has sample arguments for every message built by a function', () => {
    const functions = Object.entries(messages).filter(([, entry]) => typeof entry === 'function');
    const withoutSamples = functions.filter(([key]) => (SAMPLES[key as FunctionKey]?.length ?? 0) === 0).map(([key]) => key);
    expect(withoutSamples).toEqual([]);
    expect(Object.keys(SAMPLES).sort()).toEqual(functions.map(([key]) => key).sort());
  });

  it('reads placeholders as any text and R$ X,YY as an amount', () => {
    expect(docPattern("Recebido: '<value>'.").test("Recebido: 'rg'.")).toBe(true);
    expect(docPattern('Valor (R$ X,YY).').test('Valor (R$ 1.234,56).')).toBe(true);
    expect(docPattern('Valor (R$ X,YY).').test('Valor (R$ 1234,56).')).toBe(false);
    expect(docPattern('a.b (c)').test('aXb (c)')).toBe(false);
  });

  it('documents every fixed message word for word', () => {
    const messagesInDoc = new Set(documented.map(({ message }) => message));
    const undocumented = catalogTexts.filter(({ fixed, text }) => fixed && !messagesInDoc.has(text)).map(({ key, text }) => `${key}: ${text}`);
    expect(undocumented).toEqual([]);
  });

  it('documents every message built by a function, each variant included', () => {
    const undocumented = catalogTexts
      .filter(({ fixed, text }) => !fixed && !patterns.some((pattern) => pattern.test(text)))
      .map(({ key, text }) => `${key}: ${text}`);
    expect(undocumented).toEqual([]);
  });

  it('documents no message that the catalog does not have', () => {
    const stale = documented
      .filter(({ message }) => message !== '' && !catalogTexts.some(({ text }) => docPattern(message).test(text)))
      .map(({ section, status, message }) => `${section} ${status}: ${message}`);
    expect(stale).toEqual([]);
  });
});
