import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type autocannon from 'autocannon';
import { expectJson, mapConcurrently } from './api.js';
import type { BenchConfig } from './config.js';
import { summarizeProfile } from './cpuProfile.js';
import { postgresCpu, processCpu, selfCpu, type CpuMeter } from './cpuTime.js';
import { measureLoad, type LoadResult, type LoadSpec } from './load.js';
import { authorization, chargeBody, createMerchants, HOLDER_CPF, type Merchant } from './merchants.js';
import { queryDatabase } from './postgres.js';
import { ADMIN_TOKEN, mainThreadProfile, PROFILE_DIR, ROOT, runCli, startGateway, type HttpProcess } from './processes.js';
import type { Check, ScenarioResult, Target } from './results.js';

/** One database the scenarios share, with its merchants once created. */
export type Fleet = { databaseUrl: string; backend: 'postgres' | 'pglite'; merchants: Merchant[] | null };

export type Measured = Omit<ScenarioResult, 'peakRssBytes' | 'profile'>;

/**
 * Runs `work` against its own `serve` process, then stops it: the figure, the peak RSS and (with
 * BENCH_PROFILE=1) the CPU profile of that process belong to this scenario alone.
 */
export async function onGateway(
  config: BenchConfig,
  scenarioId: string,
  fleet: Fleet,
  work: (gateway: HttpProcess, merchants: Merchant[]) => Promise<Measured>,
  env: Record<string, string> = {},
): Promise<ScenarioResult> {
  const profileName = config.profile ? `scenario-${scenarioId}` : undefined;
  if (profileName) rmSync(join(ROOT, PROFILE_DIR, profileName), { recursive: true, force: true });
  const gateway = await startGateway({
    name: `gateway (scenario ${scenarioId})`,
    databaseUrl: fleet.databaseUrl,
    env,
    ...(profileName ? { profileName } : {}),
  });
  let measured: Measured;
  let peakRssBytes: number | null;
  try {
    fleet.merchants ??= await createMerchants(gateway.url, config.accounts);
    measured = await work(gateway, fleet.merchants);
  } finally {
    peakRssBytes = gateway.peakRssBytes();
    await gateway.stop();
  }
  const profileFile = profileName ? mainThreadProfile(join(ROOT, PROFILE_DIR, profileName)) : null;
  const window = measured.load?.window ?? measured.window;
  const profile = profileFile && window ? summarizeProfile(profileFile, window) : undefined;
  return { ...measured, peakRssBytes, ...(profile ? { profile } : {}) };
}

/** The CPU meters of a scenario: the gateway, PostgreSQL (when it is the database) and the load generator. */
export const scenarioMeters = (gateway: HttpProcess, backend: Fleet['backend']): CpuMeter[] => [
  processCpu('gateway', gateway.pid),
  ...(backend === 'postgres' ? [postgresCpu('postgres')] : []),
  selfCpu('bench'),
];

export function loadSpec(
  config: BenchConfig,
  gateway: HttpProcess,
  backend: Fleet['backend'],
  requestsFor: LoadSpec['requestsFor'],
  onResponse?: LoadSpec['onResponse'],
): LoadSpec {
  return {
    url: gateway.url,
    connections: config.connections,
    durationSeconds: config.durationSeconds,
    warmupSeconds: config.warmupSeconds,
    cpuMeters: scenarioMeters(gateway, backend),
    requestsFor,
    ...(onResponse ? { onResponse } : {}),
  };
}

export function fromLoad(
  fields: { id: string; title: string; fleet: Fleet; target: Target | null; baseline: ScenarioResult['baseline'] },
  load: LoadResult,
  checks: Check[] = [],
  notes: string[] = [],
): Measured {
  const unexpected = Object.entries(load.statusCodes).filter(([code]) => !code.startsWith('2'));
  return {
    id: fields.id,
    title: fields.title,
    database: fields.fleet.backend,
    requestsPerSecond: load.requestsPerSecond,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    non2xx: load.non2xx,
    errors: load.errors,
    statusCodes: load.statusCodes,
    cpuMsPerRequest: load.cpuMsPerRequest,
    othersPercentOfCore: load.othersPercentOfCore,
    target: fields.target,
    baseline: fields.baseline,
    checks,
    notes: unexpected.length ? [...notes, `status codes: ${unexpected.map(([code, count]) => `${code}×${count}`).join(', ')}`] : notes,
    load,
  };
}

/** Connection `index` acts as merchant `index mod N`: every merchant gets the same share of the load. */
/** The merchant a load connection uses: connections are spread over the accounts in turn. */
export function merchantOf(merchants: readonly Merchant[], index: number): Merchant {
  const merchant = merchants[index % merchants.length];
  if (!merchant) throw new Error('no merchants to spread the load over');
  return merchant;
}

const jsonHeaders = (merchant: Merchant) => ({ ...authorization(merchant), 'content-type': 'application/json' });

const chargeRequests =
  (merchants: Merchant[]) =>
  (index: number): autocannon.Request[] => [{ method: 'POST', path: '/v1/pix', headers: jsonHeaders(merchantOf(merchants, index)), body: chargeBody }];

/** At least `count` charges per merchant (scenario 1 leaves plenty; this covers BENCH_ONLY runs); their ids, newest first. */
async function chargeIds(gateway: HttpProcess, merchants: Merchant[], count: number): Promise<string[][]> {
  return mapConcurrently(merchants, 8, async (merchant) => {
    const list = async () =>
      (
        await expectJson<{ transactions: { transactionId: string }[] }>(200, gateway.url, 'GET', `/v1/transactions?type=pix_in&limit=${Math.min(count, 100)}`, {
          token: merchant.apiKey,
        })
      ).transactions.map((transaction) => transaction.transactionId);
    const ids = await list();
    if (ids.length >= count) return ids;
    for (let missing = count - ids.length; missing > 0; missing--) {
      await expectJson(201, gateway.url, 'POST', '/v1/pix', { token: merchant.apiKey, body: JSON.parse(chargeBody) });
    }
    return list();
  });
}

/** Scenario 1 (and 6 on PGlite): POST /v1/pix, a new charge per request. */
export const chargeScenario = (config: BenchConfig, fleet: Fleet, id: string): Promise<ScenarioResult> =>
  onGateway(config, id, fleet, async (gateway, merchants) => {
    const load = await measureLoad(loadSpec(config, gateway, fleet.backend, chargeRequests(merchants)));
    const onServer = fleet.backend === 'postgres';
    return fromLoad(
      {
        id,
        title: `POST /v1/pix (new charges)${onServer ? '' : ', PGlite memory://'}`,
        fleet,
        // Issue 5's throughput and latency; issue 27's share of pgbench and CPU per charge.
        target: onServer ? { minRequestsPerSecond: 5000, minPgbenchPercent: 60, maxCpuMsPerRequest: 0.45, maxP99Ms: 25 } : null,
        baseline: onServer ? 'pgbench+hello' : 'hello',
      },
      load,
    );
  });

/** Scenario 2a: GET /v1/transactions/{id}, cycling over 100 charges of the connection's merchant. */
export const readTransactionScenario = (config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> =>
  onGateway(config, '2a', fleet, async (gateway, merchants) => {
    const ids = await chargeIds(gateway, merchants, 100);
    const requestsFor = (index: number): autocannon.Request[] =>
      (ids[index % merchants.length] ?? []).map((transactionId) => ({
        method: 'GET',
        path: `/v1/transactions/${transactionId}`,
        headers: authorization(merchantOf(merchants, index)),
      }));
    const load = await measureLoad(loadSpec(config, gateway, fleet.backend, requestsFor));
    return fromLoad(
      { id: '2a', title: 'GET /v1/transactions/{id}', fleet, target: { minRequestsPerSecond: 15_000, minHelloPercent: 25, maxP99Ms: 10 }, baseline: 'hello' },
      load,
    );
  });

/** Scenario 2b: GET /v1/balance. */
export const balanceScenario = (config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> =>
  onGateway(config, '2b', fleet, async (gateway, merchants) => {
    const requestsFor = (index: number): autocannon.Request[] => [{ method: 'GET', path: '/v1/balance', headers: authorization(merchantOf(merchants, index)) }];
    const load = await measureLoad(loadSpec(config, gateway, fleet.backend, requestsFor));
    return fromLoad({ id: '2b', title: 'GET /v1/balance', fleet, target: { minRequestsPerSecond: 15_000, maxP99Ms: 10 }, baseline: 'hello' }, load);
  });

/** Scenario 3: GET /v1/transactions?limit=50 over merchants with at least 50 charges each (full pages). */
export const listScenario = (config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> =>
  onGateway(config, '3', fleet, async (gateway, merchants) => {
    await chargeIds(gateway, merchants, 50);
    const requestsFor = (index: number): autocannon.Request[] => [
      { method: 'GET', path: '/v1/transactions?limit=50', headers: authorization(merchantOf(merchants, index)) },
    ];
    const load = await measureLoad(loadSpec(config, gateway, fleet.backend, requestsFor));
    return fromLoad({ id: '3', title: 'GET /v1/transactions?limit=50', fleet, target: { minRequestsPerSecond: 5000 }, baseline: 'hello' }, load);
  });

/** Statuses whose debit stands (a failed/rejected/cancelled withdrawal's debit is reversed). */
const DEBIT_REVERSED = ['failed', 'rejected', 'cancelled'];

type Debits = Map<string, { count: number; cents: number }>;

async function withdrawalDebits(databaseUrl: string): Promise<Debits> {
  const rows = await queryDatabase<{ account_id: string; count: number; cents: string }>(
    databaseUrl,
    `SELECT account_id, count(*)::int AS count, coalesce(sum(amount_cents + fee_cents), 0)::text AS cents
       FROM transactions WHERE type = 'withdrawal' AND status <> ALL($1) GROUP BY account_id`,
    [DEBIT_REVERSED],
  );
  return new Map(rows.map((row) => [row.account_id, { count: row.count, cents: Number(row.cents) }]));
}

const availableOf = async (gateway: HttpProcess, merchants: Merchant[]) =>
  mapConcurrently(
    merchants,
    8,
    async (merchant) => (await expectJson<{ available: number }>(200, gateway.url, 'GET', '/v1/balance', { token: merchant.apiKey })).available,
  );

/** What every bench account is credited before the withdrawal load: far more than a run withdraws. */
const WITHDRAWAL_FUNDING_CENTS = 1_000_000_000;

/**
 * Scenario 4: POST /v1/withdraw (R$ 1,00 + R$ 1,00 fee, Mode 1 to the holder's CPF) from funded
 * accounts. Afterwards each account's balance must equal its balance before minus the debits of
 * the withdrawals the database holds (the load stops with requests in flight, so the count of
 * 201s the client saw is a lower bound, not the reference), and the ledger invariants must hold.
 */
export const withdrawalScenario = (config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> =>
  onGateway(config, '4', fleet, async (gateway, merchants) => {
    await mapConcurrently(merchants, 8, (merchant) =>
      expectJson(201, gateway.url, 'POST', `/admin/v1/accounts/${merchant.accountId}/adjustments`, {
        token: ADMIN_TOKEN,
        body: { amountCents: WITHDRAWAL_FUNDING_CENTS, reason: 'fundos do benchmark' },
      }),
    );
    const availableBefore = await availableOf(gateway, merchants);
    const debitsBefore = await withdrawalDebits(fleet.databaseUrl);
    const created = new Array<number>(merchants.length).fill(0);
    const body = JSON.stringify({ amountCents: 100, pixKey: HOLDER_CPF, pixKeyType: 'cpf' });
    const requestsFor = (index: number): autocannon.Request[] => [
      { method: 'POST', path: '/v1/withdraw', headers: jsonHeaders(merchantOf(merchants, index)), body },
    ];
    const onResponse = (index: number, statusCode: number) => {
      if (statusCode === 201 && index >= 0) created[index % merchants.length]! += 1;
    };
    const load = await measureLoad(loadSpec(config, gateway, fleet.backend, requestsFor, onResponse));
    await sleep(1000); // requests still in flight when autocannon stopped finish on the server

    const availableAfter = await availableOf(gateway, merchants);
    const debitsAfter = await withdrawalDebits(fleet.databaseUrl);
    let exactAccounts = 0;
    let withdrawals = 0;
    merchants.forEach((merchant, index) => {
      const before = debitsBefore.get(merchant.accountId) ?? { count: 0, cents: 0 };
      const after = debitsAfter.get(merchant.accountId) ?? { count: 0, cents: 0 };
      withdrawals += after.count - before.count;
      if ((availableBefore[index] ?? 0) - (availableAfter[index] ?? 0) === after.cents - before.cents) exactAccounts++;
    });
    const seen = created.reduce((sum, count) => sum + count, 0);
    const doctor = await runCli('doctor', fleet.databaseUrl);
    const checks: Check[] = [
      {
        name: 'balance exact',
        ok: exactAccounts === merchants.length,
        detail: `${exactAccounts}/${merchants.length} accounts: balance before − after = debits of their ${withdrawals.toLocaleString('en-US')} withdrawals`,
      },
      { name: 'ledger invariants', ok: doctor.code === 0, detail: doctor.output.split('\n').slice(0, 3).join('; ') },
    ];
    const notes = [
      `${withdrawals.toLocaleString('en-US')} withdrawals in the database, ${seen.toLocaleString('en-US')} 201s seen by the client (the rest were in flight when the load stopped)`,
    ];
    return fromLoad(
      {
        id: '4',
        title: 'POST /v1/withdraw (funded accounts)',
        fleet,
        target: { minRequestsPerSecond: 2000, minPgbenchPercent: 30, maxCpuMsPerRequest: 1.2 },
        baseline: 'pgbench+hello',
      },
      load,
      checks,
      notes,
    );
  });

/** A scenario that could not run: a row saying why, so the table keeps its shape. */
export function unavailableScenario(id: string, title: string, database: ScenarioResult['database'], reason: string): ScenarioResult {
  return {
    id,
    title,
    database,
    requestsPerSecond: null,
    p50Ms: null,
    p99Ms: null,
    non2xx: 0,
    errors: 0,
    statusCodes: {},
    cpuMsPerRequest: {},
    othersPercentOfCore: null,
    peakRssBytes: null,
    target: null,
    baseline: null,
    checks: [],
    notes: [],
    unavailable: reason,
  };
}

/** The two simulated providers of the failover scenario, in a PROVIDERS_FILE of their own. */
function failoverProvidersFile(): string {
  const folder = mkdtempSync(join(tmpdir(), 'bench-providers-'));
  const path = join(folder, 'providers.json');
  writeFileSync(
    path,
    JSON.stringify({
      providers: [
        { id: 'psp-a', kind: 'simulated' },
        { id: 'psp-b', kind: 'simulated' },
      ],
    }),
  );
  return path;
}

/** How long after the kill counts as "during the failover": the breaker's first open period and its first probe. */
const FAILOVER_WINDOW_SECONDS = 3;

/**
 * Scenario 7 (DESIGN.md §14): POST /v1/pix at full rate with two simulated providers splitting
 * the charges; at mid-run one is killed (its outage switch: connection refused). Measured in three
 * back-to-back windows — before, the 3 s after the kill, and after — with the success rate over
 * all of them and the charges the dead provider took after the kill (none may be).
 */
export const failoverScenario = (config: BenchConfig, fleet: Fleet): Promise<ScenarioResult> =>
  onGateway(
    config,
    '7',
    fleet,
    async (gateway, merchants) => {
      const spec = loadSpec(config, gateway, fleet.backend, chargeRequests(merchants));
      const phaseSeconds = Math.max(3, Math.round(config.durationSeconds / 2));
      const before = await measureLoad({ ...spec, durationSeconds: phaseSeconds });
      const killedAt = new Date();
      await expectJson(200, gateway.url, 'POST', '/sandbox/v1/providers/psp-a/outage', { token: ADMIN_TOKEN, body: { mode: 'down' } });
      const during = await measureLoad({ ...spec, warmupSeconds: 0, durationSeconds: FAILOVER_WINDOW_SECONDS });
      const after = await measureLoad({ ...spec, warmupSeconds: 0, durationSeconds: phaseSeconds });
      await sleep(500); // requests in flight when the load stopped finish on the server
      const [dead] = await queryDatabase<{ count: number }>(
        fleet.databaseUrl,
        `SELECT count(*)::int AS count FROM transactions WHERE provider_id = 'psp-a' AND created_at > $1`,
        [killedAt],
      );
      const phases = [before, during, after];
      const total = phases.reduce((sum, phase) => sum + phase.total, 0);
      const failed = phases.reduce((sum, phase) => sum + phase.non2xx + phase.errors, 0);
      const successPercent = total === 0 ? 0 : (100 * (total - failed)) / total;
      const checks: Check[] = [
        { name: '≥ 99.9% succeed', ok: successPercent >= 99.9, detail: `${successPercent.toFixed(3)}% of ${total.toLocaleString('en-US')} (${failed} failed)` },
        {
          name: 'p99 during < 3× steady',
          ok: during.p99Ms < 3 * before.p99Ms,
          detail: `p99 ${during.p99Ms} ms during, ${before.p99Ms} ms before`,
        },
        { name: 'none from the dead PSP', ok: (dead?.count ?? 0) === 0, detail: `${dead?.count ?? 0} charges bound to psp-a after the kill` },
      ];
      const describe = (name: string, phase: LoadResult) =>
        `${name}: ${Math.round(phase.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${phase.p50Ms} ms, p99 ${phase.p99Ms} ms, ${phase.non2xx + phase.errors} failed of ${phase.total.toLocaleString('en-US')}`;
      const notes = [describe('before', before), describe(`during (${FAILOVER_WINDOW_SECONDS} s after the kill)`, during), describe('after', after)];
      return fromLoad(
        { id: '7', title: 'failover: POST /v1/pix, one of two PSPs killed mid-run', fleet, target: null, baseline: 'hello' },
        during,
        checks,
        notes,
      );
    },
    { PROVIDERS_FILE: failoverProvidersFile() },
  );
