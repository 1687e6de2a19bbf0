import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fund, paidCharge } from '../helpers/api.js';
import type { AuditPage } from '../helpers/admin.js';
import { startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * The operators' audit log (DESIGN.md §11): every successful operator action of /admin/v1 leaves a
 * row — actor, route, account, object, input, before/after — with documents masked and secrets
 * redacted; refusals and reads leave none; the table is append-only in the code and in the
 * database; GET /admin/v1/audit reads it, filtered by account and actor.
 */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(() => gateway.close());

const auditOf = async (query: string) => {
  const reply = await gateway.admin<AuditPage>('GET', `/admin/v1/audit?${query}`);
  expect(reply.status).toBe(200);
  return reply.body.entries;
};

describe('GET /admin/v1/audit', () => {
  it('an account created: its row, with the documents masked and the new API key redacted', async () => {
    const merchant = await gateway.createMerchant();
    const entries = await auditOf(`accountId=${merchant.accountId}`);
    expect(entries.map((entry) => entry.action).sort()).toEqual(['POST /admin/v1/accounts', 'POST /admin/v1/accounts/:accountId/api-keys']);
    const created = entries.find((entry) => entry.action === 'POST /admin/v1/accounts');
    expect(created).toMatchObject({ actor: 'admin-token', accountId: merchant.accountId, objectId: merchant.accountId });
    const keyEntry = entries.find((entry) => entry.action === 'POST /admin/v1/accounts/:accountId/api-keys');
    expect(keyEntry?.changes.after).toMatchObject({ apiKey: '[redacted]', keyId: merchant.keyId });
    expect(JSON.stringify(entries)).not.toContain(merchant.apiKey);
    const text = JSON.stringify(created?.changes);
    expect(text).not.toContain('52998224725');
    expect(text).not.toContain('529.982.247-25');
    expect(text).toContain('***.982.247-**');
    expect(text).not.toContain('11222333000181');
    expect(text).toContain('**.222.333/0001-**');
  });

  it('a PATCH of an account keeps the fields before and after', async () => {
    const merchant = await gateway.createMerchant();
    expect((await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { withdrawalMode: 'manual' })).status).toBe(200);
    const [patched] = await auditOf(`accountId=${merchant.accountId}&limit=1`);
    expect(patched).toMatchObject({
      action: 'PATCH /admin/v1/accounts/:accountId',
      accountId: merchant.accountId,
      objectId: merchant.accountId,
      changes: { input: { withdrawalMode: 'manual' }, before: { withdrawalMode: 'automatic' }, after: { withdrawalMode: 'manual' } },
    });
  });

  it('an action on a transaction names its account; a refusal and a read leave no row', async () => {
    const merchant = await gateway.createMerchant({ withdrawalMode: 'manual' });
    await fund(gateway, merchant, 10_000);
    const withdrawal = await gateway.call<{ transactionId: string }>('POST', '/v1/withdraw', {
      key: merchant.apiKey,
      body: { amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf' },
    });
    expect(withdrawal.status).toBe(201);
    const before = (await auditOf(`accountId=${merchant.accountId}`)).length;
    expect((await gateway.admin('POST', `/admin/v1/transactions/${withdrawal.body.transactionId}/approve`)).status).toBe(200);
    expect((await gateway.admin('POST', `/admin/v1/transactions/${withdrawal.body.transactionId}/approve`)).status).toBe(422);
    expect((await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).status).toBe(200);
    const entries = await auditOf(`accountId=${merchant.accountId}`);
    expect(entries).toHaveLength(before + 1);
    expect(entries[0]).toMatchObject({
      action: 'POST /admin/v1/transactions/:id/approve',
      accountId: merchant.accountId,
      objectId: withdrawal.body.transactionId,
    });
  });

  it('a MED case opened on a charge is on the charge account; filters by actor; bad filters are 400', async () => {
    const merchant = await gateway.createMerchant();
    const charge = await paidCharge(gateway, merchant);
    expect((await gateway.admin('POST', `/admin/v1/transactions/${charge}/infractions`, { reason: 'fraud' })).status).toBe(201);
    const [opened] = await auditOf(`accountId=${merchant.accountId}&actor=admin-token&limit=1`);
    expect(opened).toMatchObject({ action: 'POST /admin/v1/transactions/:id/infractions', objectId: charge, changes: { input: { reason: 'fraud' } } });
    expect(await auditOf('actor=operator:ninguem')).toEqual([]);
    expect((await gateway.admin('GET', '/admin/v1/audit?accountId=x')).status).toBe(400);
    expect((await gateway.admin('GET', '/admin/v1/audit?limit=0')).status).toBe(400);
  });
});

describe('append-only', () => {
  it('the database refuses to change or delete a row, or to empty the table', async () => {
    await gateway.createMerchant();
    for (const statement of [sql`UPDATE audit_log SET actor = 'outro'`, sql`DELETE FROM audit_log`, sql`TRUNCATE audit_log`]) {
      await expect(statement.execute(gateway.database.db)).rejects.toThrow(/append-only/);
    }
    expect((await auditOf('limit=1')).length).toBe(1);
  });

  it('the code has no path that updates or deletes audit rows', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
    const offending = files('src').filter((file) => {
      const text = readFileSync(file, 'utf8');
      return (
        /(updateTable|deleteFrom)\(\s*'auditLog'/.test(text) ||
        /(UPDATE|DELETE FROM|TRUNCATE)\s+audit_log/i.test(text.replace(/--.*$/gm, '').replace(/RAISE EXCEPTION[^;]*;/g, ''))
      );
    });
    expect(offending).toEqual([]);
  });
});
