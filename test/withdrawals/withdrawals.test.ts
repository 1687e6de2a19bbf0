import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REFUND_END_TO_END_ID_PATTERN, END_TO_END_ID_PATTERN } from '../../src/pix/endToEndId.js';
import { balanceOf, eventNames, fund, readTransaction, registerRecipient, reviewRecipient, settleWithdrawal, startNextHour, withdraw } from '../helpers/api.js';
import { startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(() => gateway.close());
// Ledger invariants after every scenario: entries sum to zero, balance rows equal their entries.
afterEach(async () => {
  expect(await gateway.ledgerProblems()).toEqual([]);
});

const HOLDER_CPF = '52998224725';
const HOLDER_CNPJ = '11222333000181';
const OTHER_CPF = '39053344705';
/** Limits that do not get in the way of a scenario about something else. */
const RELAXED = { limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 } };

async function fundedMerchant(cents: number, patch: Record<string, unknown> = RELAXED, account?: Record<string, unknown>): Promise<Merchant> {
  const merchant = await gateway.createMerchant(patch, account);
  if (cents > 0) await fund(gateway, merchant, cents);
  return merchant;
}

async function approvedRecipient(merchant: Merchant, document = OTHER_CPF, documentType = 'cpf') {
  const created = await registerRecipient(gateway, merchant, {
    legalName: 'Fornecedor Terceiro',
    document,
    documentType,
    pixKey: document,
    pixKeyType: documentType,
  });
  expect(created.status).toBe(201);
  const approved = await reviewRecipient(gateway, merchant, created.body.recipientId, 'approve', { label: 'Fornecedor' });
  expect(approved.status).toBe(200);
  return created.body.recipientId;
}

describe('POST /v1/withdraw validation (in the order of the spec)', () => {
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await fundedMerchant(1_000_000);
  });
  const amountMessage = 'amountCents deve ser inteiro ≥ 100 (R$1,00 mínimo) para saque.';
  const rows: [string, Record<string, unknown>, string][] = [
    ['amount missing', { pixKey: HOLDER_CPF, pixKeyType: 'cpf' }, amountMessage],
    ['amount 99', withdrawalToHolder({ amountCents: 99 }), amountMessage],
    ['amount fractional', withdrawalToHolder({ amountCents: 150.5 }), amountMessage],
    ['amount as string', withdrawalToHolder({ amountCents: '1000' }), amountMessage],
    ['amount above the per-transaction maximum', withdrawalToHolder({ amountCents: 5_000_001 }), 'Saque acima do máximo por transação (R$ 50.000,00).'],
    ['the maximum comes before pixKey errors', { amountCents: 1e20 }, 'Saque acima do máximo por transação (R$ 50.000,00).'],
    ['pixKey missing', { amountCents: 1000, pixKeyType: 'cpf' }, 'pixKey obrigatória.'],
    ['pixKey blank', withdrawalToHolder({ pixKey: '  ' }), 'pixKey obrigatória.'],
    ['pixKey over 150', withdrawalToHolder({ pixKey: 'a'.repeat(151), pixKeyType: 'email' }), 'pixKey deve ter no máximo 150 caracteres.'],
    ['pixKeyType missing', { amountCents: 1000, pixKey: HOLDER_CPF }, "pixKeyType deve ser 'cpf', 'cnpj', 'email', 'phone' ou 'evp'. Recebido: ''."],
    ['pixKeyType unknown', withdrawalToHolder({ pixKeyType: 'pix' }), "pixKeyType deve ser 'cpf', 'cnpj', 'email', 'phone' ou 'evp'. Recebido: 'pix'."],
    ['description over 200', withdrawalToHolder({ description: 'd'.repeat(201) }), 'description deve ter no máximo 200 caracteres.'],
    ['externalRef over 100', withdrawalToHolder({ externalRef: 'r'.repeat(101) }), 'externalRef deve ser um texto de 1 a 100 caracteres.'],
    ['recipientId not hex', withdrawalToHolder({ recipientId: 'z'.repeat(24) }), 'recipientId inválido.'],
    ['recipientId too short', withdrawalToHolder({ recipientId: 'abc123' }), 'recipientId inválido.'],
    ['cpf key with bad check digits', withdrawalToHolder({ pixKey: '52998224726' }), 'pixKey não é um CPF válido.'],
    ['cnpj key with bad check digits', withdrawalToHolder({ pixKey: '11222333000182', pixKeyType: 'cnpj' }), 'pixKey não é um CNPJ válido.'],
    ['email key malformed', withdrawalToHolder({ pixKey: 'ana@', pixKeyType: 'email' }), 'pixKey não é um e-mail válido (máximo 77 caracteres).'],
    ['phone key without +55', withdrawalToHolder({ pixKey: '11987654321', pixKeyType: 'phone' }), 'pixKey deve ser um telefone no formato +55DDDNÚMERO.'],
    ['evp key malformed', withdrawalToHolder({ pixKey: 'not-a-uuid', pixKeyType: 'evp' }), 'pixKey deve ser uma chave aleatória (UUID) válida.'],
    [
      'email key without recipient (Mode 1)',
      withdrawalToHolder({ pixKey: 'ana@example.com', pixKeyType: 'email' }),
      'Saque para chaves email/telefone/aleatória exige destinatário autorizado.',
    ],
    [
      'phone key without recipient (Mode 1)',
      withdrawalToHolder({ pixKey: '+5511987654321', pixKeyType: 'Phone' }),
      'Saque para chaves email/telefone/aleatória exige destinatário autorizado.',
    ],
    [
      'evp key without recipient (Mode 1)',
      withdrawalToHolder({ pixKey: '123e4567-e12b-12d1-a456-426655440000', pixKeyType: 'evp' }),
      'Saque para chaves email/telefone/aleatória exige destinatário autorizado.',
    ],
  ];
  it.each(rows)('%s → 400', async (_name, body, message) => {
    const reply = await withdraw(gateway, merchant, body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
  });

  it("uses the account's own minimum, and nothing is debited or created by a 400", async () => {
    const limited = await fundedMerchant(100_000, { limits: { withdrawMinCents: 500 } });
    const reply = await withdraw(gateway, limited, withdrawalToHolder({ amountCents: 499 }));
    expect(reply.body).toEqual({ error: 'Valor abaixo do mínimo (R$ 5,00).' });
    expect(await balanceOf(gateway, limited)).toBe(100_000);
    expect((await gateway.call('GET', '/v1/transactions?type=withdrawal', { key: limited.apiKey })).body.count).toBe(0);
  });
});

describe('Mode 1: only the holder', () => {
  it.each([
    ['the responsible CPF (formatted, type in any case)', { pixKey: '529.982.247-25', pixKeyType: ' CPF ' }, 201, null],
    ['the company CNPJ', { pixKey: '11.222.333/0001-81', pixKeyType: 'cnpj' }, 201, null],
    ['another CPF', { pixKey: OTHER_CPF, pixKeyType: 'cpf' }, 403, 'Saque com chave CPF só permitido para o CPF do responsável cadastrado.'],
    ['another CNPJ', { pixKey: '11444777000161', pixKeyType: 'cnpj' }, 403, 'Saque com chave CNPJ só permitido para o CNPJ cadastrado da empresa.'],
  ])('%s → %s', async (_name, key, status, message) => {
    const merchant = await fundedMerchant(10_000);
    const reply = await withdraw(gateway, merchant, { amountCents: 1000, ...key });
    expect(reply.status).toBe(status);
    if (message) expect(reply.body).toEqual({ error: message });
    else expect(reply.body).toMatchObject({ status: 'processing', amountCents: 1000, feeCents: 100, totalDeducted: 1100 });
  });

  it('a CNPJ key is refused for an account without a company', async () => {
    const merchant = await fundedMerchant(10_000, RELAXED, { company: undefined });
    const reply = await withdraw(gateway, merchant, withdrawalToHolder({ pixKey: HOLDER_CNPJ, pixKeyType: 'cnpj' }));
    expect(reply).toMatchObject({ status: 403, body: { error: 'Saque com chave CNPJ só permitido para o CNPJ cadastrado da empresa.' } });
  });

  it("enforces the account's allowed key types", async () => {
    const merchant = await fundedMerchant(10_000, { ...RELAXED, allowedPixKeyTypes: ['cnpj'] });
    const reply = await withdraw(gateway, merchant, withdrawalToHolder());
    expect(reply).toMatchObject({ status: 403, body: { error: "Tipo de chave PIX 'cpf' não autorizado para esta conta." } });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ pixKey: HOLDER_CNPJ, pixKeyType: 'cnpj' }))).status).toBe(201);
  });
});

describe('balance', () => {
  it('debits amount + fee at creation and refuses what is not covered, blocks included', async () => {
    const merchant = await fundedMerchant(3_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_900 }))).status).toBe(201); // 1900 + 100
    expect(await balanceOf(gateway, merchant)).toBe(1_000);
    const short = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 901 })); // 901 + 100 > 1000
    expect(short).toMatchObject({ status: 422, body: { error: 'Saldo insuficiente para realizar o saque.' } });
    await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/blocks`, { amountCents: 1, reason: 'MED' });
    const blocked = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 900 })); // exactly 1000, but 1 is blocked
    expect(blocked.status).toBe(422);
    expect(await balanceOf(gateway, merchant)).toBe(1_000); // `available` stays gross
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});

describe('rate limits and caps, per account', () => {
  it('1 per second, 2 per minute, 10 per hour — each with its message — and idempotent retries are free', async () => {
    const merchant = await fundedMerchant(1_000_000, {});
    startNextHour(gateway);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'a' }))).status).toBe(201);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'a' }))).status).toBe(200); // retry: free
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).body).toEqual({ error: 'Aguarde alguns segundos antes do próximo saque.' });
    gateway.clock.advance(1_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201);
    gateway.clock.advance(1_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).body).toEqual({ error: 'Muitos saques em curto intervalo. Aguarde alguns instantes.' });

    const hourly = await fundedMerchant(1_000_000, { limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 3 } });
    for (let index = 0; index < 3; index++) expect((await withdraw(gateway, hourly, withdrawalToHolder())).status).toBe(201);
    const limited = await withdraw(gateway, hourly, withdrawalToHolder());
    expect(limited).toMatchObject({ status: 429, body: { error: 'Limite de saques atingido.' } });
    expect(limited.headers.get('retry-after')).toBeNull();
  });

  // Minute windows, so that the time the requests take cannot carry a stamp over a boundary.
  it("a withdrawal stamped in the window before the account's latest counts in its own; one older than that (a clock behind by more than a window) counts in that one too", async () => {
    const merchant = await fundedMerchant(1_000_000, { limits: { withdrawPerSecond: 100, withdrawPerMinute: 1, withdrawPerHour: 100 } });
    const perMinute = { error: 'Muitos saques em curto intervalo. Aguarde alguns instantes.' };
    startNextHour(gateway);
    gateway.clock.advance(5 * 60_000 + 20_000); // minute 5
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201);
    gateway.clock.advance(-60_000); // minute 4, as a process whose clock is a minute behind
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201); // the first of its own minute
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).body).toEqual(perMinute);
    gateway.clock.advance(-120_000); // minute 2: older than the row keeps, counted in minute 4
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).body).toEqual(perMinute);
    gateway.clock.advance(240_000); // minute 6: a new window
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201);
  });

  it('a withdrawal stamped just before a boundary that takes the lock after one stamped just after it still counts in its own window', async () => {
    const merchant = await fundedMerchant(1_000_000, { limits: { withdrawPerSecond: 100, withdrawPerMinute: 2, withdrawPerHour: 100 } });
    startNextHour(gateway);
    gateway.clock.advance(10_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201);
    gateway.clock.advance(10_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201); // minute 0: 2 of 2
    gateway.clock.advance(40_000); // minute 1
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201);
    gateway.clock.advance(-20_000); // stamped in minute 0, written after minute 1's first
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).body).toEqual({ error: 'Muitos saques em curto intervalo. Aguarde alguns instantes.' });
    gateway.clock.advance(20_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201); // minute 1: 2 of 2
  });

  it('…and fits in its own window when that window has room, though a later window was opened meanwhile', async () => {
    const merchant = await fundedMerchant(1_000_000, { limits: { withdrawPerSecond: 100, withdrawPerMinute: 2, withdrawPerHour: 100 } });
    startNextHour(gateway);
    gateway.clock.advance(10_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201); // minute 0: 1 of 2
    gateway.clock.advance(50_000); // minute 1
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201);
    gateway.clock.advance(-20_000); // stamped in minute 0, written after minute 1's first
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201); // minute 0: 2 of 2
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).body).toEqual({ error: 'Muitos saques em curto intervalo. Aguarde alguns instantes.' });
    gateway.clock.advance(20_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(201); // minute 1: 2 of 2
  });

  it('daily and monthly caps count what was withdrawn (failed ones excluded)', async () => {
    const merchant = await fundedMerchant(1_000_000, { limits: { ...RELAXED.limits, withdrawDailyCents: 2_500, withdrawMonthlyCents: 4_000 } });
    const now = gateway.clock.now();
    // Start of a UTC day that is not the last of its month, so the next day is the same month.
    const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2);
    gateway.clock.advance(dayStart - now.getTime() + 60_000);
    const first = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_000 }));
    expect(first.status).toBe(201);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 600 }))).body).toEqual({
      error: 'Limite diário de saques excedido (R$ 25,00).',
    });
    await settleWithdrawal(gateway, merchant, first.body.transactionId, { outcome: 'failed' });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_500 }))).status).toBe(201); // the failed one no longer counts
    gateway.clock.advance(86_400_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_600 }))).body).toEqual({
      error: 'Limite mensal de saques excedido (R$ 40,00).',
    });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_500 }))).status).toBe(201);
  });
});

describe('caps kept on the balance row', () => {
  it('a withdrawal awaiting approval counts until it is rejected; approved, it counts once', async () => {
    const merchant = await fundedMerchant(100_000, { ...RELAXED, withdrawalMode: 'manual', limits: { ...RELAXED.limits, withdrawDailyCents: 3_000 } });
    const held = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_000 }));
    expect(held.body).toMatchObject({ status: 'pending_approval' });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_500 }))).body).toEqual({
      error: 'Limite diário de saques excedido (R$ 30,00).',
    });
    expect((await gateway.admin('POST', `/admin/v1/transactions/${held.body.transactionId}/reject`)).status).toBe(200);
    const next = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_500 }));
    expect(next.body).toMatchObject({ status: 'pending_approval' });
    expect((await gateway.admin('POST', `/admin/v1/transactions/${next.body.transactionId}/approve`)).status).toBe(200);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 600 }))).body).toEqual({
      error: 'Limite diário de saques excedido (R$ 30,00).',
    });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 500 }))).status).toBe(201);
    expect(await balanceOf(gateway, merchant)).toBe(100_000 - 2_600); // the approved one and its R$ 1,00 fee; the last awaits approval
  });

  it('a withdrawal stamped before midnight that gets the lock after one of the next day is held to its own day’s cap', async () => {
    const merchant = await fundedMerchant(100_000, { limits: { ...RELAXED.limits, withdrawDailyCents: 5_000 } });
    const now = gateway.clock.now();
    // Noon of a UTC day that is not the last of its month, so the next day is the same month.
    const noon = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2, 12);
    gateway.clock.advance(noon - now.getTime());
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 4_900 }))).status).toBe(201);
    gateway.clock.advance(12 * 3_600_000 + 1_000); // 00:00:01 of the next day: the balance row's sums move to it
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 100 }))).status).toBe(201);
    gateway.clock.advance(-2_000); // 23:59:59 of the first day, as a process whose clock is behind
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 3_000 }))).body).toEqual({
      error: 'Limite diário de saques excedido (R$ 50,00).',
    });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 100 }))).status).toBe(201); // 4,900 + 100: exactly the cap
    gateway.clock.advance(2_000);
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 4_900 }))).status).toBe(201); // the next day: 100 + 4,900
    expect(await balanceOf(gateway, merchant)).toBe(100_000 - (4_900 + 100 + 100 + 4_900) - 4 * 100);
  });

  it('a refused withdrawal counts nowhere: neither its caps nor its rate windows', async () => {
    const merchant = await fundedMerchant(1_500, { limits: { withdrawPerSecond: 1, withdrawPerMinute: 1, withdrawPerHour: 1, withdrawDailyCents: 10_000 } });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 1_450 }))).body).toEqual({
      error: 'Saldo insuficiente para realizar o saque.',
    });
    expect((await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 400 }))).status).toBe(201);
    expect(await balanceOf(gateway, merchant)).toBe(1_000);
  });
});

describe('idempotency', () => {
  it('same externalRef → 200, same transactionId, no new debit', async () => {
    const merchant = await fundedMerchant(10_000);
    const first = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'saque-1' }));
    const retry = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'saque-1', amountCents: 5_000 }));
    expect(retry).toMatchObject({ status: 200, body: { ...first.body, idempotent: true } });
    expect(await balanceOf(gateway, merchant)).toBe(10_000 - 1_100);
  });
});

describe('lifecycle', () => {
  it('processing → paid: endToEndId and beneficiary appear; events transfer.created, .processing, .paid', async () => {
    const merchant = await fundedMerchant(10_000);
    const created = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'life-1' }));
    const pending = await readTransaction(gateway, merchant, created.body.transactionId);
    expect(pending).toMatchObject({ type: 'withdrawal', status: 'processing', pixPayload: null, paidAt: null, netCents: 1000 });
    expect(pending).not.toHaveProperty('beneficiary');
    expect(pending).not.toHaveProperty('endToEndId');
    const paid = await settleWithdrawal(gateway, merchant, created.body.transactionId, { outcome: 'paid' });
    expect(paid.status).toBe(200);
    expect(paid.body.endToEndId).toMatch(END_TO_END_ID_PATTERN);
    expect(paid.body.beneficiary).toMatchObject({ name: 'Maria Responsável', document: HOLDER_CPF, documentType: 'cpf' });
    expect(await eventNames(gateway, created.body.transactionId)).toEqual(['transfer.created', 'transfer.processing', 'transfer.paid']);
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
  });

  it('processing → failed: the debit comes back; transfer.failed', async () => {
    const merchant = await fundedMerchant(10_000);
    const created = await withdraw(gateway, merchant, withdrawalToHolder());
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
    const failed = await settleWithdrawal(gateway, merchant, created.body.transactionId, { outcome: 'failed' });
    expect(failed.body).toMatchObject({ status: 'failed' });
    expect(failed.body).not.toHaveProperty('beneficiary');
    expect(await balanceOf(gateway, merchant)).toBe(10_000);
    expect(await eventNames(gateway, created.body.transactionId)).toEqual(['transfer.created', 'transfer.processing', 'transfer.failed']);
    expect((await settleWithdrawal(gateway, merchant, created.body.transactionId, { outcome: 'paid' })).status).toBe(422);
  });

  it('paid → refunded / partially_refunded when returned: credited back, refundEndToEndId appears', async () => {
    const merchant = await fundedMerchant(10_000);
    const full = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 2_000 }));
    await settleWithdrawal(gateway, merchant, full.body.transactionId, { outcome: 'paid' });
    const refunded = await settleWithdrawal(gateway, merchant, full.body.transactionId, { outcome: 'returned' });
    expect(refunded.body).toMatchObject({ status: 'refunded' });
    expect(refunded.body.refundEndToEndId).toMatch(REFUND_END_TO_END_ID_PATTERN);
    expect(refunded.body.endToEndId).toMatch(END_TO_END_ID_PATTERN);
    expect(await balanceOf(gateway, merchant)).toBe(10_000 - 100); // the fee is kept

    gateway.clock.advance(2_000);
    const partial = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 3_000 }));
    await settleWithdrawal(gateway, merchant, partial.body.transactionId, { outcome: 'paid' });
    const partly = await settleWithdrawal(gateway, merchant, partial.body.transactionId, { outcome: 'returned', amountCents: 1_000 });
    expect(partly.body).toMatchObject({ status: 'partially_refunded' });
    expect(await balanceOf(gateway, merchant)).toBe(9_900 - 3_100 + 1_000);
    expect(await eventNames(gateway, partial.body.transactionId)).toEqual([
      'transfer.created',
      'transfer.processing',
      'transfer.paid',
      'transfer.partially_refunded',
    ]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('manual approval mode: pending_approval without debit; approve debits and sends; reject cancels', async () => {
    const merchant = await fundedMerchant(10_000, { ...RELAXED, withdrawalMode: 'manual' });
    const created = await withdraw(gateway, merchant, withdrawalToHolder());
    expect(created).toMatchObject({ status: 201, body: { status: 'pending_approval', totalDeducted: 1_100 } });
    expect(await balanceOf(gateway, merchant)).toBe(10_000);
    const approved = await gateway.admin('POST', `/admin/v1/transactions/${created.body.transactionId}/approve`);
    expect(approved.body).toMatchObject({ status: 'processing' });
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
    expect(await eventNames(gateway, created.body.transactionId)).toEqual([
      'transfer.created',
      'transfer.pending_approval',
      'transfer.approved',
      'transfer.processing',
    ]);
    expect((await gateway.admin('POST', `/admin/v1/transactions/${created.body.transactionId}/approve`)).status).toBe(422);

    gateway.clock.advance(1_000);
    const tooBig = await withdraw(gateway, merchant, withdrawalToHolder({ amountCents: 9_000 })); // 9100 > 8900 left
    expect(tooBig.body.status).toBe('pending_approval');
    const refused = await gateway.admin('POST', `/admin/v1/transactions/${tooBig.body.transactionId}/approve`);
    expect(refused).toMatchObject({ status: 422, body: { error: 'Saldo insuficiente para realizar o saque.' } });
    expect((await readTransaction(gateway, merchant, tooBig.body.transactionId)).status).toBe('pending_approval');
    expect(await balanceOf(gateway, merchant)).toBe(8_900);

    const second = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'to-reject' }));
    const rejected = await gateway.admin('POST', `/admin/v1/transactions/${second.body.transactionId}/reject`);
    expect(rejected.body).toMatchObject({ status: 'cancelled' });
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
    expect(await eventNames(gateway, second.body.transactionId)).toEqual([
      'transfer.created',
      'transfer.pending_approval',
      'transfer.rejected',
      'transfer.cancelled',
    ]);
  });
});

describe('provider outcomes', () => {
  const arm = (merchant: Merchant, outcome: string) =>
    gateway.call('POST', '/sandbox/v1/provider/next-withdrawal', { key: merchant.apiKey, body: { outcome } });

  it('provider error → 502, nothing debited; a retry with the same externalRef succeeds', async () => {
    const merchant = await fundedMerchant(10_000);
    expect((await arm(merchant, 'provider_error')).status).toBe(201);
    const failed = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'retry' }));
    expect(failed).toMatchObject({ status: 502, body: { error: 'Erro ao processar saque. O valor não foi debitado.' } });
    expect(await balanceOf(gateway, merchant)).toBe(10_000);
    const retry = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'retry' }));
    expect(retry).toMatchObject({ status: 201, body: { status: 'processing' } });
    expect(retry.body.transactionId).not.toBe(undefined);
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
  });

  it('unknown → 202 failed_unknown, debited; reconciliation resolves it to paid or failed', async () => {
    const merchant = await fundedMerchant(10_000);
    await arm(merchant, 'unknown');
    const unknown = await withdraw(gateway, merchant, withdrawalToHolder());
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual({
      error: 'Saque em verificação. Saldo debitado; status final em até 24h.',
      transactionId: unknown.body.transactionId,
      status: 'failed_unknown',
    });
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
    expect(await gateway.services.withdrawals.reconcile()).toBe(0); // not due yet
    gateway.clock.advance(10_000);
    expect(await gateway.services.withdrawals.reconcile()).toBe(0); // the provider does not know yet
    expect((await readTransaction(gateway, merchant, unknown.body.transactionId)).status).toBe('failed_unknown');
    await settleWithdrawal(gateway, merchant, unknown.body.transactionId, { outcome: 'paid' });
    expect((await readTransaction(gateway, merchant, unknown.body.transactionId)).status).toBe('failed_unknown'); // until reconciliation
    expect(await gateway.services.withdrawals.reconcile()).toBe(0); // asked again on its schedule only
    gateway.clock.advance(30_000);
    expect(await gateway.services.withdrawals.reconcile()).toBe(1);
    expect((await readTransaction(gateway, merchant, unknown.body.transactionId)).status).toBe('paid');

    gateway.clock.advance(2_000);
    await arm(merchant, 'unknown');
    const second = await withdraw(gateway, merchant, withdrawalToHolder());
    await settleWithdrawal(gateway, merchant, second.body.transactionId, { outcome: 'failed' });
    gateway.clock.advance(10_000);
    await gateway.services.withdrawals.reconcile();
    expect((await readTransaction(gateway, merchant, second.body.transactionId)).status).toBe('failed');
    expect(await balanceOf(gateway, merchant)).toBe(8_900);
  });

  it('confirmation interrupted → 502 naming the transaction, which exists and proceeds', async () => {
    const merchant = await fundedMerchant(10_000);
    await arm(merchant, 'interrupted');
    const reply = await withdraw(gateway, merchant, withdrawalToHolder());
    expect(reply.status).toBe(502);
    const match = /^Saque iniciado mas confirmação interrompida\. Consulte \/v1\/transactions\/([0-9a-f-]{36})$/.exec(errorOf(reply.body) ?? '');
    expect(match).not.toBeNull();
    const id = match?.[1] ?? '';
    expect((await readTransaction(gateway, merchant, id)).status).toBe('processing');
    expect((await settleWithdrawal(gateway, merchant, id, { outcome: 'paid' })).body.status).toBe('paid');
  });

  it('settles by itself after SANDBOX_SETTLE_MS', async () => {
    const auto = await startGateway({ SANDBOX_SETTLE_MS: '0' });
    try {
      const merchant = await auto.createMerchant(RELAXED);
      await fund(auto, merchant, 5_000);
      const created = await withdraw(auto, merchant, withdrawalToHolder());
      expect(await auto.services.sandbox?.settleDue()).toBe(1);
      expect((await readTransaction(auto, merchant, created.body.transactionId)).status).toBe('paid');
    } finally {
      await auto.close();
    }
  });
});

describe('Mode 2: approved recipients', () => {
  it('cpf key of an approved recipient → processing, with an internal alert; mismatches refused', async () => {
    const merchant = await fundedMerchant(50_000);
    const recipientId = await approvedRecipient(merchant);
    const created = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: OTHER_CPF, pixKeyType: 'cpf', recipientId });
    expect(created).toMatchObject({ status: 201, body: { status: 'processing' } });
    const alerts = await gateway.admin('GET', `/admin/v1/alerts?accountId=${merchant.accountId}`);
    expect(alerts.body.alerts).toEqual([expect.objectContaining({ kind: 'third_party_withdrawal', transactionId: created.body.transactionId })]);
    const paid = await settleWithdrawal(gateway, merchant, created.body.transactionId, { outcome: 'paid' });
    expect(paid.body.beneficiary).toMatchObject({ name: 'Fornecedor Terceiro', document: OTHER_CPF });

    expect((await withdraw(gateway, merchant, { amountCents: 1000, pixKey: HOLDER_CPF, pixKeyType: 'cpf', recipientId })).body).toEqual({
      error: 'Chave PIX (CPF/CNPJ) não corresponde ao documento do destinatário autorizado.',
    });
    expect((await withdraw(gateway, merchant, { amountCents: 1000, pixKey: HOLDER_CNPJ, pixKeyType: 'cnpj', recipientId })).body).toEqual({
      error: 'Tipo de chave (CPF/CNPJ) não bate com o tipo do documento do destinatário.',
    });
    expect((await withdraw(gateway, merchant, { amountCents: 1000, pixKey: OTHER_CPF, pixKeyType: 'cpf', recipientId: 'ab'.repeat(12) })).body).toEqual({
      error: 'Destinatário autorizado não encontrado.',
    });
  });

  it('a recipient under review is not found; a deactivated one answers 422', async () => {
    const merchant = await fundedMerchant(50_000);
    const pending = await registerRecipient(gateway, merchant, {
      legalName: 'Em Análise',
      document: '11144477735',
      documentType: 'cpf',
      pixKey: '11144477735',
      pixKeyType: 'cpf',
    });
    const underReview = await withdraw(gateway, merchant, {
      amountCents: 1000,
      pixKey: '11144477735',
      pixKeyType: 'cpf',
      recipientId: pending.body.recipientId,
    });
    expect(underReview).toMatchObject({ status: 404, body: { error: 'Destinatário autorizado não encontrado.' } });

    const recipientId = await approvedRecipient(merchant);
    await reviewRecipient(gateway, merchant, recipientId, 'deactivate', {});
    const deactivated = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: OTHER_CPF, pixKeyType: 'cpf', recipientId });
    expect(deactivated).toMatchObject({ status: 422, body: { error: 'Destinatário desativado pelo time SVC. Saque cancelado.' } });
    expect(await balanceOf(gateway, merchant)).toBe(50_000);
  });

  it("email/phone/evp keys are resolved in the DICT: the recipient's key proceeds, another holder's fails and is reversed", async () => {
    const merchant = await fundedMerchant(50_000);
    const recipientId = await approvedRecipient(merchant);
    const owner = (document: string) => ({
      name: 'Titular',
      document,
      documentType: 'cpf',
      bankAccount: { ispb: '12345678', branch: '0001', account: '998877' },
    });
    const register = (key: string, keyType: string, document: string) =>
      gateway.call('POST', '/sandbox/v1/dict/keys', { key: merchant.apiKey, body: { key, keyType, owner: owner(document) } });
    expect((await register('Fornecedor@Example.com', 'email', OTHER_CPF)).status).toBe(201);
    expect((await register('+5511912345678', 'phone', HOLDER_CPF)).status).toBe(201);

    const good = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: 'fornecedor@example.com', pixKeyType: 'email', recipientId });
    expect(good).toMatchObject({ status: 201, body: { status: 'processing' } });
    const paid = await settleWithdrawal(gateway, merchant, good.body.transactionId, { outcome: 'paid' });
    expect(paid.body.beneficiary).toMatchObject({ document: OTHER_CPF, bankAccount: { ispb: '12345678' } });

    const mismatch = await withdraw(gateway, merchant, { amountCents: 1000, pixKey: '+5511912345678', pixKeyType: 'phone', recipientId });
    expect(mismatch).toMatchObject({ status: 201, body: { status: 'failed' } });
    expect(await eventNames(gateway, mismatch.body.transactionId)).toEqual(['transfer.created', 'transfer.processing', 'transfer.failed']);
    expect(await balanceOf(gateway, merchant)).toBe(50_000 - 1_100);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
