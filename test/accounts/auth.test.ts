import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FEES } from '../../src/config.js';
import { newId } from '../../src/platform/ids.js';
import { accountBody, ADMIN_TOKEN, callAt, chargeBody, startGateway, type Gateway, type Merchant, type Reply } from '../helpers/gateway.js';

/** Spec §Authentication and §Errors (401/403), DESIGN.md §5 and §6: texts quoted to the character. */
const API_KEY_MISSING = 'API key obrigatória. Use: Authorization: Bearer <key>';
const API_KEY_INVALID = 'API key inválida ou revogada.';
const NOT_APPROVED = 'Conta não está aprovada para uso da API.';
const BLOCKED = 'Conta suspensa. Contate o suporte.';
const IP_NOT_ALLOWED = 'IP de origem não autorizado para esta chave.';
const KEY_CREATION_REFUSED = 'Conta sem KYC aprovado ou e-mail verificado.';
const ADMIN_TOKEN_MISSING = 'Token de operador obrigatório. Use: Authorization: Bearer <ADMIN_TOKEN>';
const ADMIN_TOKEN_INVALID = 'Token de operador inválido.';
const ACCOUNT_NOT_FOUND = 'Conta não encontrada.';
const ACCOUNT_ID_INVALID = 'accountId inválido.';
const allowlistInvalid = (entry: string) => `ipAllowlist contém um IP ou CIDR inválido: '${entry}'.`;

const API_KEY_PATTERN = /^svck_[0-9a-f]{64}$/;
const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The merchant calls used to exercise authentication; a valid body so only auth can fail. */
const ENDPOINTS = [
  { method: 'GET', path: '/v1/balance', body: undefined },
  { method: 'POST', path: '/v1/pix', body: chargeBody() },
  { method: 'GET', path: '/v1/transactions', body: undefined },
] as const;

type Endpoint = (typeof ENDPOINTS)[number];

/** Flips one hexadecimal character of a key at `index` to another valid hex character. */
function changeOneCharacter(key: string, index: number): string {
  const current = key[index];
  const replacement = current === 'a' ? 'b' : 'a';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

/** Rows as [title, row] for `it.each(...)('%s', ...)`: vitest shortens `$field` titles, `%s` it prints whole. */
const titled = <Row>(rows: readonly Row[], title: (row: Row) => string): [string, Row][] => rows.map((row) => [title(row), row]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let gateway: Gateway;
let shared: Merchant;

beforeAll(async () => {
  gateway = await startGateway();
  shared = await gateway.createMerchant();
});
afterAll(() => gateway.close());

const callEndpoint = (endpoint: Endpoint, options: { key?: string | null; headers?: Record<string, string> }, baseUrl?: string): Promise<Reply> =>
  baseUrl
    ? callAt(baseUrl, endpoint.method, endpoint.path, { ...options, body: endpoint.body })
    : gateway.call(endpoint.method, endpoint.path, { ...options, body: endpoint.body });

/** The 2xx status a successful call to each endpoint answers. */
const successStatus = (endpoint: Endpoint) => (endpoint.method === 'POST' ? 201 : 200);

describe('merchant API keys on /v1', () => {
  type CredentialRow = {
    rule: string;
    /** Builds the request's auth from the shared merchant's valid key. */
    auth: (validKey: string) => { key?: string | null; headers?: Record<string, string> };
    status: number;
    error: string | null;
  };

  const credentialRows: CredentialRow[] = [
    { rule: 'valid key (control)', auth: (key) => ({ key }), status: 0, error: null },
    { rule: 'no Authorization header', auth: () => ({ key: null }), status: 401, error: API_KEY_MISSING },
    { rule: 'Basic scheme', auth: () => ({ headers: { authorization: 'Basic xyz' } }), status: 401, error: API_KEY_MISSING },
    { rule: 'Basic scheme carrying a valid key', auth: (key) => ({ headers: { authorization: `Basic ${key}` } }), status: 401, error: API_KEY_MISSING },
    { rule: 'Bearer with no token', auth: () => ({ headers: { authorization: 'Bearer' } }), status: 401, error: API_KEY_MISSING },
    { rule: 'Bearer followed by spaces only', auth: () => ({ headers: { authorization: 'Bearer    ' } }), status: 401, error: API_KEY_MISSING },
    { rule: 'key without the word Bearer', auth: (key) => ({ headers: { authorization: key } }), status: 401, error: API_KEY_MISSING },
    { rule: 'malformed key (short)', auth: () => ({ key: 'svck_abc' }), status: 401, error: API_KEY_INVALID },
    { rule: 'malformed key (wrong prefix)', auth: (key) => ({ key: `sk_x_${key.slice(5)}` }), status: 401, error: API_KEY_INVALID },
    { rule: 'malformed key (uppercase hex)', auth: (key) => ({ key: `svck_${key.slice(5).toUpperCase()}` }), status: 401, error: API_KEY_INVALID },
    { rule: 'malformed key (65 hex characters)', auth: (key) => ({ key: `${key}0` }), status: 401, error: API_KEY_INVALID },
    { rule: 'malformed key (63 hex characters)', auth: (key) => ({ key: key.slice(0, -1) }), status: 401, error: API_KEY_INVALID },
    { rule: 'unknown well-formed key', auth: () => ({ key: `svck_${'0123456789abcdef'.repeat(4)}` }), status: 401, error: API_KEY_INVALID },
    {
      rule: 'valid key with its last character changed',
      auth: (key) => ({ key: changeOneCharacter(key, key.length - 1) }),
      status: 401,
      error: API_KEY_INVALID,
    },
    { rule: 'valid key with a public-prefix character changed', auth: (key) => ({ key: changeOneCharacter(key, 10) }), status: 401, error: API_KEY_INVALID },
    { rule: 'the operator token used as an API key', auth: () => ({ key: ADMIN_TOKEN }), status: 401, error: API_KEY_INVALID },
  ];

  const rows = ENDPOINTS.flatMap((endpoint) => credentialRows.map((row) => ({ ...row, endpoint, name: `${endpoint.method} ${endpoint.path}: ${row.rule}` })));

  it.each(titled(rows, (row) => row.name))('%s', async (_, { endpoint, auth, status, error }) => {
    const reply = await callEndpoint(endpoint, auth(shared.apiKey));
    if (error === null) {
      expect(reply.status).toBe(successStatus(endpoint));
    } else {
      expect(reply.status).toBe(status);
      expect(reply.body).toEqual({ error });
    }
  });

  it.each(ENDPOINTS)('$method $path: a revoked key gets 401 on the same server at once', async (endpoint) => {
    const merchant = await gateway.createMerchant();
    expect((await callEndpoint(endpoint, { key: merchant.apiKey })).status).toBe(successStatus(endpoint));

    const revoked = await gateway.admin('DELETE', `/admin/v1/api-keys/${merchant.keyId}`);
    expect(revoked.status).toBe(204);

    const reply = await callEndpoint(endpoint, { key: merchant.apiKey });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: API_KEY_INVALID });
  });

  it('a revoked key stops working on a peer server (own caches) within 5 seconds', async () => {
    const merchant = await gateway.createMerchant();
    const peer = await gateway.startPeer();
    try {
      // Used on the peer first, so the peer holds it in its key cache.
      expect((await callAt(peer.url, 'GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);

      const revoked = await gateway.admin('DELETE', `/admin/v1/api-keys/${merchant.keyId}`);
      expect(revoked.status).toBe(204);
      const revokedAt = performance.now();

      let reply: Reply = await callAt(peer.url, 'GET', '/v1/balance', { key: merchant.apiKey });
      while (reply.status !== 401 && performance.now() - revokedAt < 8_000) {
        expect(reply.status).toBe(200); // still cached: allowed, but nothing else is
        await sleep(100);
        reply = await callAt(peer.url, 'GET', '/v1/balance', { key: merchant.apiKey });
      }
      const elapsed = performance.now() - revokedAt;

      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: API_KEY_INVALID });
      expect(elapsed).toBeLessThanOrEqual(5_500);
    } finally {
      await peer.close();
    }
  });

  it('a key of another account keeps working after one key is revoked', async () => {
    const first = await gateway.createMerchant();
    const second = await gateway.createMerchant();
    expect((await gateway.admin('DELETE', `/admin/v1/api-keys/${first.keyId}`)).status).toBe(204);
    expect((await gateway.call('GET', '/v1/balance', { key: first.apiKey })).status).toBe(401);
    expect((await gateway.call('GET', '/v1/balance', { key: second.apiKey })).status).toBe(200);
  });
});

describe('authentication runs before body parsing and validation', () => {
  type BodyRow = {
    rule: string;
    key: 'none' | 'invalid' | 'pending' | 'blocked';
    body?: unknown;
    rawBody?: string;
    status: number;
    error: string;
  };

  const rows: BodyRow[] = [
    { rule: 'invalid body, no key', key: 'none', body: { amountCents: 1 }, status: 401, error: API_KEY_MISSING },
    { rule: 'empty object body, no key', key: 'none', body: {}, status: 401, error: API_KEY_MISSING },
    { rule: 'malformed JSON, no key', key: 'none', rawBody: '{"amountCents": ', status: 401, error: API_KEY_MISSING },
    { rule: 'invalid body, invalid key', key: 'invalid', body: { amountCents: 1 }, status: 401, error: API_KEY_INVALID },
    { rule: 'malformed JSON, invalid key', key: 'invalid', rawBody: 'not json', status: 401, error: API_KEY_INVALID },
    { rule: 'invalid body, KYC pending', key: 'pending', body: { amountCents: 1 }, status: 403, error: NOT_APPROVED },
    { rule: 'invalid body, account blocked', key: 'blocked', body: { amountCents: 1 }, status: 403, error: BLOCKED },
  ];

  it.each(titled(rows, (row) => `POST /v1/pix: ${row.rule} → ${row.status}`))('%s', async (_, { key, body, rawBody, status, error }) => {
    let apiKey: string | null = null;
    if (key === 'invalid') apiKey = `svck_${'f'.repeat(64)}`;
    if (key === 'pending') apiKey = (await gateway.createMerchant({ kycStatus: 'pending' })).apiKey;
    if (key === 'blocked') apiKey = (await gateway.createMerchant({ blocked: true })).apiKey;

    const reply = await gateway.call('POST', '/v1/pix', {
      key: apiKey,
      ...(body !== undefined && { body }),
      ...(rawBody !== undefined && { rawBody, headers: { 'content-type': 'application/json' } }),
    });
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual({ error });
  });
});

describe('account preconditions (KYC, block)', () => {
  type PreconditionRow = { rule: string; patch: Record<string, unknown>; error: string };

  const rows: PreconditionRow[] = [
    { rule: 'KYC pending', patch: { kycStatus: 'pending' }, error: NOT_APPROVED },
    { rule: 'KYC rejected', patch: { kycStatus: 'rejected' }, error: NOT_APPROVED },
    { rule: 'account blocked', patch: { blocked: true }, error: BLOCKED },
    { rule: 'KYC pending and blocked: KYC is checked first', patch: { kycStatus: 'pending', blocked: true }, error: NOT_APPROVED },
    { rule: 'KYC rejected and blocked: KYC is checked first', patch: { kycStatus: 'rejected', blocked: true }, error: NOT_APPROVED },
  ];

  const endpointRows = ENDPOINTS.flatMap((endpoint) => rows.map((row) => ({ ...row, endpoint, name: `${endpoint.method} ${endpoint.path}: ${row.rule}` })));

  it.each(titled(endpointRows, (row) => `${row.name} → 403`))('%s', async (_, { endpoint, patch, error }) => {
    const merchant = await gateway.createMerchant(patch);
    const reply = await callEndpoint(endpoint, { key: merchant.apiKey });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ error });
  });

  it.each(titled(rows, (row) => `${row.rule}: a PATCH takes effect at once in the same process, and on a peer started after it`))(
    '%s',
    async (_, { patch, error }) => {
      const merchant = await gateway.createMerchant();
      // Caches the account as approved and unblocked.
      expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);

      const patched = await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, patch);
      expect(patched.status).toBe(200);

      const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ error });

      const peer = await gateway.startPeer();
      try {
        const onPeer = await callAt(peer.url, 'GET', '/v1/balance', { key: merchant.apiKey });
        expect(onPeer.status).toBe(403);
        expect(onPeer.body).toEqual({ error });
      } finally {
        await peer.close();
      }
    },
  );

  it('undoing the block and approving KYC lets the key work again at once', async () => {
    const merchant = await gateway.createMerchant({ kycStatus: 'pending', blocked: true });
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toEqual({ error: NOT_APPROVED });
    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { kycStatus: 'approved' });
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).body).toEqual({ error: BLOCKED });
    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { blocked: false });
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
  });
});

describe('IP allowlist (requests come from 127.0.0.1)', () => {
  type AllowlistRow = { rule: string; ipAllowlist: string[]; allowed: boolean };

  const accountRows: AllowlistRow[] = [
    { rule: "['127.0.0.1']", ipAllowlist: ['127.0.0.1'], allowed: true },
    { rule: "['10.0.0.0/8']", ipAllowlist: ['10.0.0.0/8'], allowed: false },
    { rule: "['127.0.0.0/8']", ipAllowlist: ['127.0.0.0/8'], allowed: true },
    { rule: "['::1'] only (IPv4 client)", ipAllowlist: ['::1'], allowed: false },
    { rule: "['2001:db8::/32', '127.0.0.1/32']", ipAllowlist: ['2001:db8::/32', '127.0.0.1/32'], allowed: true },
    // An IPv4-mapped IPv6 entry names the same IPv4 host (platform/ipAllowlist.ts normalizes both sides).
    { rule: "['::ffff:127.0.0.1'] (IPv4-mapped form of the client)", ipAllowlist: ['::ffff:127.0.0.1'], allowed: true },
    { rule: "['127.0.0.2']", ipAllowlist: ['127.0.0.2'], allowed: false },
    { rule: "['10.0.0.1', '127.0.0.1'] (second entry matches)", ipAllowlist: ['10.0.0.1', '127.0.0.1'], allowed: true },
    { rule: 'empty list (no restriction)', ipAllowlist: [], allowed: true },
  ];

  it.each(titled(accountRows, (row) => `account list ${row.rule} → ${row.allowed ? 'allowed' : '403'}`))('%s', async (_, { ipAllowlist, allowed }) => {
    const merchant = await gateway.createMerchant({ ipAllowlist });
    const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
    if (allowed) {
      expect(reply.status).toBe(200);
    } else {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ error: IP_NOT_ALLOWED });
    }
  });

  it('the account list applies to POST /v1/pix and GET /v1/transactions too', async () => {
    const merchant = await gateway.createMerchant({ ipAllowlist: ['10.0.0.0/8'] });
    for (const endpoint of ENDPOINTS) {
      const reply = await callEndpoint(endpoint, { key: merchant.apiKey });
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ error: IP_NOT_ALLOWED });
    }
  });

  it('a PATCH of the account list takes effect at once in the same process', async () => {
    const merchant = await gateway.createMerchant();
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { ipAllowlist: ['10.0.0.0/8'] });
    expect(await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).toMatchObject({ status: 403, body: { error: IP_NOT_ALLOWED } });
    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { ipAllowlist: [] });
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
  });

  type KeyRow = { rule: string; account: string[]; key: string[] | null; allowed: boolean };

  const keyRows: KeyRow[] = [
    { rule: "account ['10.0.0.0/8'] + key ['127.0.0.1']", account: ['10.0.0.0/8'], key: ['127.0.0.1'], allowed: true },
    { rule: "account ['127.0.0.1'] + key ['10.0.0.1']", account: ['127.0.0.1'], key: ['10.0.0.1'], allowed: false },
    { rule: "account [] + key ['10.0.0.1']", account: [], key: ['10.0.0.1'], allowed: false },
    { rule: "account ['10.0.0.0/8'] + key [] (key list empty: no restriction)", account: ['10.0.0.0/8'], key: [], allowed: true },
    { rule: "account ['10.0.0.0/8'] + key null (the account's list)", account: ['10.0.0.0/8'], key: null, allowed: false },
    { rule: "account ['127.0.0.1'] + key null (the account's list)", account: ['127.0.0.1'], key: null, allowed: true },
  ];

  it.each(titled(keyRows, (row) => `key list replaces the account list: ${row.rule} → ${row.allowed ? 'allowed' : '403'}`))(
    '%s',
    async (_, { account, key, allowed }) => {
      const merchant = await gateway.createMerchant({ ipAllowlist: account });
      const patched = await gateway.admin('PATCH', `/admin/v1/api-keys/${merchant.keyId}`, { ipAllowlist: key });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ keyId: merchant.keyId, accountId: merchant.accountId, ipAllowlist: key, revoked: false });

      const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
      if (allowed) {
        expect(reply.status).toBe(200);
      } else {
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual({ error: IP_NOT_ALLOWED });
      }
    },
  );

  const resetRows = [
    { rule: "account ['10.0.0.0/8'], key ['127.0.0.1'] then null", account: ['10.0.0.0/8'], key: ['127.0.0.1'], before: 200, after: 403 },
    { rule: "account ['127.0.0.1'], key ['10.0.0.1'] then null", account: ['127.0.0.1'], key: ['10.0.0.1'], before: 403, after: 200 },
  ];

  it.each(titled(resetRows, (row) => `setting the key list back to null restores the account list: ${row.rule}`))(
    '%s',
    async (_, { account, key, before, after }) => {
      const merchant = await gateway.createMerchant({ ipAllowlist: account });
      expect((await gateway.admin('PATCH', `/admin/v1/api-keys/${merchant.keyId}`, { ipAllowlist: key })).status).toBe(200);
      expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(before);

      const reset = await gateway.admin('PATCH', `/admin/v1/api-keys/${merchant.keyId}`, { ipAllowlist: null });
      expect(reset.status).toBe(200);
      expect(reset.body.ipAllowlist).toBeNull();
      const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey });
      expect(reply.status).toBe(after);
      if (after === 403) expect(reply.body).toEqual({ error: IP_NOT_ALLOWED });
    },
  );

  it("a key's own list does not affect the account's other keys", async () => {
    const merchant = await gateway.createMerchant();
    const other = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/api-keys`);
    expect(other.status).toBe(201);
    expect((await gateway.admin('PATCH', `/admin/v1/api-keys/${merchant.keyId}`, { ipAllowlist: ['10.0.0.1'] })).status).toBe(200);
    expect(await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).toMatchObject({ status: 403, body: { error: IP_NOT_ALLOWED } });
    expect((await gateway.call('GET', '/v1/balance', { key: other.body.apiKey })).status).toBe(200);
  });

  const invalidEntries = [
    { entry: '999.1.1.1', list: ['999.1.1.1'] },
    { entry: 'abc', list: ['abc'] },
    { entry: '10.0.0.0/99', list: ['10.0.0.0/99'] },
    { entry: '10.0.0.0/99', list: ['127.0.0.1', '10.0.0.0/99'] },
  ];

  it.each(titled(invalidEntries, (row) => `account list ${JSON.stringify(row.list)} → 400 naming '${row.entry}'`))('%s', async (_, { entry, list }) => {
    const merchant = await gateway.createMerchant();
    const reply = await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, { ipAllowlist: list });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: allowlistInvalid(entry) });
    // Nothing was stored.
    expect((await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body.ipAllowlist).toEqual([]);
  });

  it.each(titled(invalidEntries, (row) => `key list ${JSON.stringify(row.list)} → 400 naming '${row.entry}'`))('%s', async (_, { entry, list }) => {
    const merchant = await gateway.createMerchant();
    const reply = await gateway.admin('PATCH', `/admin/v1/api-keys/${merchant.keyId}`, { ipAllowlist: list });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: allowlistInvalid(entry) });
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
  });
});

describe('X-Forwarded-For', () => {
  type ForwardedRow = { rule: string; ipAllowlist: string[]; forwardedFor?: string; allowed: boolean };

  const untrustedRows: ForwardedRow[] = [
    { rule: "allowlist ['127.0.0.1'] + XFF 10.1.2.3 (header ignored)", ipAllowlist: ['127.0.0.1'], forwardedFor: '10.1.2.3', allowed: true },
    { rule: "allowlist ['10.1.2.3'] + XFF 10.1.2.3 (header ignored)", ipAllowlist: ['10.1.2.3'], forwardedFor: '10.1.2.3', allowed: false },
  ];

  it.each(titled(untrustedRows, (row) => `without TRUST_PROXY: ${row.rule} → ${row.allowed ? 'allowed' : '403'}`))(
    '%s',
    async (_, { ipAllowlist, forwardedFor, allowed }) => {
      const merchant = await gateway.createMerchant({ ipAllowlist });
      const reply = await gateway.call('GET', '/v1/balance', { key: merchant.apiKey, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
      if (allowed) {
        expect(reply.status).toBe(200);
      } else {
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual({ error: IP_NOT_ALLOWED });
      }
    },
  );

  describe('on a peer with TRUST_PROXY=127.0.0.1', () => {
    let trustingPeer: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      trustingPeer = await gateway.startPeer({ TRUST_PROXY: '127.0.0.1' });
    });
    afterAll(() => trustingPeer.close());

    const trustedRows: ForwardedRow[] = [
      { rule: "allowlist ['10.1.2.3'] + XFF 10.1.2.3", ipAllowlist: ['10.1.2.3'], forwardedFor: '10.1.2.3', allowed: true },
      { rule: "allowlist ['127.0.0.1'] + XFF 10.9.9.9", ipAllowlist: ['127.0.0.1'], forwardedFor: '10.9.9.9', allowed: false },
      { rule: "allowlist ['127.0.0.1'] without XFF (the proxy itself)", ipAllowlist: ['127.0.0.1'], allowed: true },
      { rule: "allowlist ['2001:db8::/32'] + XFF 2001:db8::5", ipAllowlist: ['2001:db8::/32'], forwardedFor: '2001:db8::5', allowed: true },
      { rule: "allowlist ['2001:db8::/32'] + XFF 2001:db9::5", ipAllowlist: ['2001:db8::/32'], forwardedFor: '2001:db9::5', allowed: false },
      {
        rule: "allowlist ['10.1.2.3'] + XFF '10.1.2.3, 10.9.9.9' (only the last untrusted hop counts)",
        ipAllowlist: ['10.1.2.3'],
        forwardedFor: '10.1.2.3, 10.9.9.9',
        allowed: false,
      },
      { rule: "allowlist ['10.9.9.9'] + XFF '10.1.2.3, 10.9.9.9'", ipAllowlist: ['10.9.9.9'], forwardedFor: '10.1.2.3, 10.9.9.9', allowed: true },
    ];

    it.each(titled(trustedRows, (row) => `${row.rule} → ${row.allowed ? 'allowed' : '403'}`))('%s', async (_, { ipAllowlist, forwardedFor, allowed }) => {
      const merchant = await gateway.createMerchant({ ipAllowlist });
      const reply = await callAt(trustingPeer.url, 'GET', '/v1/balance', {
        key: merchant.apiKey,
        headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
      });
      if (allowed) {
        expect(reply.status).toBe(200);
      } else {
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual({ error: IP_NOT_ALLOWED });
      }
    });
  });
});

describe('API key creation (operator API)', () => {
  it('answers 201 with a 69-character svck_ key, its 16-character prefix and a keyId', async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', accountBody());
    expect(created.status).toBe(201);
    const reply = await gateway.admin('POST', `/admin/v1/accounts/${created.body.accountId}/api-keys`);
    expect(reply.status).toBe(201);
    const { apiKey, prefix, keyId } = reply.body;
    expect(apiKey).toMatch(API_KEY_PATTERN);
    expect(apiKey).toHaveLength(69);
    expect(prefix).toBe(apiKey.slice(0, 16));
    expect(keyId).toMatch(UUID_V7_PATTERN);
    expect((await gateway.call('GET', '/v1/balance', { key: apiKey })).status).toBe(200);
  });

  it('two keys of one account both work, and are different', async () => {
    const merchant = await gateway.createMerchant();
    const second = await gateway.admin('POST', `/admin/v1/accounts/${merchant.accountId}/api-keys`);
    expect(second.status).toBe(201);
    expect(second.body.apiKey).not.toBe(merchant.apiKey);
    expect(second.body.prefix).not.toBe(merchant.apiKey.slice(0, 16));
    expect(second.body.keyId).not.toBe(merchant.keyId);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
    expect((await gateway.call('GET', '/v1/balance', { key: second.body.apiKey })).status).toBe(200);

    // Revoking one leaves the other working.
    expect((await gateway.admin('DELETE', `/admin/v1/api-keys/${merchant.keyId}`)).status).toBe(204);
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(401);
    expect((await gateway.call('GET', '/v1/balance', { key: second.body.apiKey })).status).toBe(200);
  });

  it('the database stores no plaintext key: only a 32-byte SHA-256 hash and the public prefix', async () => {
    const merchant = await gateway.createMerchant();
    const rows = await gateway.database.db.selectFrom('apiKeys').selectAll().where('accountId', '=', merchant.accountId).execute();
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const secretPart = merchant.apiKey.slice(16);
    for (const [column, value] of Object.entries(row)) {
      const texts = Buffer.isBuffer(value)
        ? [value.toString('utf8'), value.toString('hex'), value.toString('base64'), value.toString('latin1')]
        : [JSON.stringify(value) ?? String(value)];
      for (const text of texts) {
        expect(text, `column ${column}`).not.toContain(merchant.apiKey);
        expect(text, `column ${column}`).not.toContain(secretPart);
      }
    }
    expect(Buffer.isBuffer(row.keyHash)).toBe(true);
    expect(row.keyHash).toHaveLength(32);
    expect(Buffer.from(row.keyHash).equals(createHash('sha256').update(merchant.apiKey).digest())).toBe(true);
    expect(row.prefix).toBe(merchant.apiKey.slice(0, 16));
  });

  type RefusalRow = { rule: string; account: Record<string, unknown> };
  const refusalRows: RefusalRow[] = [
    { rule: 'KYC pending', account: { kycStatus: 'pending' } },
    { rule: 'KYC rejected', account: { kycStatus: 'rejected' } },
    { rule: 'KYC omitted (defaults to pending)', account: { kycStatus: undefined } },
    { rule: 'emailVerified false', account: { emailVerified: false } },
    { rule: 'emailVerified omitted (defaults to false)', account: { emailVerified: undefined } },
    { rule: 'KYC pending and emailVerified false', account: { kycStatus: 'pending', emailVerified: false } },
  ];

  it.each(titled(refusalRows, (row) => `refused with 422 when ${row.rule}`))('%s', async (_, { account }) => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', accountBody(account));
    expect(created.status).toBe(201);
    const reply = await gateway.admin('POST', `/admin/v1/accounts/${created.body.accountId}/api-keys`);
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ error: KEY_CREATION_REFUSED });
    const rows = await gateway.database.db.selectFrom('apiKeys').select('id').where('accountId', '=', created.body.accountId).execute();
    expect(rows).toEqual([]);
  });

  it('allowed once KYC is approved and the e-mail verified', async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', accountBody({ kycStatus: 'pending', emailVerified: false }));
    const accountId = created.body.accountId;
    await gateway.admin('PATCH', `/admin/v1/accounts/${accountId}`, { kycStatus: 'approved' });
    expect((await gateway.admin('POST', `/admin/v1/accounts/${accountId}/api-keys`)).status).toBe(422);
    await gateway.admin('PATCH', `/admin/v1/accounts/${accountId}`, { emailVerified: true });
    expect((await gateway.admin('POST', `/admin/v1/accounts/${accountId}/api-keys`)).status).toBe(201);
  });
});

describe('operator API authentication', () => {
  type OperatorRow = {
    rule: string;
    method: string;
    path: (merchant: Merchant) => string;
    auth: (merchant: Merchant) => { key?: string | null; headers?: Record<string, string> };
    body?: unknown;
    status: number;
    error: string;
  };

  const adminPaths = [
    { method: 'GET', path: (m: Merchant) => `/admin/v1/accounts/${m.accountId}` },
    { method: 'POST', path: () => '/admin/v1/accounts', body: accountBody() },
    { method: 'PATCH', path: (m: Merchant) => `/admin/v1/accounts/${m.accountId}`, body: { blocked: true } },
    { method: 'POST', path: (m: Merchant) => `/admin/v1/accounts/${m.accountId}/api-keys` },
    { method: 'DELETE', path: (m: Merchant) => `/admin/v1/api-keys/${m.keyId}` },
  ];

  const credentials = [
    { rule: 'no Authorization header', auth: () => ({ key: null }), error: ADMIN_TOKEN_MISSING },
    { rule: 'Basic scheme', auth: () => ({ headers: { authorization: `Basic ${ADMIN_TOKEN}` } }), error: ADMIN_TOKEN_MISSING },
    { rule: 'token without the word Bearer', auth: () => ({ headers: { authorization: ADMIN_TOKEN } }), error: ADMIN_TOKEN_MISSING },
    { rule: 'wrong token', auth: () => ({ key: 'wrong-admin-token-0123456789abcdef' }), error: ADMIN_TOKEN_INVALID },
    { rule: 'the admin token with one character more', auth: () => ({ key: `${ADMIN_TOKEN}0` }), error: ADMIN_TOKEN_INVALID },
    { rule: "a merchant's API key", auth: (m: Merchant) => ({ key: m.apiKey }), error: ADMIN_TOKEN_INVALID },
  ];

  const rows: OperatorRow[] = adminPaths.flatMap((target) =>
    credentials.map((credential) => ({
      rule: `${target.method} ${target.path({ accountId: '{accountId}', keyId: '{keyId}', apiKey: '' })}: ${credential.rule}`,
      method: target.method,
      path: target.path,
      auth: credential.auth,
      body: target.body,
      status: 401,
      error: credential.error,
    })),
  );

  it.each(titled(rows, (row) => `${row.rule} → 401`))('%s', async (_, { method, path, auth, body, status, error }) => {
    const merchant = await gateway.createMerchant();
    const reply = await gateway.call(method, path(merchant), { ...auth(merchant), ...(body !== undefined && { body }) });
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual({ error });
    // Nothing changed: the account is not blocked and the key still works.
    expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);
  });

  it.each(ENDPOINTS)('the admin token on $method $path → 401 invalid key', async (endpoint) => {
    const reply = await callEndpoint(endpoint, { key: ADMIN_TOKEN });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: API_KEY_INVALID });
  });
});

describe('operator account calls', () => {
  it('POST creates an account whose defaults are visible in GET', async () => {
    const created = await gateway.admin('POST', '/admin/v1/accounts', {
      name: 'Loja Padrão',
      email: 'padrao@example.com',
      responsible: { name: 'João Responsável', cpf: '529.982.247-25' },
    });
    expect(created.status).toBe(201);
    expect(created.body.accountId).toMatch(UUID_V7_PATTERN);

    const read = await gateway.admin('GET', `/admin/v1/accounts/${created.body.accountId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.body).toMatchObject({
      accountId: created.body.accountId,
      name: 'Loja Padrão',
      email: 'padrao@example.com',
      emailVerified: false,
      responsible: { name: 'João Responsável', cpf: '52998224725' },
      company: null,
      kycStatus: 'pending',
      blocked: false,
      withdrawalMode: 'automatic',
      ipAllowlist: [],
      recipientLimit: 10,
      limits: { pixPerHour: 200, withdrawPerSecond: 1, withdrawPerMinute: 2, withdrawPerHour: 10 },
    });
    for (const plan of [read.body.fees.pixIn, read.body.fees.withdrawal]) {
      expect(plan).toEqual({ fixedCents: expect.any(Number), bps: expect.any(Number), minCents: expect.any(Number), maxCents: expect.any(Number) });
    }
    expect(read.body.fees).toEqual(DEFAULT_FEES);
    expect(typeof read.body.createdAt).toBe('number');
  });

  it('PATCH merges limits and fees field by field', async () => {
    const merchant = await gateway.createMerchant();
    const before = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body;

    const patched = await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, {
      limits: { pixPerHour: 500 },
      fees: { pixIn: { bps: 150 } },
    });
    expect(patched.status).toBe(200);

    const after = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body;
    expect(patched.body).toEqual(after);
    expect(after.limits).toEqual({ ...before.limits, pixPerHour: 500 });
    expect(after.fees).toEqual({ pixIn: { ...before.fees.pixIn, bps: 150 }, withdrawal: before.fees.withdrawal });
    const { limits: _l, fees: _f, updatedAt: _u, ...restAfter } = after;
    const { limits: _bl, fees: _bf, updatedAt: _bu, ...restBefore } = before;
    expect(restAfter).toEqual(restBefore);

    // A second partial patch keeps the first one.
    await gateway.admin('PATCH', `/admin/v1/accounts/${merchant.accountId}`, {
      limits: { withdrawPerHour: 20 },
      fees: { withdrawal: { fixedCents: 200, maxCents: 300 } },
    });
    const again = (await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`)).body;
    expect(again.limits).toEqual({ ...before.limits, pixPerHour: 500, withdrawPerHour: 20 });
    expect(again.fees).toEqual({ pixIn: { ...before.fees.pixIn, bps: 150 }, withdrawal: { ...before.fees.withdrawal, fixedCents: 200, maxCents: 300 } });
  });

  type ErrorRow = { rule: string; method: string; path: () => string; body?: unknown; status: number; error: string };

  const errorRows: ErrorRow[] = [
    {
      rule: 'POST with an invalid responsible CPF',
      method: 'POST',
      path: () => '/admin/v1/accounts',
      body: accountBody({ responsible: { name: 'Maria Responsável', cpf: '529.982.247-24' } }),
      status: 400,
      error: 'responsible.cpf deve ser um CPF válido.',
    },
    {
      rule: 'POST with an all-equal-digits responsible CPF',
      method: 'POST',
      path: () => '/admin/v1/accounts',
      body: accountBody({ responsible: { name: 'Maria Responsável', cpf: '111.111.111-11' } }),
      status: 400,
      error: 'responsible.cpf deve ser um CPF válido.',
    },
    { rule: 'GET an unknown account id', method: 'GET', path: () => `/admin/v1/accounts/${newId()}`, status: 404, error: ACCOUNT_NOT_FOUND },
    {
      rule: 'PATCH an unknown account id',
      method: 'PATCH',
      path: () => `/admin/v1/accounts/${newId()}`,
      body: { blocked: true },
      status: 404,
      error: ACCOUNT_NOT_FOUND,
    },
    {
      rule: 'create a key for an unknown account id',
      method: 'POST',
      path: () => `/admin/v1/accounts/${newId()}/api-keys`,
      status: 404,
      error: ACCOUNT_NOT_FOUND,
    },
    { rule: 'GET a malformed account id', method: 'GET', path: () => '/admin/v1/accounts/not-an-id', status: 400, error: ACCOUNT_ID_INVALID },
    {
      rule: 'GET an account id in upper case',
      method: 'GET',
      path: () => `/admin/v1/accounts/${newId().toUpperCase()}`,
      status: 400,
      error: ACCOUNT_ID_INVALID,
    },
    {
      rule: 'GET a UUID v4 account id',
      method: 'GET',
      path: () => '/admin/v1/accounts/3b241101-e2bb-4255-8caf-4136c566a962',
      status: 400,
      error: ACCOUNT_ID_INVALID,
    },
    {
      rule: 'PATCH a malformed account id',
      method: 'PATCH',
      path: () => '/admin/v1/accounts/123',
      body: { blocked: true },
      status: 400,
      error: ACCOUNT_ID_INVALID,
    },
    { rule: 'create a key for a malformed account id', method: 'POST', path: () => '/admin/v1/accounts/123/api-keys', status: 400, error: ACCOUNT_ID_INVALID },
  ];

  it.each(titled(errorRows, (row) => `${row.rule} → ${row.status}`))('%s', async (_, { method, path, body, status, error }) => {
    const reply = await gateway.admin(method, path(), body);
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual({ error });
  });
});

describe("a key's last use (the dashboard's Chaves de API)", () => {
  it('is written on use, then at most once a minute', async () => {
    const merchant = await gateway.createMerchant();
    const lastUse = async () => (await gateway.services.accounts.listApiKeys(merchant.accountId)).find((key) => key.id === merchant.keyId)?.lastUsedAt;
    const use = async () => expect((await gateway.call('GET', '/v1/balance', { key: merchant.apiKey })).status).toBe(200);

    await use();
    const first = await lastUse();
    expect(first).toBeInstanceOf(Date);
    gateway.clock.advance(30_000);
    await use();
    expect(await lastUse()).toEqual(first);
    gateway.clock.advance(31_000);
    await use();
    const later = (await lastUse())?.getTime() ?? 0;
    expect(later - (first?.getTime() ?? 0)).toBeGreaterThanOrEqual(61_000); // the clock runs on between the calls
    expect(later).toBeLessThanOrEqual(gateway.clock.now().getTime());
  });
});
