import { setTimeout as sleep } from 'node:timers/promises';
import { getPixPayloadInfo, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { hasError, isStaticPix, parsePix } from 'pix-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, eventsOf, readTransaction } from '../helpers/api.js';
import { ADMIN_TOKEN, backend, chargeBody, providersFile, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/** Static QR codes (DESIGN.md §17): created, listed, paid many times (each a new pix_in), deactivated. */

/** 1% of each PIX, so the fee shows. */
const FEES = { fees: { pixIn: { fixedCents: 0, bps: 100, minCents: 0, maxCents: 1_000_000 } } };
/** A breaker opened by failures lets a probe through after 2 s (its first open period). */
const BREAKER_OPEN_MS = 2_000;

describe(`static QR codes (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway();
    merchant = await gateway.createMerchant(FEES);
  });
  afterAll(() => gateway.close());

  const create = (body: Record<string, unknown>, key = merchant.apiKey) => gateway.call('POST', '/v1/pix/static', { key, body });
  const pay = (id: string, body: Record<string, unknown> = {}, key = merchant.apiKey) =>
    gateway.call('POST', `/sandbox/v1/pix/static/${id}/pay`, { key, body });

  it('creates a code with a fixed amount whose BR Code both independent parsers read: key, amount, txid, description', async () => {
    const created = await create({ amountCents: 1_050, description: 'Café e pão de queijo', txid: 'BALCAO1' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ txid: 'BALCAO1', amountCents: 1_050, description: 'Café e pão de queijo', active: true, deactivatedAt: null });
    const payload: string = created.body.pixPayload;
    expect(isValidPixPayload(payload)).toBe(true);
    expect(getPixPayloadInfo(payload)).toMatchObject({ amount: 10.5 });
    const parsed = parsePix(payload);
    if (hasError(parsed) || !isStaticPix(parsed)) throw new Error('expected a static BR Code');
    expect(parsed).toMatchObject({ transactionAmount: 10.5, txid: 'BALCAO1', infoAdicional: 'Cafe e pao de queijo' });
    expect(parsed.pixKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    const image = await gateway.call('GET', `/v1/pix/static/${created.body.id}/qrcode?format=svg`, { key: merchant.apiKey });
    expect(image.status).toBe(200);
  });

  it('is paid three times: three pix_in transactions, each credited net of its fee with its event; a different amount is refused', async () => {
    const { id } = (await create({ amountCents: 2_000 })).body;
    const before = await balanceOf(gateway, merchant);
    const wrong = await pay(id, { amountCents: 1_999 });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: messages.sandboxAmountMismatch });
    const paid = [];
    for (let index = 0; index < 3; index++) {
      const received = await pay(id);
      expect(received.status, JSON.stringify(received.body)).toBe(200);
      expect(received.body).toMatchObject({ type: 'pix_in', status: 'paid', amountCents: 2_000, feeCents: 20, netCents: 1_980, staticQrId: id });
      expect(received.body.endToEndId).toMatch(/^E/);
      paid.push(received.body.transactionId);
    }
    expect(new Set(paid).size).toBe(3);
    expect(await balanceOf(gateway, merchant)).toBe(before + 3 * 1_980);
    for (const transactionId of paid) {
      expect((await eventsOf(gateway, transactionId)).map((event) => event.name)).toEqual(['transaction.paid']);
      expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid', staticQrId: id });
    }
    const listed = await gateway.call('GET', `/v1/transactions?type=pix_in&status=paid&limit=100`, { key: merchant.apiKey });
    expect(listed.body.transactions.filter((row: { staticQrId?: string }) => row.staticQrId === id)).toHaveLength(3);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });

  it('without a fixed amount, takes the amount the payer types (required, not below the minimum)', async () => {
    const { id } = (await create({ description: 'Doações' })).body;
    const missing = await pay(id);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: messages.staticQrAmountRequired });
    const received = await pay(id, { amountCents: 12_345 });
    expect(received.body).toMatchObject({ status: 'paid', amountCents: 12_345, feeCents: 123 });
  });

  it('deactivated, it takes no payment (422) and says so; deactivating again is 422', async () => {
    const { id } = (await create({ amountCents: 500 })).body;
    const deactivated = await gateway.call('POST', `/v1/pix/static/${id}/deactivate`, { key: merchant.apiKey });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect(deactivated.body.deactivatedAt).toBeGreaterThan(0);
    const refused = await pay(id);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: messages.staticQrInactive });
    const again = await gateway.call('POST', `/v1/pix/static/${id}/deactivate`, { key: merchant.apiKey });
    expect(again.status).toBe(422);
  });

  it('lists the account’s codes, newest first; another account sees none of them and cannot pay them (404)', async () => {
    const first = (await create({ amountCents: 700 })).body.id;
    const second = (await create({ amountCents: 800 })).body.id;
    const list = await gateway.call('GET', '/v1/pix/static', { key: merchant.apiKey });
    expect(list.body.codes.slice(0, 2).map((code: { id: string }) => code.id)).toEqual([second, first]);
    const other = await gateway.createMerchant(FEES);
    expect((await gateway.call('GET', '/v1/pix/static', { key: other.apiKey })).body.codes).toEqual([]);
    expect((await gateway.call('GET', `/v1/pix/static/${first}`, { key: other.apiKey })).status).toBe(404);
    const theirs = await pay(first, {}, other.apiKey);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ error: messages.staticQrNotFound });
    expect((await gateway.call('POST', `/v1/pix/static/${first}/deactivate`, { key: other.apiKey })).status).toBe(404);
    expect((await gateway.call('GET', '/v1/pix/static/nao-existe', { key: merchant.apiKey })).status).toBe(404);
  });

  it('answers a known externalRef with its code (200); a txid is unique across every merchant (422)', async () => {
    const first = await create({ amountCents: 900, externalRef: 'mesa-9' });
    expect(first.status).toBe(201);
    expect(first.body).not.toHaveProperty('idempotent');
    const again = await create({ amountCents: 901, externalRef: 'mesa-9' });
    expect(again.status).toBe(200);
    // The original code, marked as the spec marks charges' and withdrawals' replays.
    expect(again.body).toEqual({ ...first.body, idempotent: true });
    await create({ txid: 'UNICO123' });
    const other = await gateway.createMerchant(FEES);
    const taken = await create({ txid: 'UNICO123' }, other.apiKey);
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({ error: messages.staticQrTxidTaken });
  });

  it('concurrent creates with one externalRef answer one code (one 201, the rest 200), never a 500', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => create({ amountCents: 1_234, externalRef: 'balcao-concorrente' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.map((answer) => ('idempotent' in answer.body ? answer.body.idempotent : false)).sort()).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('a txid is one whatever its case (bank statements upper-case it): LOJA7 is taken once loja7 is', async () => {
    expect((await create({ txid: 'loja7' })).status).toBe(201);
    const other = await gateway.createMerchant(FEES);
    const taken = await create({ txid: 'LOJA7' }, other.apiKey);
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({ error: messages.staticQrTxidTaken });
  });

  it('an open-amount code takes whole cents within the account limits only (400 otherwise)', async () => {
    const { id } = (await create({})).body;
    for (const amountCents of [150.5, 0, -100]) {
      const refused = await pay(id, { amountCents });
      expect(refused.status, String(amountCents)).toBe(400);
      expect(refused.body).toEqual({ error: messages.staticQrAmountRequired });
    }
    const tooMuch = await pay(id, { amountCents: 10_000_001 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toEqual({ error: messages.amountAboveMaximum(10_000_000) });
  });

  it('a payment that read the code before its deactivation is refused under the code’s lock, nothing credited', async () => {
    const { id } = (await create({ amountCents: 600 })).body;
    const account = await gateway.services.accounts.getAccount(merchant.accountId);
    const stale = await gateway.services.staticQr.get(merchant.accountId, id);
    expect((await gateway.call('POST', `/v1/pix/static/${id}/deactivate`, { key: merchant.apiKey })).status).toBe(200);
    const before = await balanceOf(gateway, merchant);
    await expect(
      gateway.services.staticQr.receive(account, stale, { endToEndId: 'E00000000202701011200abcdefghijk', payer: null, amountCents: 600 }),
    ).rejects.toThrow(messages.staticQrInactive);
    expect(await balanceOf(gateway, merchant)).toBe(before);
  });

  it.each([
    ['an amount of 0', { amountCents: 0 }, messages.staticQrAmountInvalid],
    ['an amount in reais', { amountCents: 10.5 }, messages.staticQrAmountInvalid],
    ['a txid with a dash', { txid: 'mesa-4' }, messages.staticQrTxidInvalid],
    ['a txid of 26 characters', { txid: 'a'.repeat(26) }, messages.staticQrTxidInvalid],
    ['a description of 38 characters', { description: 'x'.repeat(38) }, messages.staticQrDescriptionInvalid],
    ['an amount above the account maximum (the default R$ 100.000,00)', { amountCents: 10_000_001 }, messages.amountAboveMaximum(10_000_000)],
  ])('refuses %s (400), nothing created', async (_name, body, message) => {
    const count = async () => (await gateway.call('GET', '/v1/pix/static', { key: merchant.apiKey })).body.codes.length;
    const before = await count();
    const refused = await create(body);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: message });
    expect(await count()).toBe(before);
  });
});

describe(`static QR codes with several providers (${backend})`, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  beforeAll(async () => {
    gateway = await startGateway({ PROVIDERS_FILE: providersFile(['psp-a', 'psp-b'].map((id) => ({ id, kind: 'simulated', timeoutMs: 50 }))) });
    merchant = await gateway.createMerchant({ limits: { pixPerHour: 100_000 } });
  });
  afterAll(() => gateway.close());

  const providerOfCode = async (id: string) =>
    (await gateway.database.db.selectFrom('staticQrCodes').select('providerId').where('id', '=', id).executeTakeFirstOrThrow()).providerId;
  const charge = async () => {
    const created = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return (await gateway.admin('GET', `/admin/v1/transactions/${created.body.transactionId}`)).body.providerId;
  };
  const stateOf = async (providerId: string) =>
    ((await gateway.admin('GET', '/admin/v1/providers')).body.providers as { id: string; state: string }[]).find((provider) => provider.id === providerId)
      ?.state;

  it("a code takes a receiving key of the account's routing for charges; a provider whose breaker is open is passed over, and its recovery probe is left to a charge", async () => {
    // The default list (both providers) for this merchant; another merchant's own list names psp-b alone.
    const pinned = await gateway.createMerchant({ limits: { pixPerHour: 100_000 } });
    const everyone = [
      { providerId: 'psp-a', weight: 1 },
      { providerId: 'psp-b', weight: 1 },
    ];
    const rules = { charges: everyone, withdrawals: everyone, accounts: { [pinned.accountId]: { charges: [{ providerId: 'psp-b', weight: 1 }] } } };
    expect((await gateway.admin('PUT', '/admin/v1/routing', rules)).status).toBe(200);
    for (let index = 0; index < 5; index++) {
      const code = await gateway.call('POST', '/v1/pix/static', { key: pinned.apiKey, body: { amountCents: 1_000 } });
      expect(code.status).toBe(201);
      expect(await providerOfCode(code.body.id)).toBe('psp-b');
    }
    const first = await gateway.call('POST', '/v1/pix/static', { key: merchant.apiKey, body: { amountCents: 1_000 } });
    expect(first.status).toBe(201);
    expect(['psp-a', 'psp-b']).toContain(await providerOfCode(first.body.id));

    // psp-a goes down: charges fail over to psp-b until its breaker opens.
    expect((await gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: ADMIN_TOKEN, body: { mode: 'down' } })).status).toBe(200);
    for (let index = 0; index < 100 && (await stateOf('psp-a')) !== 'down'; index++) expect(await charge()).toBe('psp-b');
    expect(await stateOf('psp-a')).toBe('down');
    expect((await gateway.call('POST', '/sandbox/v1/providers/psp-a/outage', { key: ADMIN_TOKEN, body: { mode: 'up' } })).status).toBe(200);
    await sleep(BREAKER_OPEN_MS + 100); // its probe is due

    const during = await gateway.call('POST', '/v1/pix/static', { key: merchant.apiKey, body: { amountCents: 1_000 } });
    expect(during.status).toBe(201);
    expect(await providerOfCode(during.body.id)).toBe('psp-b');
    expect((await gateway.call('POST', `/sandbox/v1/pix/static/${during.body.id}/pay`, { key: merchant.apiKey })).status).toBe(200);
    // The code took no probe: the next charge is psp-a's probe, and brings it back.
    expect(await charge()).toBe('psp-a');
    expect(await stateOf('psp-a')).not.toBe('down');
  });
});
