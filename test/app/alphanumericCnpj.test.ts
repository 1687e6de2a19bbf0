import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { dayAfter, dayOf } from '../../src/platform/saoPauloDay.js';
import { fund, readTransaction, registerRecipient, reviewRecipient, settleWithdrawal, withdraw } from '../helpers/api.js';
import { accountBody, backend, chargeBody, customerWith, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/**
 * Alphanumeric CNPJs (IN RFB 2.229/2024; DESIGN.md §19) everywhere a CNPJ is: an account's company,
 * a charge's and a due-date charge's payer, recipients and `cnpj` keys, withdrawals to the holder
 * and to a recipient, a recurrence's debtor, the sandbox's payer, the back-office's document search,
 * the audit log and the request logs. vectors.md's three valid ones, as typed in upper case, lower
 * case and with punctuation, and its invalid one.
 */

const VECTORS = ['12ABC34501DE35', '00000000E08G12', 'AB1CD2EF000170'] as const;
const INVALID = '12ABC34501DE36';
const MASKS: Record<(typeof VECTORS)[number], string> = {
  '12ABC34501DE35': '**.ABC.345/01DE-**',
  '00000000E08G12': '**.000.000/E08G-**',
  AB1CD2EF000170: '**.1CD.2EF/0001-**',
};

/** The three ways a person types one: as issued, in lower case, with the usual punctuation (lower case too). */
const typings = (cnpj: string) => [
  cnpj,
  cnpj.toLowerCase(),
  `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`.toLowerCase(),
];

const EVERY_TYPING = VECTORS.flatMap((cnpj) => typings(cnpj).map((typed) => [typed, cnpj] as const));

const RELAXED = { limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } };

describe(`alphanumeric CNPJ (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;
  let logs = '';

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk) => (logs += chunk));
    gateway = await startGateway({ LOG_LEVEL: 'trace' }, { logs: stream });
    merchant = await gateway.createMerchant(RELAXED);
  });
  afterAll(() => gateway.close());

  describe('an account whose company has one', () => {
    it.each(EVERY_TYPING)('is created from %j, kept normalised as %s', async (typed, cnpj) => {
      const created = await gateway.admin('POST', '/admin/v1/accounts', accountBody({ company: { legalName: 'Empresa Nova LTDA', cnpj: typed } }));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await gateway.admin('GET', `/admin/v1/accounts/${created.body.accountId}`);
      expect(read.body.company).toEqual({ legalName: 'Empresa Nova LTDA', cnpj });
    });

    it('is refused with a wrong check digit, and nothing is created', async () => {
      const before = await gateway.database.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .executeTakeFirstOrThrow();
      const refused = await gateway.admin('POST', '/admin/v1/accounts', accountBody({ company: { legalName: 'Empresa Nova LTDA', cnpj: INVALID } }));
      expect(refused).toMatchObject({ status: 400, body: { error: messages.cnpjInvalid('company.cnpj') } });
      const after = await gateway.database.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .executeTakeFirstOrThrow();
      expect(after.count).toBe(before.count);
    });

    it('is masked in the audit log, one mask for the type', async () => {
      const created = await gateway.admin(
        'POST',
        '/admin/v1/accounts',
        accountBody({ company: { legalName: 'Empresa Auditada LTDA', cnpj: '12.abc.345/01de-35' } }),
      );
      expect(created.status).toBe(201);
      const audit = await gateway.admin('GET', `/admin/v1/audit?accountId=${created.body.accountId}`);
      expect(audit.status).toBe(200);
      const text = JSON.stringify(audit.body);
      expect(text).toContain('**.ABC.345/01DE-**');
      expect(text).not.toMatch(/12ABC34501DE35|12\.abc\.345\/01de-35/i);
    });

    it('withdraws to its own CNPJ key (the holder), typed in any case: the beneficiary is the company', async () => {
      const company = await gateway.createMerchant(RELAXED, { company: { legalName: 'Empresa Nova LTDA', cnpj: 'ab1cd2ef000170' } });
      await fund(gateway, company, 10_000);
      const sent = await withdraw(gateway, company, { amountCents: 1_000, pixKey: 'ab.1cd.2ef/0001-70', pixKeyType: 'cnpj' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      const paid = await settleWithdrawal(gateway, company, sent.body.transactionId, { outcome: 'paid' });
      expect(paid.status).toBe(200);
      const read = await readTransaction(gateway, company, sent.body.transactionId);
      expect(read).toMatchObject({ status: 'paid', beneficiary: { name: 'Empresa Nova LTDA', document: 'AB1CD2EF000170', documentType: 'cnpj' } });
    });

    it('refuses a CNPJ key that is not the company’s, and an invalid one, before any debit', async () => {
      const company = await gateway.createMerchant(RELAXED, { company: { legalName: 'Empresa Nova LTDA', cnpj: '12ABC34501DE35' } });
      await fund(gateway, company, 10_000);
      expect(await withdraw(gateway, company, { amountCents: 1_000, pixKey: '00000000E08G12', pixKeyType: 'cnpj' })).toMatchObject({
        status: 403,
        body: { error: messages.holderCnpjOnly },
      });
      expect(await withdraw(gateway, company, { amountCents: 1_000, pixKey: INVALID, pixKeyType: 'cnpj' })).toMatchObject({
        status: 400,
        body: { error: messages.pixKeyNotCnpj },
      });
      const balance = await gateway.call('GET', '/v1/balance', { key: company.apiKey });
      expect(balance.body.available).toBe(10_000);
    });
  });

  describe('a charge’s payer', () => {
    it.each(EVERY_TYPING)('%j is taken and kept as %s', async (typed, cnpj) => {
      const created = await gateway.call('POST', '/v1/pix', {
        key: merchant.apiKey,
        body: chargeBody({ customer: customerWith({ document: { number: typed, type: 'cnpj' } }) }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const row = await gateway.database.db
        .selectFrom('transactions')
        .select('customer')
        .where('id', '=', created.body.transactionId)
        .executeTakeFirstOrThrow();
      expect(row.customer?.document).toEqual({ number: cnpj, type: 'cnpj' });
    });

    it('with a wrong check digit is refused when it has letters; a numeric one is taken as the spec says (digits counted only)', async () => {
      const refused = await gateway.call('POST', '/v1/pix', {
        key: merchant.apiKey,
        body: chargeBody({ customer: customerWith({ document: { number: INVALID, type: 'cnpj' } }) }),
      });
      expect(refused).toMatchObject({ status: 400, body: { error: messages.documentNumberNotCnpj } });
      const numeric = await gateway.call('POST', '/v1/pix', {
        key: merchant.apiKey,
        body: chargeBody({ customer: customerWith({ document: { number: '11222333000182', type: 'cnpj' } }) }),
      });
      expect(numeric.status).toBe(201);
    });

    it('keeps the spec’s messages: letters in a CPF, and the length counted in characters', async () => {
      const letters = await gateway.call('POST', '/v1/pix', {
        key: merchant.apiKey,
        body: chargeBody({ customer: customerWith({ document: { number: '529982247AB', type: 'cpf' } }) }),
      });
      expect(letters).toMatchObject({ status: 400, body: { error: messages.documentNumberCharacters } });
      const short = await gateway.call('POST', '/v1/pix', {
        key: merchant.apiKey,
        body: chargeBody({ customer: customerWith({ document: { number: '12.abc.345/01de-3', type: 'cnpj' } }) }),
      });
      expect(short).toMatchObject({ status: 400, body: { error: 'customer.document.number deve ter 14 dígitos para cnpj. Recebido: 13 dígitos.' } });
    });

    it('of a due-date charge is taken the same way', async () => {
      const due = await gateway.call('POST', '/v1/pix/due', {
        key: merchant.apiKey,
        body: {
          amountCents: 10_000,
          customer: { name: 'Empresa Pagadora', document: { number: '00.000.000/e08g-12', type: 'cnpj' } },
          dueDate: dayAfter(dayOf(gateway.clock.now()), 10),
        },
      });
      expect(due.status, JSON.stringify(due.body)).toBe(201);
      const refused = await gateway.call('POST', '/v1/pix/due', {
        key: merchant.apiKey,
        body: {
          amountCents: 10_000,
          customer: { name: 'Empresa Pagadora', document: { number: INVALID, type: 'cnpj' } },
          dueDate: dayAfter(dayOf(gateway.clock.now()), 10),
        },
      });
      expect(refused).toMatchObject({ status: 400, body: { error: messages.documentNumberNotCnpj } });
    });

    it('pays through the sandbox as a company: the payer shows normalised, the back-office finds it by its document', async () => {
      const shop = await gateway.createMerchant(RELAXED);
      const created = await gateway.call('POST', '/v1/pix', { key: shop.apiKey, body: chargeBody() });
      const payer = {
        name: 'Empresa Pagadora LTDA',
        document: '12.abc.345/01de-35',
        documentType: 'cnpj',
        bankAccount: { ispb: '12345678', branch: '0001', account: '12345-6' },
      };
      const paid = await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, { key: shop.apiKey, body: { payer } });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const read = await readTransaction(gateway, shop, created.body.transactionId);
      expect(read.payer).toMatchObject({ name: 'Empresa Pagadora LTDA', document: '12ABC34501DE35', documentType: 'cnpj' });
      const found = await gateway.services.reportTransactions.page(shop.accountId, { document: '12ABC34501DE35', limit: 10 });
      expect(found.rows.map((row) => row.id)).toEqual([created.body.transactionId]);

      const refused = await gateway.call('POST', `/sandbox/v1/pix/${created.body.transactionId}/pay`, {
        key: shop.apiKey,
        body: { payer: { ...payer, document: '12ABC34501DE35', documentType: 'cpf' } },
      });
      expect(refused).toMatchObject({ status: 400, body: { error: messages.sandboxPayerInvalid } });
    });
  });

  describe('recipients', () => {
    const recipientBody = (document: string, pixKey = document) => ({
      legalName: 'Fornecedora Nova LTDA',
      document,
      documentType: 'cnpj',
      pixKey,
      pixKeyType: 'cnpj',
    });

    it.each(VECTORS)('%s: one recipientId whatever the typing, shown masked once approved', async (cnpj) => {
      const owner = await gateway.createMerchant(RELAXED);
      const ids = new Set<string>();
      for (const typed of typings(cnpj)) {
        const registered = await registerRecipient(gateway, owner, recipientBody(typed, typed.toUpperCase()));
        expect([200, 201], JSON.stringify(registered.body)).toContain(registered.status);
        ids.add(registered.body.recipientId);
      }
      expect(ids.size).toBe(1);
      const [recipientId] = [...ids];
      expect((await reviewRecipient(gateway, owner, String(recipientId), 'approve')).status).toBe(200);
      const listed = await gateway.call('GET', '/v1/recipients', { key: owner.apiKey });
      expect(listed.body.recipients).toEqual([expect.objectContaining({ recipientId, documentType: 'cnpj', documentMasked: MASKS[cnpj] })]);
      expect(JSON.stringify(listed.body)).not.toContain(cnpj);
    });

    it('refuses a wrong check digit, letters in a CPF, and a key that is not the document', async () => {
      expect(await registerRecipient(gateway, merchant, recipientBody(INVALID))).toMatchObject({
        status: 400,
        body: { error: messages.recipientDocumentCheckDigits('cnpj') },
      });
      expect(await registerRecipient(gateway, merchant, { ...recipientBody('12ABC34501DE35'), documentType: 'cpf', pixKeyType: 'cpf' })).toMatchObject({
        status: 400,
        body: { error: messages.recipientDocumentCharacters('cpf') },
      });
      expect(await registerRecipient(gateway, merchant, recipientBody('12ABC34501DE3!'))).toMatchObject({
        status: 400,
        body: { error: messages.recipientDocumentCharacters('cnpj') },
      });
      expect(await registerRecipient(gateway, merchant, recipientBody('12ABC34501DE35', '00000000E08G12'))).toMatchObject({
        status: 400,
        body: { error: messages.recipientKeyDocumentMismatch },
      });
      expect(await registerRecipient(gateway, merchant, recipientBody('12ABC34501DE35', INVALID))).toMatchObject({
        status: 400,
        body: { error: messages.pixKeyNotCnpj },
      });
    });

    it('receives a withdrawal to its CNPJ key, typed in lower case', async () => {
      const owner = await gateway.createMerchant(RELAXED);
      await fund(gateway, owner, 10_000);
      const registered = await registerRecipient(gateway, owner, recipientBody('00000000E08G12'));
      expect((await reviewRecipient(gateway, owner, registered.body.recipientId, 'approve')).status).toBe(200);
      const sent = await withdraw(gateway, owner, {
        amountCents: 2_500,
        pixKey: '00000000e08g12',
        pixKeyType: 'cnpj',
        recipientId: registered.body.recipientId,
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      expect((await settleWithdrawal(gateway, owner, sent.body.transactionId, { outcome: 'paid' })).status).toBe(200);
      const read = await readTransaction(gateway, owner, sent.body.transactionId);
      expect(read).toMatchObject({ status: 'paid', beneficiary: { document: '00000000E08G12', documentType: 'cnpj' } });
      const balance = async () => (await gateway.call('GET', '/v1/balance', { key: owner.apiKey })).body.available;
      expect(await balance()).toBe(10_000 - 2_500 - Number(read.feeCents));
      const other = await withdraw(gateway, owner, {
        amountCents: 2_500,
        pixKey: '12ABC34501DE35',
        pixKeyType: 'cnpj',
        recipientId: registered.body.recipientId,
      });
      expect(other).toMatchObject({ status: 403, body: { error: messages.recipientKeyMismatch } });
      expect(await balance()).toBe(10_000 - 2_500 - Number(read.feeCents));
    });
  });

  describe('a recurrence’s debtor', () => {
    const recurrence = (number: string) => ({
      contract: 'CONTRATO-CNPJ-1',
      debtor: { name: 'Empresa Assinante LTDA', document: { number, type: 'cnpj' } },
      object: 'Assinatura',
      frequency: 'monthly',
      amountCents: 5_000,
      startDate: dayAfter(dayOf(gateway.clock.now()), 12),
      retryPolicy: 'none',
    });

    it('is taken in lower case with punctuation and kept normalised; a wrong check digit is refused', async () => {
      const created = await gateway.call('POST', '/v1/recurrences', { key: merchant.apiKey, body: recurrence('ab.1cd.2ef/0001-70') });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.debtor).toMatchObject({ document: 'AB1CD2EF000170', documentType: 'cnpj' });
      const refused = await gateway.call('POST', '/v1/recurrences', { key: merchant.apiKey, body: recurrence(INVALID) });
      expect(refused).toMatchObject({ status: 400, body: { error: messages.recurrenceDebtorDocumentInvalid } });
    });
  });

  it('never writes a whole alphanumeric CNPJ to the logs', () => {
    expect(logs).toContain('request completed'); // the capture works
    for (const cnpj of VECTORS) expect(logs.toUpperCase().replace(/[.\-/]/g, '')).not.toContain(cnpj);
  });
});
