import type { BenchConfig } from './config.js';
import { expectJson } from './api.js';
import { seedHistory } from './historySeed.js';
import { createMerchants } from './merchants.js';
import { measureLoad } from './load.js';
import { queryDatabase } from './postgres.js';
import { ADMIN_TOKEN, startGateway } from './processes.js';
import type { ScenarioResult } from './results.js';
import { fromLoad, loadSpec, onGateway, type Fleet } from './scenarios.js';

const log = (message: string) => process.stderr.write(`${message}\n`);

/** Goal (issue 48, DESIGN.md §24): Início of an account with 1,000,000 transactions in ≤ 50 ms at p99. */
const P99_TARGET_MS = 50;
const PASSWORD = 'senha de bench muito segura';
/**
 * Concurrent sessions on the page: a merchant's team opening Início, not an API client's fleet
 * (BENCH_HOME_CONNECTIONS; the API scenarios' 50 would measure the two cores' queue, not the page).
 */
const CONNECTIONS = Math.round(Number(process.env.BENCH_HOME_CONNECTIONS ?? '') || 4);

/** The value of `name` among a response's Set-Cookie headers. */
function cookieOf(response: Response, name: string): string | undefined {
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(';');
    const [key, ...value] = (pair ?? '').split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

const csrfFieldOf = (html: string): string => {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF field on the page');
  return token;
};

/**
 * A viewer of the account, invited through the operator API, who sets a password through the
 * invitation page and signs in through the sign-in page, as a person does: its session cookie.
 */
async function signedInCookie(url: string, accountId: string, n: number): Promise<string> {
  const invited = await expectJson<{ inviteUrl: string }>(201, url, 'POST', `/admin/v1/accounts/${accountId}/users`, {
    token: ADMIN_TOKEN,
    body: { email: `inicio${n}@example.com`, role: 'viewer' },
  });
  const invitePath = new URL(invited.inviteUrl).pathname;
  const post = async (path: string, page: Response, form: Record<string, string>) => {
    const csrf = cookieOf(page, 'svc_csrf');
    const body = new URLSearchParams({ ...form, _csrf: csrfFieldOf(await page.text()) });
    return fetch(url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(csrf ? { cookie: `svc_csrf=${csrf}` } : {}) },
      body,
    });
  };
  const accepted = await post(invitePath, await fetch(url + invitePath), { password: PASSWORD });
  if (accepted.status !== 302 && accepted.status !== 303) throw new Error(`accepting the invitation answered ${accepted.status}`);
  const signed = await post('/dashboard/entrar', await fetch(`${url}/dashboard/entrar`), { email: `inicio${n}@example.com`, password: PASSWORD });
  const session = cookieOf(signed, 'svc_session');
  if ((signed.status !== 302 && signed.status !== 303) || !session) throw new Error(`signing in answered ${signed.status} without a session`);
  return `svc_session=${session}`;
}

/** Início's reads of the daily summary and, for comparison, the same 30 days summed from the ledger's entries through their index. */
const PLANS = {
  summary: `EXPLAIN (ANALYZE, BUFFERS) SELECT day::text AS day, credited_cents, debited_cents FROM ledger_days
    WHERE account_id = $1 AND day BETWEEN (now() AT TIME ZONE 'America/Sao_Paulo')::date - 29 AND (now() AT TIME ZONE 'America/Sao_Paulo')::date ORDER BY day`,
  entries: `EXPLAIN (ANALYZE, BUFFERS) SELECT (created_at AT TIME ZONE 'America/Sao_Paulo')::date AS day,
    coalesce(sum(amount_cents) FILTER (WHERE amount_cents > 0), 0) AS credited, coalesce(-sum(amount_cents) FILTER (WHERE amount_cents < 0), 0) AS debited
    FROM ledger_entries WHERE account_id = $1 AND book = 'merchant' AND created_at >= now() - interval '30 days' GROUP BY 1 ORDER BY 1`,
};

/**
 * Início on 1,000,000 transactions (bench id `home`): one account seeded as the history scenario
 * seeds it (bench/historySeed.ts: 30 days, ledger entries and the daily summary), a viewer signed
 * in, then GET /dashboard with the session cookie from one connection (one person), then from
 * CONNECTIONS (rows home-1 and home-N); the plans of the chart's read and of the alternative it
 * replaces are printed.
 */
export async function homeScenario(config: BenchConfig, fleet: Fleet): Promise<ScenarioResult[]> {
  const setup = await startGateway({ name: 'gateway (home setup)', databaseUrl: fleet.databaseUrl });
  let accountId: string;
  try {
    const [merchant] = await createMerchants(setup.url, 1);
    if (!merchant) throw new Error('no merchant created');
    accountId = merchant.accountId;
  } finally {
    await setup.stop();
  }
  log(`  seeding ${config.historyRows.toLocaleString('en-US')} transactions…`);
  const seed = await seedHistory(fleet.databaseUrl, accountId, config.historyRows);
  log(`  seeded ${seed.rows} transactions and ${seed.entries} ledger entries in ${seed.seconds.toFixed(0)} s (${JSON.stringify(seed.steps)})`);
  const plans: string[] = [];
  for (const [name, text] of Object.entries(PLANS)) {
    const rows = await queryDatabase<{ 'QUERY PLAN': string }>(fleet.databaseUrl, text, [accountId]);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    log(`  plan (${name}):\n${plan}`);
    plans.push(`${name}: ${/Execution Time: ([\d.]+ ms)/.exec(plan)?.[1] ?? '?'}`);
  }
  const measure = (connections: number) =>
    onGateway(config, `home-${connections}`, { ...fleet, merchants: [] }, async (gateway) => {
      const cookie = await signedInCookie(gateway.url, accountId, connections);
      const load = await measureLoad({
        ...loadSpec(config, gateway, fleet.backend, () => [{ method: 'GET', path: '/dashboard', headers: { cookie } }]),
        connections,
      });
      return fromLoad(
        {
          id: `home-${connections}`,
          title: `GET /dashboard (Início), ${seed.rows.toLocaleString('en-US')} transactions in the account, ${connections} ${connections === 1 ? 'session' : 'sessions at once'}`,
          fleet,
          target: { maxP99Ms: P99_TARGET_MS },
          baseline: null,
        },
        load,
        [{ name: `p99 ≤ ${P99_TARGET_MS} ms`, ok: load.p99Ms <= P99_TARGET_MS, detail: `${load.p99Ms} ms` }],
        [`home-${connections}: seed ${seed.seconds.toFixed(0)} s; plans ${plans.join(', ')}`],
      );
    });
  // One person on the page, then a team of CONNECTIONS at once.
  return [await measure(1), await measure(CONNECTIONS)];
}
