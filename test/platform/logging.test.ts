import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeBody, customerWith, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

/** Logs at the most verbose level, captured, so the tests can read every line the server wrote. */
let gateway: Gateway;
let merchant: Merchant;
let logs = '';
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk) => (logs += chunk));
  gateway = await startGateway({ LOG_LEVEL: 'trace' }, { logs: stream });
  merchant = await gateway.createMerchant();
});
afterAll(() => gateway.close());

describe('logs and unexpected failures', () => {
  it('never write an API key, the admin token or a full document', async () => {
    const document = '39053344705';
    await gateway.call('POST', '/v1/pix', {
      key: merchant.apiKey,
      body: chargeBody({ customer: customerWith({ document: { number: document, type: 'cpf' } }) }),
    });
    await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody({ amountCents: 1 }) });
    await gateway.call('GET', '/v1/balance', { key: `${merchant.apiKey.slice(0, -1)}0` });
    await gateway.call('GET', '/v1/balance', { key: merchant.apiKey, headers: { 'x-forwarded-for': '10.0.0.1' } });
    expect(logs).toContain('request completed'); // the capture works
    expect(logs).not.toContain(merchant.apiKey.slice(5));
    expect(logs).not.toContain(gateway.services.config.adminToken ?? 'test-admin-token');
    expect(logs).not.toContain(document);
  });

  it('never write an invitation token, a session cookie or a dashboard password', async () => {
    const invited = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email: 'logs@example.com', role: 'viewer' });
    const token = String(invited.body.inviteUrl).split('/').at(-1) ?? '';
    expect(token.length).toBeGreaterThan(40);
    const path = new URL(String(invited.body.inviteUrl)).pathname;
    const page = await fetch(`${gateway.url}${path}`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const password = 'uma senha longa de teste';
    const accepted = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, password }).toString(),
      redirect: 'manual',
    });
    expect(accepted.status).toBe(303);
    const signedIn = await gateway.services.users.signIn('logs@example.com', password);
    await fetch(`${gateway.url}/dashboard`, { headers: { cookie: `svc_session=${signedIn.sessionToken}` } });
    expect(logs).toContain('/dashboard/convite/[redacted]');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(signedIn.sessionToken);
    expect(logs).not.toContain(password);
  });

  it('never write the token of an invitation link of either site, refused or usable', async () => {
    const user = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/users`, { email: 'logs-2@example.com', role: 'viewer' });
    const operator = await gateway.admin('POST', '/admin/v1/operators', { email: 'logs-operador@example.com', role: 'support' });
    const unknown = 'B'.repeat(43);
    const paths = [new URL(String(user.body.inviteUrl)).pathname, new URL(String(operator.body.inviteUrl)).pathname, `/backoffice/convite/${unknown}`];
    const statuses = [];
    for (const path of paths) statuses.push((await fetch(`${gateway.url}${path}`)).status);
    expect(statuses).toEqual([200, 200, 404]);
    expect(logs).toContain('/backoffice/convite/[redacted]');
    for (const path of paths) expect(logs).not.toContain(path.split('/').at(-1));
  });

  it('answer 500 with a generic message and keep the details in the log only', async () => {
    await sql`DROP TABLE rate_counters`.execute(gateway.database.db);
    const reply = await gateway.call('POST', '/v1/pix', { key: merchant.apiKey, body: chargeBody() });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: 'Erro interno. Tente novamente.' });
    expect(logs).toMatch(/rate_counters/);
    // Nothing half-written: the charge's transaction rolled back.
    const list = await gateway.call('GET', '/v1/transactions', { key: merchant.apiKey });
    expect(list.body.count).toBe(1); // only the valid charge of the test above
  });
});
