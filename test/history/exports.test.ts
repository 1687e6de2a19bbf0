import { parse } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fund, paidCharge, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { endToEndIdOf, insertTransactions, seeded } from '../helpers/history.js';

// DESIGN.md §15: GET /v1/transactions/export?format=csv|ofx over a period, streamed.

const DAY_MS = 86_400_000;
const COLUMNS = [
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
];

/** The Excel variant's header row: the same columns, named in Portuguese. */
const EXCEL_COLUMNS = [
  'ID da transação',
  'Tipo',
  'Status',
  'Valor (centavos)',
  'Tarifa (centavos)',
  'Líquido (centavos)',
  'Valor (R$)',
  'Tarifa (R$)',
  'Líquido (R$)',
  'Referência externa',
  'EndToEndId',
  'Nome da contraparte',
  'Documento da contraparte',
  'Criada em',
  'Criada em (UTC)',
  'Paga em',
  'Paga em (UTC)',
];

let gateway: Gateway;
let merchant: Merchant;
let other: Merchant;
let start: number;
let end: number;

beforeAll(async () => {
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
  other = await gateway.createMerchant();
  start = gateway.clock.now().getTime() - 20 * DAY_MS;
  // 2,600 rows over 20 days (three chunks of the export's 1,000), some with text a spreadsheet would run as a formula.
  await insertTransactions(
    gateway,
    Array.from({ length: 2_600 }, (_, i) => {
      const createdAt = new Date(start + i * 600_000);
      const paid = i % 2 === 0;
      return seeded(merchant.accountId, {
        createdAt,
        type: i % 5 === 0 ? 'withdrawal' : 'pix_in',
        status: paid ? 'paid' : i % 5 === 0 ? 'failed' : 'pending',
        amountCents: 100 + i,
        feeCents: i % 3,
        externalRef: i % 10 === 1 ? (i % 20 === 1 ? `=HYPERLINK("x";"${i}")` : `pedido;"${i}",ç`) : null,
        endToEndId: paid ? endToEndIdOf(createdAt, i) : null,
        payerDocument: paid ? '52998224725' : null,
      });
    }),
  );
  await insertTransactions(gateway, [seeded(other.accountId, { createdAt: new Date(start + DAY_MS) })]);
  // Real movements for the OFX: money in, a charge paid, a withdrawal with its fee.
  await fund(gateway, merchant, 40_000);
  await paidCharge(gateway, merchant);
  expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 7_000 }))).status).toBe(201);
  end = gateway.clock.now().getTime() + 1;
});
afterAll(() => gateway.close());

const exportUrl = (query: Record<string, string | number>, of: Merchant = merchant) => ({
  url: `${gateway.url}/v1/transactions/export?${new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)])).toString()}`,
  headers: { authorization: `Bearer ${of.apiKey}` },
});
const download = async (query: Record<string, string | number>, of: Merchant = merchant) => {
  const { url, headers } = exportUrl(query, of);
  const response = await fetch(url, { headers });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
};

/** Every row of a period through the list (pages of 100): what the CSV must hold, in the same order. */
type Party = { name: string; document: string };
type ListedRow = {
  transactionId: string;
  type: 'pix_in' | 'withdrawal';
  status: string;
  amountCents: number;
  feeCents: number;
  netCents: number;
  externalRef: string | null;
  endToEndId?: string;
  payer?: Party;
  beneficiary?: Party;
  createdAt: number;
  paidAt: number | null;
};

async function listed(query: Record<string, string | number>): Promise<ListedRow[]> {
  const rows: ListedRow[] = [];
  for (let startingAfter: string | undefined; ;) {
    const params = new URLSearchParams(
      Object.entries({ ...query, limit: 100, ...(startingAfter ? { startingAfter } : {}) }).map(([n, v]): [string, string] => [n, String(v)]),
    );
    const page = await gateway.call('GET', `/v1/transactions?${params.toString()}`, { key: merchant.apiKey });
    expect(page.status).toBe(200);
    rows.push(...page.body.transactions);
    if (!page.body.hasMore) return rows;
    startingAfter = page.body.transactions.at(-1)!.transactionId;
  }
}

const reais = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

describe('CSV', () => {
  it('every transaction of the period, as the list shows it, in the same order; parsed back by a CSV library', async () => {
    const { response, bytes } = await download({ format: 'csv', createdFrom: start, createdTo: end });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="transacoes-\d{4}-\d{2}-\d{2}-a-\d{4}-\d{2}-\d{2}\.csv"$/);
    // UTF-8 with its byte order mark, CRLF line ends (RFC 4180).
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.split('\r\n')[0]).toBe(`\uFEFF${COLUMNS.join(',')}`);
    expect(text.endsWith('\r\n')).toBe(true);

    const records: Record<string, string>[] = parse(bytes, { bom: true, columns: true, record_delimiter: '\r\n' });
    const expected = await listed({ createdFrom: start, createdTo: end });
    expect(records.length).toBe(expected.length);
    expect(records.length).toBe(2_600 + 2); // the seeded rows, the charge and the withdrawal (an adjustment is no transaction)
    records.forEach((record, index) => {
      const row = expected[index];
      if (!row) throw new Error(`row ${index}`);
      const counterpart = row.type === 'pix_in' ? row.payer : row.beneficiary;
      const externalRef = row.externalRef;
      expect(record).toEqual({
        transactionId: row.transactionId,
        type: row.type,
        status: row.status,
        amountCents: String(row.amountCents),
        feeCents: String(row.feeCents),
        netCents: String(row.netCents),
        amount: reais(row.amountCents),
        fee: reais(row.feeCents),
        net: reais(row.netCents),
        // A formula's leading character is neutralised with a quote mark; other text is as given (quotes, separators, accents).
        externalRef: externalRef === null ? '' : externalRef.startsWith('=') ? `'${externalRef}` : externalRef,
        endToEndId: row.endToEndId ?? '',
        counterpartName: counterpart?.name ?? '',
        counterpartDocument: counterpart?.document ?? '',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-03:00$/),
        createdAtUtc: new Date(row.createdAt).toISOString(),
        paidAt: row.paidAt ? expect.stringMatching(/-03:00$/) : '',
        paidAtUtc: row.paidAt ? new Date(row.paidAt).toISOString() : '',
      });
      // The local time is the same instant as the UTC one.
      expect(new Date(record.createdAt ?? '').getTime()).toBe(row.createdAt);
    });
  });

  it('semicolon-separated for Excel in Portuguese: Portuguese headers, reais with a decimal comma, otherwise the same records', async () => {
    const comma = await download({ format: 'csv', createdFrom: start, createdTo: start + 2 * DAY_MS });
    const semicolon = await download({ format: 'csv', delimiter: 'semicolon', createdFrom: start, createdTo: start + 2 * DAY_MS });
    expect(semicolon.bytes.toString('utf8').split('\r\n')[0]).toBe(`\uFEFF${EXCEL_COLUMNS.join(';')}`);
    const excel: string[][] = parse(semicolon.bytes, { bom: true, delimiter: ';' });
    const plain: string[][] = parse(comma.bytes, { bom: true });
    expect(excel.length).toBe(plain.length);
    expect(excel.length).toBeGreaterThan(2);
    const decimals = [COLUMNS.indexOf('amount'), COLUMNS.indexOf('fee'), COLUMNS.indexOf('net')];
    const withComma = (row: string[]) => row.map((value, index) => (decimals.includes(index) ? value.replace('.', ',') : value));
    expect(excel.slice(1)).toEqual(plain.slice(1).map(withComma));
    expect(excel.slice(1).every((row) => decimals.every((index) => /^-?\d+,\d{2}$/.test(row[index] ?? '')))).toBe(true);
  });

  it('type and status narrow it; another account’s rows are never in it', async () => {
    const { bytes } = await download({ format: 'csv', createdFrom: start, createdTo: end, type: 'withdrawal', status: 'failed' });
    const records: Record<string, string>[] = parse(bytes, { bom: true, columns: true });
    expect(records.length).toBe((await listed({ createdFrom: start, createdTo: end, type: 'withdrawal', status: 'failed' })).length);
    expect(records.length).toBeGreaterThan(100);
    expect(records.every((record) => record.type === 'withdrawal' && record.status === 'failed')).toBe(true);

    const theirs: Record<string, string>[] = parse((await download({ format: 'csv', createdFrom: start, createdTo: end }, other)).bytes, {
      bom: true,
      columns: true,
    });
    expect(theirs).toHaveLength(1);
  });

  it('an empty period: the header row alone', async () => {
    const { response, bytes } = await download({ format: 'csv', createdFrom: 1_000, createdTo: 2_000 });
    expect(response.status).toBe(200);
    expect(bytes.toString('utf8')).toBe(`\uFEFF${COLUMNS.join(',')}\r\n`);
  });
});

describe('OFX', () => {
  /** The OFX as a tree that keeps the order of its elements (the OFX 2.2 schema fixes it). */
  const parseOfx = (text: string) =>
    new XMLParser({ preserveOrder: true, ignoreAttributes: false, parseTagValue: false, trimValues: true }).parse(text) as Node[];
  type Node = Record<string, Node[] | string> & { ':@'?: Record<string, string> };
  const nameOf = (node: Node) => Object.keys(node).find((key) => key !== ':@') ?? '';
  const children = (node: Node): Node[] => {
    const value = node[nameOf(node)];
    return Array.isArray(value) ? value : [];
  };
  const textOf = (node: Node): string => {
    const [first] = children(node);
    return typeof first?.['#text'] === 'string' ? first['#text'] : '';
  };
  const child = (node: Node, name: string): Node => {
    const found = children(node).find((candidate) => nameOf(candidate) === name);
    if (!found) throw new Error(`${nameOf(node)} has no ${name}`);
    return found;
  };
  const sequence = (node: Node) => children(node).map(nameOf);
  const OFX_TIME = /^\d{14}\.\d{3}\[-3:BRT\]$/;

  it('OFX 2.2 with its header, sign-on, account and every movement of the balance in the period; the amounts add up to the balance', async () => {
    const { response, bytes } = await download({ format: 'ofx', createdFrom: start, createdTo: end });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ofx');
    expect(response.headers.get('content-disposition')).toMatch(/filename="transacoes-.*\.ofx"$/);
    const text = bytes.toString('utf8');
    const document = parseOfx(text);
    expect(document.map(nameOf)).toEqual(['?xml', '?OFX', 'OFX']);
    expect(document[1]?.[':@']).toEqual({
      '@_OFXHEADER': '200',
      '@_VERSION': '220',
      '@_SECURITY': 'NONE',
      '@_OLDFILEUID': 'NONE',
      '@_NEWFILEUID': 'NONE',
    });
    const ofx = document[2] as Node;
    expect(sequence(ofx)).toEqual(['SIGNONMSGSRSV1', 'BANKMSGSRSV1']);
    const sonrs = child(child(ofx, 'SIGNONMSGSRSV1'), 'SONRS');
    expect(sequence(sonrs)).toEqual(['STATUS', 'DTSERVER', 'LANGUAGE']);
    expect(textOf(child(child(sonrs, 'STATUS'), 'CODE'))).toBe('0');
    expect(textOf(child(sonrs, 'DTSERVER'))).toMatch(OFX_TIME);
    const transactionResponse = child(child(ofx, 'BANKMSGSRSV1'), 'STMTTRNRS');
    expect(sequence(transactionResponse)).toEqual(['TRNUID', 'STATUS', 'STMTRS']);
    const statement = child(transactionResponse, 'STMTRS');
    expect(sequence(statement)).toEqual(['CURDEF', 'BANKACCTFROM', 'BANKTRANLIST', 'LEDGERBAL']);
    expect(textOf(child(statement, 'CURDEF'))).toBe('BRL');
    const account = child(statement, 'BANKACCTFROM');
    expect(sequence(account)).toEqual(['BANKID', 'ACCTID', 'ACCTTYPE']);
    expect(textOf(child(account, 'ACCTID')).length).toBeLessThanOrEqual(22);
    expect(merchant.accountId.replaceAll('-', '').endsWith(textOf(child(account, 'ACCTID')))).toBe(true);

    const list = child(statement, 'BANKTRANLIST');
    const [dtStart, dtEnd, ...entries] = children(list);
    expect([nameOf(dtStart as Node), nameOf(dtEnd as Node)]).toEqual(['DTSTART', 'DTEND']);
    expect(entries.map(nameOf).every((name) => name === 'STMTTRN')).toBe(true);

    const movements = await gateway.database.db
      .selectFrom('ledgerEntries')
      .select(['movementId', 'amountCents', 'kind'])
      .where('accountId', '=', merchant.accountId)
      .where('book', '=', 'merchant')
      .orderBy('id')
      .execute();
    expect(entries).toHaveLength(movements.length);
    entries.forEach((entry, index) => {
      const movement = movements[index];
      const names = sequence(entry);
      expect(names.slice(0, 5)).toEqual(['TRNTYPE', 'DTPOSTED', 'TRNAMT', 'FITID', 'NAME']);
      expect(textOf(child(entry, 'TRNTYPE'))).toBe((movement?.amountCents ?? 0) >= 0 ? 'CREDIT' : 'DEBIT');
      expect(textOf(child(entry, 'DTPOSTED'))).toMatch(OFX_TIME);
      expect(textOf(child(entry, 'TRNAMT'))).toBe(reais(movement?.amountCents ?? 0));
      expect(textOf(child(entry, 'FITID'))).toBe(movement?.movementId);
      expect(textOf(child(entry, 'NAME')).length).toBeLessThanOrEqual(32);
    });
    expect(entries.map((entry) => textOf(child(entry, 'NAME')))).toEqual(['Ajuste', 'PIX recebido', 'Saque PIX']);

    const ledger = child(statement, 'LEDGERBAL');
    expect(sequence(ledger)).toEqual(['BALAMT', 'DTASOF']);
    const { rows } = await sql<{ cents: number }>`SELECT available_cents AS cents FROM balances WHERE account_id = ${merchant.accountId}`.execute(
      gateway.database.db,
    );
    expect(textOf(child(ledger, 'BALAMT'))).toBe(reais(rows[0]?.cents ?? NaN));
  });

  it('a period that ends before the movements: no entries, and the balance then (zero)', async () => {
    const { bytes } = await download({ format: 'ofx', createdFrom: start, createdTo: start + DAY_MS });
    const document = parseOfx(bytes.toString('utf8'));
    const statement = child(child(child(document[2] as Node, 'BANKMSGSRSV1'), 'STMTTRNRS'), 'STMTRS');
    expect(sequence(child(statement, 'BANKTRANLIST'))).toEqual(['DTSTART', 'DTEND']);
    expect(textOf(child(child(statement, 'LEDGERBAL'), 'BALAMT'))).toBe('0.00');
  });
});

describe('refusals: 400 with the catalog message', () => {
  const cases: [string, Record<string, string | number>, string][] = [
    ['no format', { createdFrom: 0, createdTo: 1_000 }, "format deve ser 'csv' ou 'ofx'."],
    ['an unknown format', { format: 'xlsx', createdFrom: 0, createdTo: 1_000 }, "format deve ser 'csv' ou 'ofx'."],
    ['an unknown delimiter', { format: 'csv', delimiter: 'tab', createdFrom: 0, createdTo: 1_000 }, "delimiter deve ser 'comma' ou 'semicolon'."],
    ['no period', { format: 'csv' }, 'createdFrom e createdTo são obrigatórios na exportação.'],
    ['no end', { format: 'ofx', createdFrom: 0 }, 'createdFrom e createdTo são obrigatórios na exportação.'],
    [
      'a start that is not a number',
      { format: 'csv', createdFrom: 'hoje', createdTo: 1_000 },
      'createdFrom deve ser um instante em milissegundos Unix (inteiro ≥ 0).',
    ],
    ['a start after the end', { format: 'csv', createdFrom: 2_000, createdTo: 1_000 }, 'createdFrom deve ser anterior a createdTo.'],
    ['32 days', { format: 'csv', createdFrom: 0, createdTo: 32 * DAY_MS }, 'O período de exportação é de no máximo 31 dias.'],
    ['31 days and a millisecond', { format: 'ofx', createdFrom: 0, createdTo: 31 * DAY_MS + 1 }, 'O período de exportação é de no máximo 31 dias.'],
    [
      'an unknown status',
      { format: 'csv', createdFrom: 0, createdTo: 1_000, status: 'pago' },
      "status deve ser um dos status de transação da documentação. Recebido: 'pago'.",
    ],
  ];
  it.each(cases)('%s', async (_name, query, message) => {
    const { response, bytes } = await download(query);
    expect(response.status).toBe(400);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ error: message });
  });

  it('31 days exactly is accepted', async () => {
    expect((await download({ format: 'csv', createdFrom: 0, createdTo: 31 * DAY_MS })).response.status).toBe(200);
  });

  it('no key: 401', async () => {
    const response = await fetch(`${gateway.url}/v1/transactions/export?format=csv&createdFrom=0&createdTo=1000`);
    expect(response.status).toBe(401);
  });
});
