import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { ApiPixInbound } from '../../src/provider/apipix/inbound.js';
import { derivedId } from '../../src/platform/ids.js';
import { balanceOf, eventNames, eventually, readTransaction } from '../helpers/api.js';
import { backend, type Gateway, type Merchant } from '../helpers/gateway.js';
import type { PspDouble } from '../psp/double.js';
import { startRecurrenceGateway } from '../psp/recurrenceGateway.js';

/**
 * Pix Automático through the API Pix adapter (docs/recurrences.md), against the PSP double: the
 * recurrence is a rec with its request to the payer (POST /rec, POST /solicrec), each cycle a cobr
 * (PUT /cobr/{txid}); the payer's answers, debits and cancellations arrive by the PSP's callbacks
 * (/rec, /cobr), read back before they are applied. Every request, answer and notification is
 * judged by Banco Central's OpenAPI (the double's `violations`).
 */
const hex = (id: string) => id.replaceAll('-', '');

let double: PspDouble;
let gateway: Gateway;
let merchant: Merchant;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ double, gateway, merchant, close } = await startRecurrenceGateway('rec'));
}, 30_000);

afterEach(async () => {
  expect(double.violations.splice(0)).toEqual([]);
  expect(await gateway.ledgerProblems()).toEqual([]);
});

afterAll(() => close());

/** Moves the gateway's clock (and the double's) to noon of a day in Brazil, years ahead. */
const setDay = (day: string) => gateway.clock.advance(new Date(`${day}T12:00:00-03:00`).getTime() - gateway.clock.now().getTime());
const CPF = '52998224725';
const body = (overrides: Record<string, unknown> = {}) => ({
  contract: 'CONTRATO-2031-001',
  debtor: { name: 'Maria Pagadora', document: { number: CPF, type: 'cpf' }, account: { ispb: '87654321', branch: '0001', number: '998877' } },
  object: 'Assinatura academia',
  frequency: 'weekly',
  amountCents: 5_000,
  startDate: '2031-03-15',
  retryPolicy: 'three_in_seven_days',
  ...overrides,
});
const create = (overrides: Record<string, unknown> = {}) => gateway.call('POST', '/v1/recurrences', { key: merchant.apiKey, body: body(overrides) });
const read = async (id: string) => (await gateway.call('GET', `/v1/recurrences/${id}`, { key: merchant.apiKey })).body;
const cycles = async () => {
  let moved = 0;
  while ((await gateway.services.recurrences.createDueCycles()) > 0) moved++;
  return moved;
};
const rows = async () =>
  (await gateway.database.db.selectFrom('recurrences').select(['id', 'status']).where('accountId', '=', merchant.accountId).execute()).length;

/** The API Pix provider's listener and poller, whose read-backs a test waits for. */
const inbound = () => {
  const found = gateway.services.providerInbound[0];
  if (!(found instanceof ApiPixInbound)) throw new Error('no API Pix inbound');
  return found;
};

/** A recurrence registered and authorized by the payer (through the PSP's callback). */
async function authorized(overrides: Record<string, unknown> = {}): Promise<{ id: string; idRec: string }> {
  const created = await create(overrides);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { id, providerRecurrenceId } = created.body;
  const idRec = providerRecurrenceId!;
  await double.answerRec(idRec, 'APROVADA');
  await eventually(async () => expect((await read(id)).status).toBe('authorized'));
  return { id, idRec };
}

describe(`API Pix adapter: Pix Automático (${backend})`, () => {
  it('registers a rec and its request to the payer; authorized by the callback; the worker sends a cobr; an attempt fails, is retried, then paid and credited; the merchant cancels (PATCH /rec)', async () => {
    setDay('2031-03-03');
    const before = await balanceOf(gateway, merchant);
    const calls = double.calls.length;
    const created = await create();
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.status).toBe('awaiting_authorization');
    const { id, providerRecurrenceId } = created.body;
    const idRec = providerRecurrenceId!;
    // BCB's idRec: R, R (retries allowed), the PSP's ISPB, its day, 11 characters.
    expect(idRec).toMatch(/^RR1234567820310303[a-zA-Z0-9]{11}$/);
    expect(double.calls.slice(calls).filter((call) => !call.includes('oauth'))).toEqual(['POST /api/v2/rec', 'POST /api/v2/solicrec']);
    const rec = double.rec(idRec);
    expect(rec).toMatchObject({
      status: 'CRIADA',
      vinculo: { contrato: 'CONTRATO-2031-001', objeto: 'Assinatura academia', devedor: { cpf: CPF, nome: 'Maria Pagadora' } },
      calendario: { dataInicial: '2031-03-15', periodicidade: 'SEMANAL' },
      valor: { valorRec: '50.00' },
      politicaRetentativa: 'PERMITE_3R_7D',
    });
    expect(rec?.solicitacao?.body).toEqual({
      idRec,
      calendario: { dataExpiracaoSolicitacao: new Date('2031-03-13T00:00:00-03:00').toISOString() },
      destinatario: { cpf: CPF, conta: '998877', ispbParticipante: '87654321', agencia: '0001' },
    });

    await double.answerRec(idRec, 'APROVADA');
    await eventually(async () => expect((await read(id)).status).toBe('authorized'));

    // 10 days ahead: the cycle's cobr, under the txid derived from the recurrence and the cycle.
    setDay('2031-03-05');
    expect(await cycles()).toBe(1);
    const transactionId = derivedId(id, 'cycle-1');
    const txid = hex(transactionId);
    expect(double.cobr(txid)?.body).toEqual({
      idRec,
      calendario: { dataDeVencimento: '2031-03-15' },
      valor: { original: '50.00' },
      ajusteDiaUtil: false,
      recebedor: { conta: '1234567', tipoConta: 'CORRENTE', agencia: '0001' },
    });
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'pending', amountCents: 5_000 });

    // The debit of the day fails: retried the next day, asked of the PSP.
    setDay('2031-03-15');
    await double.debitCobr(txid, 'attempt_failed');
    await eventually(async () => expect((await read(id)).cycles[0]).toMatchObject({ failedAttempts: 1, attemptDate: '2031-03-16', status: 'pending' }));
    await eventually(() => expect(double.cobr(txid)?.tentativas.at(-1)).toMatchObject({ tipo: 'RIFL', status: 'SOLICITADA', dataLiquidacao: '2031-03-16' }));
    // The same notification again applies nothing more.
    await double.flush();

    setDay('2031-03-16');
    const endToEndId = await double.debitCobr(txid, 'paid');
    await eventually(async () => expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid', endToEndId }));
    expect(await balanceOf(gateway, merchant)).toBe(before + 5_000);
    expect(await eventNames(gateway, transactionId)).toContain('transaction.paid');

    const cancelled = await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant' });
    expect(double.calls).toContain(`PATCH /api/v2/rec/${idRec}`);
    expect(double.rec(idRec)?.status).toBe('CANCELADA');
  });

  it('a cycle whose attempts keep failing fails; a cycle cancelled by the merchant is cancelled at the PSP (PATCH /cobr)', async () => {
    setDay('2031-04-01');
    const { id } = await authorized({ startDate: '2031-04-10', retryPolicy: 'none', frequency: 'monthly' });
    expect(await cycles()).toBe(1);
    const first = hex(derivedId(id, 'cycle-1'));
    setDay('2031-04-10');
    await double.debitCobr(first, 'attempt_failed');
    // No retries allowed: the charge fails at once.
    await eventually(async () => expect((await read(id)).cycles[0]).toMatchObject({ status: 'failed', failedAttempts: 1 }));

    setDay('2031-05-01');
    expect(await cycles()).toBe(1);
    const second = derivedId(id, 'cycle-2');
    const cancelled = await gateway.call('POST', `/v1/recurrences/${id}/cycles/2/cancel`, { key: merchant.apiKey });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(double.cobr(hex(second))?.status).toBe('CANCELADA');
    expect(double.calls).toContain(`PATCH /api/v2/cobr/${hex(second)}`);
  });

  it('the payer refuses, and the payer cancels an authorized one (callbacks): refused; cancelled by the payer, its pending cycle cancelled, nothing sent back', async () => {
    setDay('2031-06-01');
    const refused = await create({ startDate: '2031-06-20' });
    await double.answerRec(refused.body.providerRecurrenceId!, 'REJEITADA');
    await eventually(async () => expect((await read(refused.body.id)).status).toBe('refused'));

    const { id, idRec } = await authorized({ startDate: '2031-06-10' });
    expect(await cycles()).toBe(1);
    const transactionId = derivedId(id, 'cycle-1');
    const patches = double.calls.filter((call) => call.startsWith('PATCH')).length;
    await double.payerCancelRec(idRec);
    await eventually(async () => expect(await read(id)).toMatchObject({ status: 'cancelled', cancelledBy: 'payer', nextCycleDate: null }));
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'cancelled' });
    expect(double.calls.filter((call) => call.startsWith('PATCH')).length).toBe(patches);
  });

  it("a cobr registered at the PSP whose answers were all lost is adopted by the worker's next run (its PUT refused as in use, read back); a cycle skipped after failures is cancelled at the PSP first", async () => {
    setDay('2031-08-01');
    await cycles(); // the earlier tests' cycles, out of the way
    const { id, idRec } = await authorized({ startDate: '2031-08-10', retryPolicy: 'none', frequency: 'monthly' });
    const transactionId = derivedId(id, 'cycle-1');
    const txid = hex(transactionId);
    const path = `/api/v2/cobr/${txid}`;
    const since = (from: number) => double.calls.slice(from).filter((call) => !call.includes('oauth'));
    let from = double.calls.length;
    // Registered by the first PUT; every answer lost (the client's retries too): the outcome is unknown, the recurrence backs off.
    double.loseNextAnswersOf('PUT /cobr/:txid', 3);
    expect(await gateway.services.recurrences.createDueCycles()).toBe(0);
    expect(since(from)).toEqual([`PUT ${path}`, `PUT ${path}`, `PUT ${path}`]);
    expect(double.cobr(txid)).toMatchObject({ idRec, status: 'ATIVA' });
    expect((await read(id)).cycles).toEqual([]);
    expect(await gateway.database.db.selectFrom('recurrences').select(['cycleFailures', 'nextCycle']).where('id', '=', id).executeTakeFirst()).toEqual({
      cycleFailures: 1,
      nextCycle: 1,
    });
    // The next run: the PSP refuses the PUT (BCB: the txid is in use); the cobr read back is ours, adopted.
    gateway.clock.advance(30_000);
    from = double.calls.length;
    expect(await cycles()).toBe(1);
    expect(since(from)).toEqual([`PUT ${path}`, `GET ${path}`]);
    expect((await read(id)).cycles).toMatchObject([{ cycle: 1, transactionId, dueDate: '2031-08-10', status: 'pending', amountCents: 5_000 }]);
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'pending', amountCents: 5_000 });
    // Debited at the PSP: credited here.
    setDay('2031-08-10');
    const endToEndId = await double.debitCobr(txid, 'paid');
    await eventually(async () => expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid', endToEndId }));

    // Another cycle's cobr registered with its answers lost, then the worker (or the PSP) down until the day before its date: too late to
    // send, so the cycle is skipped, but only once its cobr is cancelled at the PSP (the payer is not debited for a skipped cycle).
    setDay('2031-08-11');
    await cycles();
    const skipping = await authorized({ startDate: '2031-08-20', retryPolicy: 'none', frequency: 'monthly' });
    const skippedTxid = hex(derivedId(skipping.id, 'cycle-1'));
    double.loseNextAnswersOf('PUT /cobr/:txid', 3);
    expect(await gateway.services.recurrences.createDueCycles()).toBe(0);
    expect(double.cobr(skippedTxid)?.status).toBe('ATIVA');
    setDay('2031-08-19');
    from = double.calls.length;
    await cycles();
    expect(since(from)).toContain(`PATCH /api/v2/cobr/${skippedTxid}`);
    expect(double.cobr(skippedTxid)?.status).toBe('CANCELADA');
    const skipped = await read(skipping.id);
    expect(skipped.cycles).toEqual([
      { cycle: 1, transactionId: null, dueDate: '2031-08-20', attemptDate: '2031-08-20', failedAttempts: 0, status: 'skipped', amountCents: null },
    ]);
    expect(skipped.nextCycleDate).toBe('2031-09-20');
  });

  it('an approval arriving after the worker expired the request: the recurrence stays expired here and its rec is cancelled at the PSP', async () => {
    setDay('2031-10-01');
    const created = await create({ startDate: '2031-10-10' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, providerRecurrenceId } = created.body;
    const idRec = providerRecurrenceId!;
    // The request lapses at the end of 2031-10-07; the worker expires it.
    setDay('2031-10-08');
    expect(await gateway.services.recurrences.expireAuthorizations()).toBeGreaterThanOrEqual(1);
    expect((await read(id)).status).toBe('expired');
    // The payer's approval reaches the PSP just after: its callback finds the recurrence over here.
    await double.answerRec(idRec, 'APROVADA');
    await eventually(() => expect(double.rec(idRec)?.status).toBe('CANCELADA'));
    expect(double.calls).toContain(`PATCH /api/v2/rec/${idRec}`);
    expect(await read(id)).toMatchObject({ status: 'expired', nextCycleDate: null, cancelledBy: null });
    const events = await gateway.database.db.selectFrom('events').select('payload').where('name', 'like', 'recurrence.%').orderBy('id').execute();
    expect(
      events
        .map((event) => JSON.parse(event.payload))
        .filter((payload) => payload.id === id)
        .map((payload) => payload.event),
    ).toEqual(['recurrence.expired']);
  });

  it("the merchant's cancellation whose callback commits before its PATCH is answered: 200 with the row, once (the recurrence, and a cycle's charge)", async () => {
    setDay('2031-11-01');
    await cycles(); // the earlier tests' cycles, out of the way
    const { id, idRec } = await authorized({ startDate: '2031-11-20', frequency: 'monthly' });
    const other = await authorized({ startDate: '2031-11-09', frequency: 'monthly' });
    expect(await cycles()).toBe(1);
    const transactionId = derivedId(other.id, 'cycle-1');
    const txid = hex(transactionId);

    // The PSP cancels the cobr, calls back, and the gateway applies it before the PATCH's answer arrives.
    double.beforeNextAnswerOf('PATCH /cobr/:txid', async () => {
      await double.notifyCobrOf(txid);
      await eventually(async () => expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'cancelled' }));
    });
    const cycle = await gateway.call('POST', `/v1/recurrences/${other.id}/cycles/1/cancel`, { key: merchant.apiKey });
    expect(cycle.status, JSON.stringify(cycle.body)).toBe(200);
    expect(cycle.body).toMatchObject({ status: 'cancelled' });
    expect(double.cobr(txid)?.status).toBe('CANCELADA');
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.cancelled']);

    // The same for the recurrence: PATCH /rec CANCELADA, its callback (USUARIO_RECEBEDOR: the merchant) applied first.
    double.beforeNextAnswerOf('PATCH /rec/:idRec', async () => {
      await double.notifyRecOf(idRec);
      await eventually(async () => expect((await read(id)).status).toBe('cancelled'));
    });
    const cancelled = await gateway.call('POST', `/v1/recurrences/${id}/cancel`, { key: merchant.apiKey });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled', cancelledBy: 'merchant', nextCycleDate: null });
    expect(double.rec(idRec)?.status).toBe('CANCELADA');
    const events = await gateway.database.db.selectFrom('events').select('payload').where('name', 'like', 'recurrence.%').orderBy('id').execute();
    expect(
      events
        .map((event) => JSON.parse(event.payload))
        .filter((payload) => payload.id === id)
        .map((payload) => payload.event),
    ).toEqual(['recurrence.authorized', 'recurrence.cancelled']);
  });

  it('a debit reported (CONCLUIDA) the day after the last attempt day, the charge expiry worker run meanwhile, credits the cycle', async () => {
    setDay('2031-12-01');
    await cycles(); // the earlier tests' cycles, out of the way
    const { id } = await authorized({ startDate: '2031-12-10', retryPolicy: 'none', frequency: 'monthly' });
    expect(await cycles()).toBe(1);
    const transactionId = derivedId(id, 'cycle-1');
    const before = await balanceOf(gateway, merchant);
    // Settled on its day at the payer's bank; the callback comes the next day, after the expiry worker's run.
    setDay('2031-12-11');
    await gateway.services.charges.expireDueCharges();
    expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'pending' });
    const endToEndId = await double.debitCobr(hex(transactionId), 'paid');
    await eventually(async () => expect(await readTransaction(gateway, merchant, transactionId)).toMatchObject({ status: 'paid', endToEndId }));
    expect(await balanceOf(gateway, merchant)).toBe(before + 5_000);
    expect(await eventNames(gateway, transactionId)).toEqual(['transaction.paid']);
    expect((await read(id)).cycles).toMatchObject([{ cycle: 1, status: 'paid' }]);
  });

  it('an attempt that lapsed unsettled (EXPIRADA) counts as a failed one: retried per the policy, asked of the PSP', async () => {
    setDay('2032-01-01');
    await cycles(); // the earlier tests' cycles, out of the way
    const { id } = await authorized({ startDate: '2032-01-10', frequency: 'monthly' });
    expect(await cycles()).toBe(1);
    const txid = hex(derivedId(id, 'cycle-1'));
    setDay('2032-01-10');
    await double.debitCobr(txid, 'attempt_expired');
    await eventually(async () => expect((await read(id)).cycles[0]).toMatchObject({ failedAttempts: 1, attemptDate: '2032-01-11', status: 'pending' }));
    await eventually(() => expect(double.cobr(txid)?.tentativas.at(-1)).toMatchObject({ tipo: 'RIFL', status: 'SOLICITADA', dataLiquidacao: '2032-01-11' }));
  });

  it('a retry the PSP did not take is asked again at the next read of its cobr, once: not while an attempt is in flight', async () => {
    setDay('2032-02-01');
    await cycles(); // the earlier tests' cycles, out of the way
    const { id } = await authorized({ startDate: '2032-02-10', frequency: 'monthly' });
    expect(await cycles()).toBe(1);
    const txid = hex(derivedId(id, 'cycle-1'));
    const asked = () => double.calls.filter((call) => call === `POST /api/v2/cobr/${txid}/retentativa/2032-02-11`).length;
    setDay('2032-02-10');
    double.failNextOf('POST /cobr/:txid/retentativa/:data');
    await double.debitCobr(txid, 'attempt_failed');
    await eventually(async () => expect((await read(id)).cycles[0]).toMatchObject({ failedAttempts: 1, attemptDate: '2032-02-11', status: 'pending' }));
    await eventually(() => expect(asked()).toBe(1));
    await inbound().settled();
    expect(double.cobr(txid)?.tentativas.filter((attempt) => attempt.tipo === 'RIFL')).toEqual([]);

    // The PSP's next word on the cobr (a callback, or the sweep's list) asks for the retry again.
    await double.notifyCobrOf(txid);
    await eventually(() => expect(double.cobr(txid)?.tentativas.at(-1)).toMatchObject({ tipo: 'RIFL', status: 'SOLICITADA', dataLiquidacao: '2032-02-11' }));
    expect(asked()).toBe(2);
    // Requested now: not asked a third time, and the failure is still counted once.
    await double.notifyCobrOf(txid);
    await inbound().settled();
    expect(asked()).toBe(2);
    expect((await read(id)).cycles[0]).toMatchObject({ failedAttempts: 1, attemptDate: '2032-02-11', status: 'pending' });
  });

  it('provider failures: 502 with nothing left live at the PSP; a payer without an account is a 400 before anything is written; a cobr refused backs off', async () => {
    setDay('2031-07-01');
    const count = await rows();
    const withoutAccount = await create({ startDate: '2031-07-20', debtor: { name: 'Maria Pagadora', document: { number: CPF, type: 'cpf' } } });
    expect(withoutAccount.status).toBe(400);
    expect(withoutAccount.body).toEqual({ error: messages.recurrenceDebtorAccountRequired });
    expect(await rows()).toBe(count);

    // The PSP is unavailable for the rec: nothing registered there.
    double.failNext(1);
    const recs = double.calls.filter((call) => call === 'POST /api/v2/rec').length;
    const failed = await create({ startDate: '2031-07-20' });
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({ error: messages.recurrenceProviderFailed });
    expect(double.calls.filter((call) => call === 'POST /api/v2/rec').length).toBe(recs + 1);

    // The rec registered, its request to the payer not: the rec is cancelled there, the answer a 502.
    double.failNextOf('POST /solicrec');
    const halfway = await create({ startDate: '2031-07-20', externalRef: 'sem-solicitacao' });
    expect(halfway.status).toBe(502);
    const cancelledThere =
      double.calls
        .filter((call) => call.startsWith('PATCH /api/v2/rec/'))
        .at(-1)
        ?.split('/')
        .at(-1) ?? '';
    expect(double.rec(cancelledThere)).toMatchObject({ status: 'CANCELADA' });
    expect(double.rec(cancelledThere)?.solicitacao).toBeUndefined();
    // A retry with the same externalRef registers it anew.
    const retried = await create({ startDate: '2031-07-20', externalRef: 'sem-solicitacao' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.status).toBe('awaiting_authorization');
    expect(retried.body.providerRecurrenceId).not.toBe(cancelledThere);

    // Neither the request to the payer nor the rec's cancellation taken (the PSP unavailable from
    // the rec's answer on): the live rec is an orphan, cancelled there by the worker once it answers.
    double.beforeNextAnswerOf('POST /rec', async () => double.failNext(4)); // POST /solicrec, then PATCH /rec's three attempts
    const stranded = await create({ startDate: '2031-07-20', externalRef: 'rec-orfa' });
    expect(stranded.status).toBe(502);
    expect(stranded.body).toEqual({ error: messages.recurrenceProviderFailed });
    const patches = double.calls.filter((call) => call.startsWith('PATCH /api/v2/rec/'));
    const strandedRec = patches.at(-1)?.split('/').at(-1) ?? '';
    expect(patches.filter((call) => call.endsWith(`/${strandedRec}`))).toHaveLength(3);
    expect(double.rec(strandedRec)).toMatchObject({ status: 'CRIADA' });
    const orphan = () =>
      gateway.database.db.selectFrom('orphanRecurrences').selectAll().where('providerRecurrenceId', '=', strandedRec).executeTakeFirstOrThrow();
    const { id: strandedId } = await gateway.database.db.selectFrom('recurrences').select('id').where('externalRef', '=', 'rec-orfa').executeTakeFirstOrThrow();
    expect(await orphan()).toMatchObject({ recurrenceId: strandedId, accountId: merchant.accountId, attempts: 0, cancelledAt: null });
    // Its first attempt is the worker's, 10 s on.
    expect(await gateway.services.recurrences.cancelOrphans()).toBe(0);
    gateway.clock.advance(10_000);
    expect(await gateway.services.recurrences.cancelOrphans()).toBe(1);
    expect(double.rec(strandedRec)).toMatchObject({ status: 'CANCELADA' });
    expect(await orphan()).toMatchObject({ attempts: 1, cancelledAt: expect.any(Date), lastError: null });
    // The recurrence itself is still to be registered: a retry with its externalRef asks anew.
    const again = await create({ startDate: '2031-07-20', externalRef: 'rec-orfa' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ status: 'awaiting_authorization' });
    expect(again.body).toMatchObject({ id: strandedId, status: 'awaiting_authorization' });
    expect(again.body.providerRecurrenceId).not.toBe(strandedRec);

    // The cobr refused (unavailable on every attempt): no cycle written, tried again later.
    await cycles(); // the earlier tests' recurrences first: only this one's cobr is due below
    const { id } = await authorized({ startDate: '2031-07-10' });
    double.failNext(3);
    expect(await cycles()).toBe(0);
    expect((await read(id)).cycles).toEqual([]);
    expect(double.cobr(hex(derivedId(id, 'cycle-1')))).toBeUndefined();
  });
});

describe(`API Pix adapter: Pix Automático with a company debtor (${backend})`, () => {
  it('registers the rec and its request to the payer with an alphanumeric CNPJ, typed in lower case (BCB: PessoaJuridicaRecorrencia, ^[0-9A-Z]{14}$)', async () => {
    setDay('2031-04-01');
    const created = await create({
      contract: 'CONTRATO-CNPJ-2031',
      startDate: '2031-04-15',
      debtor: { name: 'Empresa Assinante LTDA', document: { number: '12.abc.345/01de-35', type: 'cnpj' }, account: { ispb: '87654321', number: '998877' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rec = double.rec(created.body.providerRecurrenceId!);
    expect(rec?.vinculo).toMatchObject({ devedor: { cnpj: '12ABC34501DE35', nome: 'Empresa Assinante LTDA' } });
    expect(rec?.solicitacao?.body).toMatchObject({ destinatario: { cnpj: '12ABC34501DE35', conta: '998877', ispbParticipante: '87654321' } });
  });
});
