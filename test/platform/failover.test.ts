import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { balanceOf, createCharge, fund, withdraw } from '../helpers/api.js';
import { chargeBody, serverUrl, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { withField } from '../helpers/contract.js';

/**
 * What a merchant hears while the database primary changes (DESIGN.md §16), on the PostgreSQL
 * server: a node mid-promotion or a standby refuses writes with SQLSTATE 25006, and a connection
 * can die under a COMMIT. Both are made real here, in this test's schema only: a trigger that
 * raises 25006 as a read-only node does, and a constraint trigger that ends its own connection
 * when the COMMIT runs (the transaction is then rolled back, and the gateway cannot know it).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.runIf(serverUrl)('the database primary changes under a request (PostgreSQL server)', { timeout: 60_000 }, () => {
  let gateway: Gateway;
  let merchant: Merchant;

  const run = (statement: string) => sql.raw(statement).execute(gateway.database.db);
  const transactionCount = async () =>
    Number(
      (
        await gateway.database.db
          .selectFrom('transactions')
          .select(sql<string>`count(*)`.as('count'))
          .where('accountId', '=', merchant.accountId)
          .executeTakeFirstOrThrow()
      ).count,
    );

  /** Writes to `table` are refused as a read-only node refuses them. */
  const readOnly = async (table: string, operation: 'INSERT' | 'UPDATE') => {
    await run(`CREATE OR REPLACE FUNCTION refuse_as_standby() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'cannot execute % in a read-only transaction', TG_OP USING ERRCODE = '25006'; END $$`);
    await run(`CREATE TRIGGER refuse_as_standby BEFORE ${operation} ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_as_standby()`);
  };
  /** A withdrawal's COMMIT loses its connection: the debit is rolled back, the gateway hears only the lost connection. */
  const connectionLostAtCommit = async () => {
    await run(`CREATE OR REPLACE FUNCTION lose_connection() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$`);
    await run(`CREATE CONSTRAINT TRIGGER lose_connection AFTER INSERT ON transactions DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.type = 'withdrawal') EXECUTE FUNCTION lose_connection()`);
  };

  beforeAll(async () => {
    gateway = await startGateway();
  });

  // A merchant per test: the withdrawal rate limits (1/s, 2/min) count each test's successes.
  beforeEach(async () => {
    merchant = await gateway.createMerchant();
    await fund(gateway, merchant, 100_000);
  });

  afterEach(async () => {
    for (const [trigger, table] of [
      ['refuse_as_standby', 'transactions'],
      ['refuse_as_standby', 'ledger_entries'],
      ['lose_connection', 'transactions'],
    ])
      await run(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('POST /v1/pix on a read-only node: 502 "Tente novamente", and the retry with the same externalRef creates it once', async () => {
    await readOnly('transactions', 'INSERT');
    const before = await transactionCount();
    const body = chargeBody({ externalRef: 'failover-charge-1' });
    const refused = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body });
    expect(refused).toMatchObject({ status: 502, body: { error: messages.providerChargeFailed } });
    expect(await transactionCount()).toBe(before);

    await run('DROP TRIGGER refuse_as_standby ON transactions');
    const retried = await gateway.call<{ transactionId: string }>('POST', '/v1/pix', { key: merchant.apiKey, body });
    expect(retried.status).toBe(201);
    const again = await gateway.call<{ transactionId: string }>('POST', '/v1/pix', { key: merchant.apiKey, body });
    expect(again).toMatchObject({ status: 200, body: { transactionId: retried.body.transactionId } });
    expect(await transactionCount()).toBe(before + 1);
  });

  it('POST /v1/withdraw on a read-only node: 502 "O valor não foi debitado", nothing debited, and the retry debits once', async () => {
    await readOnly('ledger_entries', 'INSERT');
    const balance = await balanceOf(gateway, merchant);
    const count = await transactionCount();
    const body = withdrawalToHolder({ externalRef: 'failover-withdrawal-1' });
    const refused = await withdraw(gateway, merchant, body);
    expect(refused).toMatchObject({ status: 502, body: { error: messages.withdrawalProviderFailed } });
    expect(await balanceOf(gateway, merchant)).toEqual(balance);
    expect(await transactionCount()).toBe(count);

    await run('DROP TRIGGER refuse_as_standby ON ledger_entries');
    const retried = await withdraw(gateway, merchant, body);
    expect(retried.status).toBe(201);
    expect(await balanceOf(gateway, merchant)).toBe(balance - 1000 - withField(retried.body, 'feeCents').feeCents);
    expect((await withdraw(gateway, merchant, body)).status).toBe(200);
    expect(await transactionCount()).toBe(count + 1);
  });

  it('a withdrawal whose COMMIT loses its connection: 502 "Consulte /v1/transactions/<id>", and that id answers 404 (nothing debited)', async () => {
    await connectionLostAtCommit();
    const balance = await balanceOf(gateway, merchant);
    const count = await transactionCount();
    const body = withdrawalToHolder({ externalRef: 'failover-withdrawal-2' });
    const interrupted = await withdraw(gateway, merchant, body);
    expect(interrupted.status).toBe(502);
    const error = String((interrupted.body as { error?: string }).error);
    const transactionId = error.slice(error.lastIndexOf('/') + 1);
    expect(transactionId).toMatch(UUID);
    expect(error).toBe(messages.withdrawalConfirmationInterrupted(transactionId));

    // The COMMIT did not land: the id the answer named does not exist, and nothing moved.
    const read = await gateway.call('GET', `/v1/transactions/${transactionId}`, { key: merchant.apiKey });
    expect(read).toMatchObject({ status: 404, body: { error: messages.transactionNotFound } });
    expect(await balanceOf(gateway, merchant)).toEqual(balance);
    expect(await transactionCount()).toBe(count);

    // The externalRef was rolled back with it: the merchant's retry creates the withdrawal.
    await run('DROP TRIGGER lose_connection ON transactions');
    const retried = await withdraw(gateway, merchant, body);
    expect(retried.status).toBe(201);
    expect(await balanceOf(gateway, merchant)).toBe(balance - 1000 - withField(retried.body, 'feeCents').feeCents);
  });

  it('a sandbox payment on a read-only node: 503 (retryable), never 500; the charge stays payable', async () => {
    const transactionId = await createCharge(gateway, merchant);
    await readOnly('transactions', 'UPDATE');
    const refused = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
    expect(refused).toMatchObject({ status: 503, body: { error: messages.serviceUnavailable } });
    await run('DROP TRIGGER refuse_as_standby ON transactions');
    const paid = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/pay`, { key: merchant.apiKey });
    expect(paid.status).toBe(200);
  });

  it('the pool recovers from the connection killed under a COMMIT: the next reads answer 200', async () => {
    await connectionLostAtCommit();
    expect((await withdraw(gateway, merchant, withdrawalToHolder())).status).toBe(502);
    await run('DROP TRIGGER lose_connection ON transactions');
    for (let attempt = 0; attempt < 5; attempt++) expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
  });
});
