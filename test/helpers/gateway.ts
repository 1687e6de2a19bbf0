import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { findLedgerProblems } from '../../src/ledger/repository.js';
import { findHoldProblems } from '../../src/holds/repository.js';
import { findWithdrawnSumProblems } from '../../src/payouts/repository.js';
import { errorCode } from '../../src/platform/errors.js';
import { ManualClock } from '../../src/platform/clock.js';
import { migrate, openDatabase, type Database, type DatabaseOptions } from '../../src/platform/database.js';
import { createServices, type Services } from '../../src/services.js';
import type { AdminBody } from './admin.js';
import type { Method, SuccessBody } from './contract.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const PUBLIC_HOST = 'pix.example.com';

/** The backend under test: the PostgreSQL server when DATABASE_URL is set, in-memory PGlite otherwise. */
export const serverUrl = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
export const backend = serverUrl ? 'postgres' : 'pglite';

/** A reply as the API gave it: the body parsed from JSON (its text when not JSON, undefined when empty). */
export type Reply<T = unknown> = { status: number; body: T; headers: Headers };

type CallOptions = { key?: string | null; body?: unknown; headers?: Record<string, string>; rawBody?: string };

export type Gateway = {
  url: string;
  /** The environment the gateway was configured with (for a child process on the same database). */
  environment: Record<string, string>;
  /** On the server, the PostgreSQL schema holding this gateway's tables. */
  schema: string | undefined;
  app: FastifyInstance;
  services: Services;
  database: Database;
  clock: ManualClock;
  /**
   * A merchant API call with the given key (no Authorization header when key is null). Its body is
   * typed as the OpenAPI document's success answer for the method and path (`unknown` off the
   * document); an error answer is read with the type given, `call<ErrorBody>(…)`.
   */
  call<M extends Method, P extends string>(method: M, path: P, options?: CallOptions): Promise<Reply<SuccessBody<M, P>>>;
  call<T>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  /** An operator API call: its body typed by test/helpers/admin.ts's route table (/admin/v1 is not in the merchant document), or as the type given. */
  admin<M extends Method, P extends string>(method: M, path: P, body?: unknown): Promise<Reply<AdminBody<M, P>>>;
  admin<T>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** A merchant with approved KYC and a key; `patch` goes through PATCH /admin/v1/accounts. */
  createMerchant(patch?: Record<string, unknown>, account?: Record<string, unknown>): Promise<Merchant>;
  /** The services of another process on the same database (own pool on the server): a second worker. */
  startWorkerServices(environment?: Record<string, string>): Promise<{ services: Services; close(): Promise<void> }>;
  /** A second server (own caches) on the same database, as another process would be. */
  startPeer(environment?: Record<string, string>): Promise<{ url: string; close(): Promise<void> }>;
  ledgerProblems(): Promise<string[]>;
  close(): Promise<void>;
};

export type Merchant = { accountId: string; apiKey: string; keyId: string };

export const validCustomer = () => ({
  name: 'Ana Pagadora',
  email: 'ana@example.com',
  phone: '11987654321',
  document: { number: '529.982.247-25', type: 'cpf' },
});

/** A valid customer with some fields changed (or removed, as `undefined`). */
export const customerWith = (changes: Record<string, unknown>) => ({ ...validCustomer(), ...changes });

/** A merchant patch without charge fees: a paid charge of 1000 credits 1000 (refund and MED arithmetic). */
export const NO_CHARGE_FEES = { fees: { pixIn: { fixedCents: 0, bps: 0, minCents: 0, maxCents: 0 } } };

export const chargeBody = (overrides: Record<string, unknown> = {}) => ({ amountCents: 1000, customer: validCustomer(), ...overrides });

/** The account body `createMerchant` sends to POST /admin/v1/accounts (approved KYC, verified e-mail, a company); tests override single fields. */
export const accountBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Loja Teste',
  email: 'loja@example.com',
  emailVerified: true,
  city: 'Curitiba',
  responsible: { name: 'Maria Responsável', cpf: '529.982.247-25' },
  company: { legalName: 'Loja Teste LTDA', cnpj: '11.222.333/0001-81' },
  kycStatus: 'approved',
  ...overrides,
});

/** A POST /v1/withdraw body: R$ 10,00 to the CPF of the account's responsible person (the holder, Mode 1). */
export const withdrawalToHolder = (overrides: Record<string, unknown> = {}) => ({ amountCents: 1000, pixKey: '52998224725', pixKeyType: 'cpf', ...overrides });

async function request<T>(url: string, method: string, options: CallOptions): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body: payload });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  // The body is the type the caller names (the document's, or a schema's): the test's assertions check it.
  return { status: response.status, body: body as T, headers: response.headers };
}

let template: Buffer | undefined;

/** The migrated PGlite the global setup dumped (test/helpers/buildOnce.ts); still migrated below, which finds nothing to do. */
function migratedTemplate(): DatabaseOptions {
  const path = inject('pgliteTemplate');
  if (!path) return {};
  template ??= readFileSync(path);
  return { startFrom: new Blob([template]) };
}

export async function startGateway(environment: Record<string, string> = {}, options: { logs?: NodeJS.WritableStream } = {}): Promise<Gateway> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  if (serverUrl) {
    const bootstrap = await openDatabase({ kind: 'server', url: serverUrl }, { poolSize: 1 });
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(bootstrap.db);
    await bootstrap.close();
  }
  const database = await openDatabase(
    serverUrl ? { kind: 'server', url: serverUrl } : { kind: 'memory' },
    serverUrl ? { searchPath: schema } : migratedTemplate(),
  );
  await migrate(database.db);
  const clock = new ManualClock();
  const env = {
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN,
    SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
    PUBLIC_BASE_URL: `https://${PUBLIC_HOST}`,
    ...(serverUrl ? { DATABASE_URL: serverUrl } : {}),
    ...environment,
  };
  const config = loadConfig(env);
  const services = createServices(config, database.db, clock, { poolStats: () => database.poolStats() });
  const app = await buildApp(services, { logger: options.logs ?? false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;
  const peers: FastifyInstance[] = [];
  const closers: (() => Promise<void>)[] = [];

  const gateway: Gateway = {
    url,
    environment: env,
    schema: serverUrl ? schema : undefined,
    app,
    services,
    database,
    clock,
    call: <T>(method: string, path: string, options: CallOptions = {}) => request<T>(url + path, method, options),
    admin: <T>(method: string, path: string, body?: unknown) => request<T>(url + path, method, { key: ADMIN_TOKEN, body }),
    async createMerchant(patch, account) {
      const created = await gateway.admin('POST', '/admin/v1/accounts', accountBody(account));
      if (created.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(created.body)}`);
      const accountId = created.body.accountId;
      const key = await gateway.admin('POST', `/admin/v1/accounts/${accountId}/api-keys`);
      if (key.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(key.body)}`);
      if (patch) {
        const patched = await gateway.admin('PATCH', `/admin/v1/accounts/${accountId}`, patch);
        if (patched.status !== 200) throw new Error(`patch failed: ${JSON.stringify(patched.body)}`);
      }
      return { accountId, apiKey: key.body.apiKey, keyId: key.body.keyId };
    },
    async startWorkerServices(workerEnvironment = {}) {
      const workerDatabase = serverUrl ? await openDatabase({ kind: 'server', url: serverUrl }, { searchPath: schema }) : database;
      const workerServices = createServices(loadConfig({ ...env, ...workerEnvironment }), workerDatabase.db, clock);
      const close = async () => {
        await workerServices.webhookDispatcher.stop();
        if (workerDatabase !== database) await workerDatabase.close();
      };
      closers.push(close);
      return { services: workerServices, close };
    },
    async startPeer(peerEnvironment = {}) {
      // On the server the peer has its own connection pool, as another process would.
      const peerDatabase = serverUrl ? await openDatabase({ kind: 'server', url: serverUrl }, { searchPath: schema }) : database;
      const peerConfig = loadConfig({ ...env, ...peerEnvironment });
      // With DATABASE_READ_URL, a pool on it as the process opens one (src/cli.ts).
      const peerReads = peerConfig.databaseReadUrl ? await openDatabase({ kind: 'server', url: peerConfig.databaseReadUrl }) : undefined;
      const peerServices = createServices(peerConfig, peerDatabase.db, clock, peerReads ? { reads: peerReads.db } : {});
      const peer = await buildApp(peerServices, { logger: false });
      if (peerDatabase !== database) peer.addHook('onClose', () => peerDatabase.close());
      if (peerReads) peer.addHook('onClose', () => peerReads.close());
      await peer.listen({ port: 0, host: '127.0.0.1' });
      peers.push(peer);
      const peerAddress = peer.server.address();
      if (!peerAddress || typeof peerAddress === 'string') throw new Error('no address');
      return {
        url: `http://127.0.0.1:${peerAddress.port}`,
        close: async () => {
          peers.splice(peers.indexOf(peer), 1);
          await peer.close();
        },
      };
    },
    ledgerProblems: async () => [
      ...(await findLedgerProblems(database.db)),
      ...(await findWithdrawnSumProblems(database.db)),
      ...(await findHoldProblems(database.db)),
    ],
    async close() {
      await Promise.all([
        ...peers.map((peer) => peer.close()),
        ...closers.map((close) => close()),
        services.webhookDispatcher.stop(),
        ...services.providerInbound.map((inbound) => inbound.close()),
      ]);
      await app.close();
      if (serverUrl) await dropSchema(database, schema);
      await database.close();
    },
  };
  return gateway;
}

/**
 * Drops a test's schema. A child process killed just before (serve, worker) may still hold a
 * transaction on the server until PostgreSQL notices; the DROP then deadlocks with it: try again.
 */
async function dropSchema(database: Database, schema: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(database.db);
      return;
    } catch (error) {
      if (errorCode(error) !== DEADLOCK_DETECTED || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

const DEADLOCK_DETECTED = '40P01';

/** A merchant API call against another server (e.g. a peer), its body typed as `Gateway.call`'s. */
export function callAt<M extends Method, P extends string>(baseUrl: string, method: M, path: P, options?: CallOptions): Promise<Reply<SuccessBody<M, P>>>;
export function callAt<T>(baseUrl: string, method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
export function callAt<T>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
  return request<T>(baseUrl + path, method, options);
}

/** A PROVIDERS_FILE (DESIGN.md §14) in a folder of its own, for `startGateway({ PROVIDERS_FILE })`. */
export function providersFile(providers: Record<string, unknown>[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
  writeFileSync(path, JSON.stringify({ providers }));
  return path;
}
