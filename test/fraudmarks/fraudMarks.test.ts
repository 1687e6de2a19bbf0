import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAUD_MARKS_REFRESH_MS } from '../../src/fraudmarks/service.js';
import { balanceOf, createCharge, fund, registerRecipient, reviewRecipient, withdraw } from '../helpers/api.js';
import { errorOf, withField } from '../helpers/contract.js';
import { ADMIN_TOKEN, backend, callAt, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/** DESIGN.md §19 "Fraud-marked destinations" (Res. BCB 501); docs/fraud-marks.md. Texts quoted to the character. */
const REFUSED = 'Chave PIX com restrição por suspeita de fraude. Saque não realizado.';
const INSUFFICIENT = 'Saldo insuficiente para realizar o saque.';

/** CPF check digits (Receita Federal): weights 10..2 then 11..2, remainder of 10·sum by 11, 10 → 0. */
function withCpfCheckDigits(base: string): string {
  let digits = base;
  for (let round = 0; round < 2; round++) {
    const sum = [...digits].reduce((total, digit, index) => total + Number(digit) * (digits.length + 1 - index), 0);
    digits += String(((sum * 10) % 11) % 10);
  }
  return digits;
}
let serial = 0;
/** A valid CPF no other test of this file uses: marks are platform-wide. */
const freshCpf = () => withCpfCheckDigits(String(300_000_000 + ++serial * 7_919));
const formatted = (cpf: string) => `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(() => gateway.close());

const LIMITS = { limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } };

/** A funded merchant whose responsible person has a CPF of its own (the holder's key of Mode 1). */
async function holderMerchant(options: { manual?: boolean; fundCents?: number } = {}): Promise<{ merchant: Merchant; cpf: string }> {
  const cpf = freshCpf();
  const merchant = await gateway.createMerchant(
    { ...LIMITS, ...(options.manual ? { withdrawalMode: 'manual' } : {}) },
    { responsible: { name: 'Responsável Própria', cpf: formatted(cpf) } },
  );
  if (options.fundCents !== 0) await fund(gateway, merchant, options.fundCents ?? 50_000);
  return { merchant, cpf };
}

const mark = (kind: string, value: string, reason = 'golpe relatado pela vítima') => gateway.admin('POST', '/admin/v1/fraud-marks', { kind, value, reason });

/** What the account has written: transactions, ledger movements other than the funding, recipients, and its alerts. */
async function writtenFor(accountId: string) {
  const db = gateway.database.db;
  const count = async (table: 'transactions' | 'recipients') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('accountId', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const movements = await db.selectFrom('ledgerEntries').select('kind').where('accountId', '=', accountId).where('kind', '!=', 'adjustment').execute();
  const alerts = await db
    .selectFrom('alerts')
    .select(['kind', 'severity', 'details', 'transactionId'])
    .where('accountId', '=', accountId)
    .orderBy('createdAt')
    .execute();
  return { transactions: await count('transactions'), recipients: await count('recipients'), movements: movements.length, alerts };
}

describe(`fraud marks: the operator API (${backend})`, () => {
  it('adds a key or a document normalised, lists them newest first in pages, and removes one; every change audited with documents masked', async () => {
    const cpf = freshCpf();
    const email = await mark('key', '  Golpista@Example.COM ');
    expect(email).toMatchObject({
      status: 201,
      body: { kind: 'key', keyType: 'email', value: 'golpista@example.com', reason: 'golpe relatado pela vítima', createdBy: 'admin-token' },
    });
    const cpfKey = await mark('key', formatted(cpf));
    expect(cpfKey.body).toMatchObject({ kind: 'key', keyType: 'cpf', value: cpf });
    const phone = await mark('key', '+55 (11) 91234-5678');
    expect(phone.body).toMatchObject({ keyType: 'phone', value: '+5511912345678' });
    const evp = await mark('key', '123E4567-E89B-12D3-A456-426614174000');
    expect(evp.body).toMatchObject({ keyType: 'evp', value: '123e4567-e89b-12d3-a456-426614174000' });
    const cnpj = await mark('document', ' 11.444.777/0001-61 ');
    expect(cnpj).toMatchObject({ status: 201, body: { kind: 'document', keyType: null, value: '11444777000161' } });

    const first = await gateway.admin('GET', '/admin/v1/fraud-marks?limit=2');
    expect(first).toMatchObject({ status: 200, body: { count: 2, hasMore: true } });
    expect(first.body.marks.map((listed: { id: string }) => listed.id)).toEqual([cnpj.body.id, evp.body.id]);
    const rest = await gateway.admin('GET', `/admin/v1/fraud-marks?limit=100&before=${evp.body.id}`);
    expect(rest.body.marks.map((listed: { id: string }) => listed.id).slice(0, 3)).toEqual([phone.body.id, cpfKey.body.id, email.body.id]);

    expect((await gateway.admin('DELETE', `/admin/v1/fraud-marks/${cnpj.body.id}`)).status).toBe(204);
    expect(await gateway.admin('DELETE', `/admin/v1/fraud-marks/${cnpj.body.id}`)).toMatchObject({
      status: 404,
      body: { error: 'Marcação de fraude não encontrada.' },
    });
    const listed = (await gateway.admin('GET', '/admin/v1/fraud-marks?limit=100')).body.marks.map((row: { id: string }) => row.id);
    expect(listed).not.toContain(cnpj.body.id);
    // Removed, it can be marked again.
    expect((await mark('document', '11444777000161')).status).toBe(201);

    const audit = (await gateway.admin('GET', '/admin/v1/audit?limit=100')).body.entries as {
      action: string;
      objectId: string | null;
      changes: Record<string, unknown>;
    }[];
    const added = audit.find((entry) => entry.action === 'POST /admin/v1/fraud-marks' && (entry.changes.after as { id: string }).id === cpfKey.body.id);
    expect(added?.changes).toEqual({
      input: { kind: 'key', value: `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**`, reason: 'golpe relatado pela vítima' },
      after: { ...cpfKey.body, value: `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**` },
    });
    const removed = audit.find((entry) => entry.action === 'DELETE /admin/v1/fraud-marks/:id');
    expect(removed).toMatchObject({ objectId: cnpj.body.id, changes: { before: { id: cnpj.body.id, kind: 'document', value: '**.444.777/0001-**' } } });
    expect(JSON.stringify(audit)).not.toContain('11444777000161');
    expect(JSON.stringify(audit)).not.toContain(cpf);
  });

  it('refuses bad input with a 4xx and a message, writing nothing', async () => {
    const refusals: [unknown, number, string][] = [
      [{ kind: 'account', value: 'x', reason: 'r' }, 400, "kind deve ser 'key' ou 'document'."],
      [{ kind: 'key', reason: 'r' }, 400, 'value obrigatório.'],
      [{ kind: 'key', value: '   ', reason: 'r' }, 400, 'value obrigatório.'],
      [
        { kind: 'key', value: 'não é chave', reason: 'r' },
        400,
        'value não é uma chave PIX válida (CPF, CNPJ, e-mail, telefone no formato +55DDDNÚMERO ou chave aleatória).',
      ],
      [
        { kind: 'key', value: '111.444.777-00', reason: 'r' },
        400,
        'value não é uma chave PIX válida (CPF, CNPJ, e-mail, telefone no formato +55DDDNÚMERO ou chave aleatória).',
      ],
      [{ kind: 'document', value: '123', reason: 'r' }, 400, 'value não é um CPF ou CNPJ válido.'],
      [{ kind: 'document', value: '11.444.777/0001-62', reason: 'r' }, 400, 'value não é um CPF ou CNPJ válido.'],
      [{ kind: 'document', value: '39053344705' }, 400, 'reason obrigatório, com até 500 caracteres.'],
      [{ kind: 'document', value: '39053344705', reason: 'x'.repeat(501) }, 400, 'reason obrigatório, com até 500 caracteres.'],
    ];
    const before = (await gateway.admin('GET', '/admin/v1/fraud-marks?limit=100')).body.count;
    for (const [body, status, error] of refusals) {
      expect(await gateway.admin('POST', '/admin/v1/fraud-marks', body), JSON.stringify(body)).toMatchObject({ status, body: { error } });
    }
    const cpf = freshCpf();
    expect((await mark('document', cpf)).status).toBe(201);
    expect(await mark('document', formatted(cpf))).toMatchObject({
      status: 422,
      body: { error: 'Esta chave ou documento já tem uma marcação de fraude ativa.' },
    });
    expect(await gateway.admin('DELETE', '/admin/v1/fraud-marks/nao-e-id')).toMatchObject({ status: 400, body: { error: 'id da marcação inválido.' } });
    expect(await gateway.admin('GET', '/admin/v1/fraud-marks?before=x')).toMatchObject({
      status: 400,
      body: { error: 'before deve ser o id de uma marcação.' },
    });
    expect(await gateway.admin('GET', '/admin/v1/fraud-marks?limit=0')).toMatchObject({ status: 400 });
    expect(await gateway.call('GET', '/admin/v1/fraud-marks', { key: 'errado' })).toMatchObject({ status: 401 });
    expect((await gateway.admin('GET', '/admin/v1/fraud-marks?limit=100')).body.count).toBe(before + 1);
  });
});

describe(`fraud marks: withdrawals and recipients are refused before anything is written (${backend})`, () => {
  it('automatic mode: a marked key is refused with nothing debited and a high alert; removing the mark lifts the refusal', async () => {
    const { merchant, cpf } = await holderMerchant();
    const marked = await mark('key', cpf);
    const refused = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: cpf, pixKeyType: 'cpf', externalRef: 'saque-1' });
    expect(refused).toMatchObject({ status: 422, body: { error: REFUSED } });
    expect(await balanceOf(gateway, merchant)).toBe(50_000);
    const written = await writtenFor(merchant.accountId);
    expect(written).toMatchObject({ transactions: 0, movements: 0 });
    expect(written.alerts).toEqual([
      {
        kind: 'fraud_marked_destination',
        severity: 'high',
        transactionId: null,
        details: {
          source: 'operator_list',
          attempted: 'withdrawal',
          pixKeyType: 'cpf',
          pixKey: `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**`,
          recipientId: null,
        },
      },
    ]);

    expect((await gateway.admin('DELETE', `/admin/v1/fraud-marks/${marked.body.id}`)).status).toBe(204);
    const allowed = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: cpf, pixKeyType: 'cpf', externalRef: 'saque-1' });
    expect(allowed).toMatchObject({ status: 201, body: { status: 'processing' } });
    expect(await balanceOf(gateway, merchant)).toBe(50_000 - 1000 - withField(allowed.body, 'feeCents').feeCents);
  });

  it("Mode 2: a recipient's marked document refuses the withdrawal to its e-mail key; its registration is refused too", async () => {
    const { merchant } = await holderMerchant();
    const recipientCpf = freshCpf();
    const registered = await registerRecipient(gateway, merchant, {
      legalName: 'Fornecedora Ltda',
      document: recipientCpf,
      documentType: 'cpf',
      pixKey: 'fornecedora@example.com',
      pixKeyType: 'email',
    });
    expect(registered.status).toBe(201);
    expect((await reviewRecipient(gateway, merchant, registered.body.recipientId, 'approve', {})).status).toBe(200);
    await mark('document', formatted(recipientCpf));

    const refused = await withdraw(gateway, merchant, {
      amountCents: 1000,
      pixKey: 'fornecedora@example.com',
      pixKeyType: 'email',
      recipientId: registered.body.recipientId,
    });
    expect(refused).toMatchObject({ status: 422, body: { error: REFUSED } });
    expect(await balanceOf(gateway, merchant)).toBe(50_000);
    expect((await writtenFor(merchant.accountId)).transactions).toBe(0);

    // Registering a recipient with a marked key, or a marked document: refused, nothing written.
    const recipientsBefore = (await writtenFor(merchant.accountId)).recipients;
    await mark('key', 'Laranja@Example.com');
    const byKey = await registerRecipient(gateway, merchant, {
      legalName: 'Outro',
      document: freshCpf(),
      documentType: 'cpf',
      pixKey: 'laranja@example.com',
      pixKeyType: 'email',
    });
    expect(byKey).toMatchObject({ status: 422, body: { error: REFUSED } });
    const byDocument = await registerRecipient(gateway, merchant, {
      legalName: 'Mesmo',
      document: recipientCpf,
      documentType: 'cpf',
      pixKey: 'outra@example.com',
      pixKeyType: 'email',
    });
    expect(byDocument).toMatchObject({ status: 422, body: { error: REFUSED } });
    const written = await writtenFor(merchant.accountId);
    expect(written.recipients).toBe(recipientsBefore);
    expect(written.alerts.map((alert) => [alert.kind, alert.severity, (alert.details as { attempted: string }).attempted])).toEqual([
      ['fraud_marked_destination', 'high', 'withdrawal'],
      ['fraud_marked_destination', 'high', 'recipient'],
      ['fraud_marked_destination', 'high', 'recipient'],
    ]);
  });

  it('manual mode: refused at creation (nothing held), and at approval when marked after it was held (nothing debited)', async () => {
    const { merchant, cpf } = await holderMerchant({ manual: true });
    const held = await withdraw(gateway, merchant, { amountCents: 2000, pixKey: cpf, pixKeyType: 'cpf' });
    expect(held).toMatchObject({ status: 201, body: { status: 'pending_approval' } });
    await mark('document', cpf);

    const refused = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: cpf, pixKeyType: 'cpf' });
    expect(refused).toMatchObject({ status: 422, body: { error: REFUSED } });
    expect((await writtenFor(merchant.accountId)).transactions).toBe(1);

    const approval = await gateway.admin('POST', `/admin/v1/transactions/${held.body.transactionId}/approve`);
    expect(approval).toMatchObject({ status: 422, body: { error: REFUSED } });
    const still = await gateway.admin('GET', `/admin/v1/transactions/${held.body.transactionId}`);
    expect(still.body.status).toBe('pending_approval');
    expect(await balanceOf(gateway, merchant)).toBe(50_000);
    const written = await writtenFor(merchant.accountId);
    expect(written.movements).toBe(0);
    expect(written.alerts.map((alert) => alert.transactionId)).toEqual([null, held.body.transactionId]);
  });

  it(`a mark added through one process refuses on another within ${FRAUD_MARKS_REFRESH_MS} ms, and its removal likewise`, async () => {
    const peer = await gateway.startPeer();
    try {
      const { merchant, cpf } = await holderMerchant({ fundCents: 100 });
      // Above the balance: refused either way, with nothing written, so the peer can be asked until it knows.
      const attempt = () => callAt(peer.url, 'POST', '/v1/withdraw', { key: merchant.apiKey, body: { amountCents: 5000, pixKey: cpf, pixKeyType: 'cpf' } });
      expect(await attempt()).toMatchObject({ status: 422, body: { error: INSUFFICIENT } }); // the peer holds the list now
      const marked = await mark('key', cpf);
      const markedAt = performance.now();
      let seenAfter: number | undefined;
      while (seenAfter === undefined && performance.now() - markedAt < FRAUD_MARKS_REFRESH_MS + 1500) {
        if (errorOf((await attempt()).body) === REFUSED) seenAfter = performance.now() - markedAt;
        else await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(seenAfter).toBeDefined();
      expect(seenAfter).toBeLessThan(FRAUD_MARKS_REFRESH_MS + 500);

      await gateway.admin('DELETE', `/admin/v1/fraud-marks/${marked.body.id}`);
      const removedAt = performance.now();
      let liftedAfter: number | undefined;
      while (liftedAfter === undefined && performance.now() - removedAt < FRAUD_MARKS_REFRESH_MS + 1500) {
        if (errorOf((await attempt()).body) === INSUFFICIENT) liftedAfter = performance.now() - removedAt;
        else await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(liftedAfter).toBeLessThan(FRAUD_MARKS_REFRESH_MS + 500);
      expect((await writtenFor(merchant.accountId)).transactions).toBe(0);
    } finally {
      await peer.close();
    }
  });
});

describe(`fraud marks: the simulated DICT (${backend})`, () => {
  it('a key the sandbox DICT marks is refused before any debit, with an alert naming the DICT', async () => {
    const { merchant } = await holderMerchant();
    const recipientCpf = freshCpf();
    const registered = await registerRecipient(gateway, merchant, {
      legalName: 'Recebedora',
      document: recipientCpf,
      documentType: 'cpf',
      pixKey: 'recebedora@example.com',
      pixKeyType: 'email',
    });
    await reviewRecipient(gateway, merchant, registered.body.recipientId, 'approve', {});
    const owner = { name: 'Recebedora', document: recipientCpf, documentType: 'cpf', bankAccount: { ispb: '12345678', branch: '0001', account: '12345' } };
    const dict = await gateway.call('POST', '/sandbox/v1/dict/keys', {
      key: merchant.apiKey,
      body: { key: 'Recebedora@Example.com', keyType: 'email', owner, fraudMarked: true },
    });
    expect(dict).toMatchObject({ status: 201, body: { key: 'recebedora@example.com', fraudMarked: true } });
    expect(
      await gateway.call('POST', '/sandbox/v1/dict/keys', {
        key: merchant.apiKey,
        body: { key: 'x@example.com', keyType: 'email', owner, fraudMarked: 'sim' },
      }),
    ).toMatchObject({ status: 400, body: { error: 'fraudMarked deve ser true ou false.' } });

    const body = { amountCents: 1000, pixKey: 'recebedora@example.com', pixKeyType: 'email', recipientId: registered.body.recipientId };
    expect(await withdraw(gateway, merchant, body)).toMatchObject({ status: 422, body: { error: REFUSED } });
    expect(await balanceOf(gateway, merchant)).toBe(50_000);
    const written = await writtenFor(merchant.accountId);
    expect(written).toMatchObject({ transactions: 0, movements: 0 });
    expect(written.alerts.at(-1)).toMatchObject({
      kind: 'fraud_marked_destination',
      severity: 'high',
      details: { source: 'dict', pixKey: 'recebedora@example.com' },
    });

    // The DICT lifts it: the withdrawal goes.
    await gateway.call('POST', '/sandbox/v1/dict/keys', { key: merchant.apiKey, body: { key: 'recebedora@example.com', keyType: 'email', owner } });
    expect(await withdraw(gateway, merchant, body)).toMatchObject({ status: 201, body: { status: 'processing' } });
  });
});

describe(`fraud marks: a PIX received from a marked payer (${backend})`, () => {
  it('is paid, its amount held by a fraud_mark block with a high alert, until an operator releases it (audited)', async () => {
    const { merchant } = await holderMerchant({ fundCents: 0 });
    const payerCpf = freshCpf();
    await mark('document', payerCpf);
    const transactionId = await createCharge(gateway, merchant, { amountCents: 10_000 });
    const payer = { name: 'Pagador Marcado', document: payerCpf, documentType: 'cpf', bankAccount: { ispb: '87654321', branch: '0001', account: '55555' } };
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey, body: { payer } });
    expect(paid).toMatchObject({ status: 200, body: { status: 'paid' } });
    const net = paid.body.netCents;
    expect(net).toBeGreaterThan(0);

    const balance = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    expect(balance.body).toMatchObject({ available: net, blocked: net, withdrawable: 0 });
    const blocks = gateway.services.ledger.listBlocks(merchant.accountId);
    const [block] = await blocks;
    expect(block).toMatchObject({ kind: 'fraud_mark', status: 'active', amountCents: net });
    const { alerts } = await writtenFor(merchant.accountId);
    expect(alerts).toEqual([
      {
        kind: 'fraud_marked_payer',
        severity: 'high',
        transactionId,
        details: { blockId: block?.blockId, amountCents: net, payerDocumentMasked: `***.${payerCpf.slice(3, 6)}.${payerCpf.slice(6, 9)}-**` },
      },
    ]);
    expect(await withdraw(gateway, merchant, { amountCents: 100, pixKey: (await holderCpfOf(merchant)) ?? '', pixKeyType: 'cpf' })).toMatchObject({
      status: 422,
      body: { error: INSUFFICIENT },
    });

    expect((await gateway.admin('DELETE', `/admin/v1/blocks/${block?.blockId}`)).status).toBe(204);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ available: net, blocked: 0, withdrawable: net });
    const audit = (await gateway.admin('GET', '/admin/v1/audit?limit=100')).body.entries as { action: string; objectId: string }[];
    expect(audit).toContainEqual(expect.objectContaining({ action: 'DELETE /admin/v1/blocks/:blockId', objectId: block?.blockId }));
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('a static QR code paid by a marked payer: the new PIX is held the same way', async () => {
    const { merchant } = await holderMerchant({ fundCents: 0 });
    const payerCpf = freshCpf();
    await mark('document', formatted(payerCpf));
    const code = await gateway.call('POST', '/v1/pix/static', { key: merchant.apiKey, body: { amountCents: 5_000 } });
    expect(code.status).toBe(201);
    const payer = { name: 'Pagador Marcado', document: payerCpf, documentType: 'cpf', bankAccount: { ispb: '87654321', branch: '0001', account: '55555' } };
    const paid = await gateway.call('POST', `/sandbox/v1/pix/static/${code.body.id}/pay`, { key: merchant.apiKey, body: { payer } });
    expect(paid).toMatchObject({ status: 200, body: { status: 'paid' } });
    const net = paid.body.netCents;
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ available: net, blocked: net, withdrawable: 0 });
    const [block] = await gateway.services.ledger.listBlocks(merchant.accountId);
    expect(block).toMatchObject({ kind: 'fraud_mark', status: 'active', amountCents: net });
    expect((await writtenFor(merchant.accountId)).alerts).toMatchObject([
      { kind: 'fraud_marked_payer', severity: 'high', transactionId: paid.body.transactionId, details: { blockId: block?.blockId, amountCents: net } },
    ]);
  });

  it('a payer not marked is credited as usual, nothing held', async () => {
    const { merchant } = await holderMerchant({ fundCents: 0 });
    const transactionId = await createCharge(gateway, merchant, { amountCents: 10_000 });
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
    expect(paid.status).toBe(200);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toMatchObject({ blocked: 0, withdrawable: paid.body.netCents });
    expect((await writtenFor(merchant.accountId)).alerts).toEqual([]);
  });
});

/** The merchant's holder CPF (digits), as the operator API shows the account. */
async function holderCpfOf(merchant: Merchant): Promise<string | undefined> {
  const account = await fetch(`${gateway.url}/admin/v1/accounts/${merchant.accountId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const body = (await account.json()) as { responsible?: { cpf?: string } };
  return body.responsible?.cpf;
}
