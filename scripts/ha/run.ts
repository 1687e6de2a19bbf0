// The load, the failovers and the checks of `npm run test:ha` (docs/ha.md). scripts/ha/run.sh
// builds the cluster and hands over its description (cluster.json); this runs 2 serves and a
// worker against HAProxy, drives charges, payments, refunds and withdrawals from 16 clients,
// SIGKILLs the leader's postmaster twice, then proves that every answered effect exists once.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { HOLDER_CPF, UNLIMITED } from '../../bench/merchants.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN_TOKEN = 'ha-admin-token-0123456789abcdef0123';
const SECRET_KEY = 'ha-secret-key-0123456789abcdef0123456789abcd';
const CLIENTS = 16;
const FUND_CENTS = 50_000_000;
/** The load runs at least this long, and until the second failover is over plus SETTLE_AFTER_MS. */
const MIN_LOAD_MS = 45_000;
const SETTLE_AFTER_MS = 10_000;
const FIRST_KILL_AFTER_MS = 10_000;
/** Time with the new leader before the second kill. */
const BETWEEN_KILLS_MS = 10_000;

const MSG = {
  unavailable: 'Serviço temporariamente indisponível. Tente novamente em instantes.',
  pixRetry: 'Erro ao comunicar com gateway. Tente novamente.',
  withdrawNotDebited: 'Erro ao processar saque. O valor não foi debitado.',
  refundNotDebited: 'Erro ao processar devolução. O valor não foi debitado.',
  withdrawInterrupted: /^Saque iniciado mas confirmação interrompida\. Consulte \/v1\/transactions\/([0-9a-f-]+)$/,
};

// ---------------------------------------------------------------------------------------------
// Small helpers for untyped JSON

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (value: unknown, name: string): unknown => (isObject(value) ? value[name] : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

type Node = { name: string; restPort: number; pgPort: number; dataDir: string };
type Cluster = { dir: string; pidsFile: string; haproxyPort: number; receiverPort: number; databaseUrl: string; nodes: Node[] };

function readCluster(path: string): Cluster {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const nodes = field(raw, 'nodes');
  if (!Array.isArray(nodes)) throw new Error(`${path}: no nodes`);
  return {
    dir: str(field(raw, 'dir')) ?? '',
    pidsFile: str(field(raw, 'pidsFile')) ?? '',
    haproxyPort: num(field(raw, 'haproxyPort')) ?? 0,
    receiverPort: num(field(raw, 'receiverPort')) ?? 0,
    databaseUrl: str(field(raw, 'databaseUrl')) ?? '',
    nodes: nodes.map((node: unknown) => ({
      name: str(field(node, 'name')) ?? '',
      restPort: num(field(node, 'restPort')) ?? 0,
      pgPort: num(field(node, 'pgPort')) ?? 0,
      dataDir: str(field(node, 'dataDir')) ?? '',
    })),
  };
}

const now = () => Date.now();
let T0 = now();
const elapsed = (at = now()) => ((at - T0) / 1000).toFixed(1);
const log = (line: string) => process.stdout.write(`[${elapsed()}s] ${line}\n`);

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>, intervalMs = 250): Promise<T> {
  const deadline = now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== null && value !== undefined && value !== false) return value;
    } catch {
      // not yet
    }
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP

type Reply = { status: number; body: unknown; error?: string };

/** One HTTP call; a network error or timeout answers status 0 with the error. */
async function call(baseUrl: string, method: string, path: string, token: string, body?: unknown, timeoutMs = 20_000): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed };
  } catch (error) {
    return { status: 0, body: undefined, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

async function expectStatus(expected: number, baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<unknown> {
  const reply = await call(baseUrl, method, path, token, body);
  if (reply.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${reply.status} ${JSON.stringify(reply.body) ?? reply.error}`);
  return reply.body;
}

// ---------------------------------------------------------------------------------------------
// Processes

type Child = { name: string; child: ChildProcess; logFile: string; exited: Promise<void>; exit: { code: number | null; signal: string | null } | null };

function startChild(cluster: Cluster, name: string, args: string[], env: Record<string, string>): Child {
  const logFile = join(cluster.dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  // Its own process group, so run.sh's teardown can stop it (and only it) if this runner dies.
  const child = spawn(process.execPath, ['dist/cli.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd], detached: true });
  if (child.pid === undefined) throw new Error(`${name}: could not start`);
  appendFileSync(cluster.pidsFile, `gateway ${child.pid}\n`);
  const record: Child = { name, child, logFile, exit: null, exited: Promise.resolve() };
  record.exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      record.exit = { code, signal };
      resolve();
    }),
  );
  return record;
}

async function stopChild(child: Child): Promise<void> {
  if (child.exit) return;
  child.child.kill('SIGTERM');
  const stopped = await Promise.race([child.exited.then(() => true), sleep(20_000).then(() => false)]);
  if (!stopped) {
    child.child.kill('SIGKILL');
    await child.exited;
  }
}

function runCli(cluster: Cluster, command: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/cli.js', command], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code: code ?? 1, output: output.trim() }));
  });
}

// ---------------------------------------------------------------------------------------------
// Patroni

type Member = { name: string; role: string; state: string; timeline?: number };

async function clusterMembers(cluster: Cluster): Promise<Member[]> {
  // Any node's REST API answers for the whole cluster; the first that answers wins.
  for (const node of cluster.nodes) {
    try {
      const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(2_000) });
      const body: unknown = await response.json();
      const members = field(body, 'members');
      if (!Array.isArray(members)) continue;
      return members.map((member: unknown) => ({
        name: str(field(member, 'name')) ?? '',
        role: str(field(member, 'role')) ?? '',
        state: str(field(member, 'state')) ?? '',
        timeline: num(field(member, 'timeline')),
      }));
    } catch {
      // next node
    }
  }
  return [];
}

const runningLeader = (members: Member[]) => members.find((member) => member.role === 'leader' && member.state === 'running');

/** A write-capable connection through HAProxy answers (a fresh one, as the pool would open). */
async function haproxyReachesPrimary(cluster: Cluster): Promise<boolean> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl, connectionTimeoutMillis: 2_000, query_timeout: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const result = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
    return result.rows[0]?.recovery === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

type Failover = {
  killed: string;
  postmasterPid: number;
  killedAt: number;
  newLeader: string;
  leaderAt: number;
  writableAt: number;
  wholeAt: number | null;
  /** pg_stat_replication on the leader just before the kill: each standby's sync_state. */
  standbys: string[];
  /** Both serves' /readyz answered 200 again. */
  readyAt: number;
};

/** The leader's view of its standbys (application_name sync_state), through HAProxy. */
async function replicationState(cluster: Cluster): Promise<string[]> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const result = await client.query<{ name: string; state: string }>(
      'SELECT application_name AS name, sync_state AS state FROM pg_stat_replication ORDER BY 1',
    );
    return result.rows.map((row) => `${row.name} ${row.state}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function killLeader(cluster: Cluster): Promise<Failover> {
  const members = await clusterMembers(cluster);
  const leader = runningLeader(members);
  if (!leader) throw new Error(`no running leader to kill: ${JSON.stringify(members)}`);
  const node = cluster.nodes.find((candidate) => candidate.name === leader.name);
  if (!node) throw new Error(`unknown node ${leader.name}`);
  const pid = Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (!cmdline.includes(node.dataDir)) throw new Error(`pid ${pid} is not ${node.name}'s postmaster: ${cmdline}`);
  const standbys = await replicationState(cluster);
  const killedAt = now();
  process.kill(pid, 'SIGKILL');
  log(`SIGKILL to ${leader.name}'s postmaster (pid ${pid})`);
  const next = await waitFor(
    'a new leader',
    120_000,
    async () => {
      const found = runningLeader(await clusterMembers(cluster));
      return found && found.name !== leader.name ? found : null;
    },
    100,
  );
  const leaderAt = now();
  log(`${next.name} leads (timeline ${next.timeline ?? '?'}) after ${((leaderAt - killedAt) / 1000).toFixed(1)}s without a leader`);
  await waitFor('HAProxy to route to the new leader', 60_000, () => haproxyReachesPrimary(cluster), 100);
  const writableAt = now();
  log(`HAProxy routes writes to the leader ${((writableAt - killedAt) / 1000).toFixed(1)}s after the kill`);
  return { killed: leader.name, postmasterPid: pid, killedAt, newLeader: next.name, leaderAt, writableAt, wholeAt: null, standbys, readyAt: writableAt };
}

/** Leader plus a synchronous standby running: a failover is possible again. */
async function waitForSyncStandby(cluster: Cluster, timeoutMs: number): Promise<void> {
  await waitFor('a synchronous standby', timeoutMs, async () => {
    const members = await clusterMembers(cluster);
    return runningLeader(members) && members.some((member) => member.role === 'sync_standby' && member.state === 'running');
  });
}

// ---------------------------------------------------------------------------------------------
// Webhook receiver

type Received = { eventId: string; event: string; transactionId: string | undefined; at: number };

async function startReceiver(port: number): Promise<{ received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const header = (name: string) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const transactionId = str(field(body, 'transactionId')) ?? str(field(field(body, 'data'), 'transactionId'));
      received.push({ eventId: header('x-svc-event-id') ?? '', event: header('x-svc-event') ?? '', transactionId, at: now() });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The load

type Op = 'charge' | 'pay' | 'refund' | 'withdraw' | 'query';
type Attempt = { op: Op; gateway: number; at: number; status: number; error?: string; message?: string; duringSwitch: boolean };
type Merchant = { index: number; accountId: string; apiKey: string };

type Effects = {
  charges: Map<string, { merchant: number; externalRef: string; amountCents: number; paid: boolean }>;
  refunds: Map<string, { merchant: number; chargeId: string; externalRef: string; amountCents: number }>;
  withdrawals: Map<string, { merchant: number; externalRef: string; totalDeducted: number }>;
  /** externalRef → every transaction id a 2xx answered for it (more than one would be a double). */
  answeredIds: Map<string, Set<string>>;
};

class Load {
  readonly attempts: Attempt[] = [];
  readonly effects: Effects = { charges: new Map(), refunds: new Map(), withdrawals: new Map(), answeredIds: new Map() };
  readonly problems: string[] = [];
  readonly notes: string[] = [];
  /** Withdrawals answered "Consulte …" whose query found nothing: retried with the same externalRef. */
  interruptedNotFound = 0;
  interruptedFound = 0;
  switching = false;
  private stopAt = Number.POSITIVE_INFINITY;
  private seq = 0;

  constructor(
    private readonly gateways: string[],
    private readonly merchants: Merchant[],
  ) {}

  stop(at: number): void {
    this.stopAt = at;
  }

  private record(op: Op, gateway: number, reply: Reply): void {
    const message = str(field(reply.body, 'error'));
    this.attempts.push({ op, gateway, at: now(), status: reply.status, error: reply.error, message, duringSwitch: this.switching });
    if (reply.status >= 500 && reply.status !== 502 && reply.status !== 503)
      this.problems.push(`${op} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }

  private answered(ref: string, id: string): void {
    const ids = this.effects.answeredIds.get(ref) ?? new Set<string>();
    ids.add(id);
    this.effects.answeredIds.set(ref, ids);
  }

  /**
   * Sends until a definitive answer, per the spec's retry rules: a 2xx is kept; 503, the
   * retryable 502s and a lost answer are retried after a short wait (same body, same
   * externalRef), on the other serve; anything else is handed back.
   */
  private async untilDefinitive(op: Op, merchant: Merchant, method: string, path: string, body: unknown, retryable: (reply: Reply) => boolean): Promise<Reply> {
    const deadline = now() + 180_000;
    let gateway = merchant.index % this.gateways.length;
    let tries = 0;
    for (;;) {
      const reply = await call(this.gateways[gateway] ?? '', method, path, merchant.apiKey, body);
      this.record(op, gateway, reply);
      tries++;
      if (!(reply.status === 0 || retryable(reply)) || now() > deadline)
        return { ...reply, error: reply.error ?? (tries > 1 ? `after ${tries} tries` : undefined) };
      gateway = (gateway + 1) % this.gateways.length;
      await sleep(300 + Math.random() * 400);
    }
  }

  private unexpected(op: string, reply: Reply): void {
    this.problems.push(`${op}: unexpected answer ${reply.status} ${JSON.stringify(reply.body) ?? ''} ${reply.error ?? ''}`.trim());
  }

  private async readTransaction(merchant: Merchant, id: string): Promise<Reply> {
    return this.untilDefinitive('query', merchant, 'GET', `/v1/transactions/${id}`, undefined, (reply) => reply.status === 503);
  }

  async client(merchant: Merchant): Promise<void> {
    let round = 0;
    while (now() < this.stopAt) {
      round++;
      const chargeId = await this.charge(merchant);
      if (chargeId && (await this.pay(merchant, chargeId)) && round % 2 === 0) await this.refund(merchant, chargeId);
      if (round % 2 === 1) await this.withdraw(merchant);
    }
  }

  private async charge(merchant: Merchant): Promise<string | null> {
    const externalRef = `ha-c-${merchant.index}-${++this.seq}`;
    const amountCents = 1_000 + Math.floor(Math.random() * 4_000);
    const body = {
      amountCents,
      externalRef,
      customer: { name: 'Ana Pagadora', email: 'ana@example.com', phone: '11987654321', document: { number: '529.982.247-25', type: 'cpf' } },
    };
    const reply = await this.untilDefinitive(
      'charge',
      merchant,
      'POST',
      '/v1/pix',
      body,
      (r) => r.status === 503 || (r.status === 502 && field(r.body, 'error') === MSG.pixRetry),
    );
    const id = str(field(reply.body, 'transactionId'));
    if ((reply.status === 201 || reply.status === 200) && id) {
      this.answered(externalRef, id);
      this.effects.charges.set(id, { merchant: merchant.index, externalRef, amountCents, paid: false });
      return id;
    }
    this.unexpected('POST /v1/pix', reply);
    return null;
  }

  private async pay(merchant: Merchant, chargeId: string): Promise<boolean> {
    let retried = false;
    const reply = await this.untilDefinitive('pay', merchant, 'POST', `/sandbox/v1/pix/${chargeId}/pay`, undefined, (r) => {
      const again = r.status === 503;
      retried ||= again || r.status === 0;
      return again;
    });
    const charge = this.effects.charges.get(chargeId);
    if (reply.status === 200) {
      if (charge) charge.paid = true;
      return true;
    }
    // A retry of a payment whose first answer was lost finds the charge paid already: ask.
    if (retried && reply.status === 422) {
      const read = await this.readTransaction(merchant, chargeId);
      if (read.status === 200 && field(read.body, 'status') === 'paid') {
        if (charge) charge.paid = true;
        this.notes.push(`pay ${chargeId}: a retry after a lost answer found it paid (422), confirmed by GET`);
        return true;
      }
    }
    this.unexpected(`POST /sandbox/v1/pix/${chargeId}/pay`, reply);
    return false;
  }

  private async refund(merchant: Merchant, chargeId: string): Promise<void> {
    const externalRef = `ha-r-${merchant.index}-${++this.seq}`;
    const amountCents = 300;
    const reply = await this.untilDefinitive(
      'refund',
      merchant,
      'POST',
      `/v1/transactions/${chargeId}/refunds`,
      { amountCents, externalRef, reason: 'teste HA' },
      (r) => r.status === 503 || (r.status === 502 && field(r.body, 'error') === MSG.refundNotDebited),
    );
    const id = str(field(reply.body, 'refundId'));
    if ((reply.status === 201 || reply.status === 200) && id) {
      this.answered(externalRef, id);
      this.effects.refunds.set(id, { merchant: merchant.index, chargeId, externalRef, amountCents });
      return;
    }
    this.unexpected(`POST /v1/transactions/${chargeId}/refunds`, reply);
  }

  private async withdraw(merchant: Merchant): Promise<void> {
    const externalRef = `ha-w-${merchant.index}-${++this.seq}`;
    const body = { amountCents: 200 + Math.floor(Math.random() * 300), pixKey: HOLDER_CPF, pixKeyType: 'cpf', externalRef };
    for (let round = 0; round < 5; round++) {
      const reply = await this.untilDefinitive(
        'withdraw',
        merchant,
        'POST',
        '/v1/withdraw',
        body,
        (r) => r.status === 503 || (r.status === 502 && field(r.body, 'error') === MSG.withdrawNotDebited),
      );
      const id = str(field(reply.body, 'transactionId'));
      if ((reply.status === 201 || reply.status === 200) && id) {
        this.answered(externalRef, id);
        this.effects.withdrawals.set(id, { merchant: merchant.index, externalRef, totalDeducted: num(field(reply.body, 'totalDeducted')) ?? Number.NaN });
        return;
      }
      const interrupted = reply.status === 502 ? MSG.withdrawInterrupted.exec(str(field(reply.body, 'error')) ?? '') : null;
      if (interrupted?.[1]) {
        // Not retried: the transaction is queried (the spec's rule), once the database answers.
        const id = interrupted[1];
        const read = await this.readTransaction(merchant, id);
        if (read.status === 200) {
          this.interruptedFound++;
          this.answered(externalRef, id);
          const amount = num(field(read.body, 'amountCents')) ?? 0;
          const fee = num(field(read.body, 'feeCents')) ?? 0;
          this.effects.withdrawals.set(id, { merchant: merchant.index, externalRef, totalDeducted: amount + fee });
          return;
        }
        if (read.status === 404) {
          // Its commit was lost with the old primary: nothing was debited, and the same externalRef is safe to send again.
          this.interruptedNotFound++;
          this.notes.push(`withdraw ${externalRef}: "Consulte /v1/transactions/${id}" then 404; sent again with the same externalRef`);
          continue;
        }
        this.unexpected(`GET /v1/transactions/${id} after "Consulte"`, read);
        return;
      }
      this.unexpected('POST /v1/withdraw', reply);
      return;
    }
    this.problems.push(`withdraw ${externalRef}: no definitive answer after 5 rounds`);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const clusterFile = process.argv[2];
  if (!clusterFile) throw new Error('usage: run.ts <cluster.json>');
  const cluster = readCluster(clusterFile);
  T0 = now();
  const env: Record<string, string> = {
    DATABASE_URL: cluster.databaseUrl,
    ADMIN_TOKEN,
    SECRET_KEY,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SANDBOX_SETTLE_MS: '1500',
    // Failed webhook attempts during a switch come back within seconds, not minutes.
    WEBHOOK_RETRY_SCHEDULE: '2,5,10,20,40',
  };

  const migrated = await runCli(cluster, 'migrate', env);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.output}`);
  log('migrations applied');

  const receiver = await startReceiver(cluster.receiverPort);
  const ports = [await freePort(), await freePort()];
  const serves = ports.map((port, index) => startChild(cluster, `serve${index + 1}`, ['serve'], { ...env, PORT: String(port) }));
  const worker = startChild(cluster, 'worker', ['worker'], { ...env, PORT: '0' });
  const processes = [...serves, worker];
  const gateways = ports.map((port) => `http://127.0.0.1:${port}`);
  const report: string[] = [];
  const checks: { name: string; ok: boolean; detail: string }[] = [];
  const check = (name: string, ok: boolean, detail = '') => {
    checks.push({ name, ok, detail });
    log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
  };

  try {
    for (const [index, url] of gateways.entries()) {
      await waitFor(`serve${index + 1} /readyz`, 60_000, async () => (await fetch(`${url}/readyz`)).status === 200);
    }
    log(`2 serves (${gateways.join(', ')}) and a worker on ${cluster.databaseUrl}`);

    // Merchants: approved, unlimited, funded, a webhook endpoint each.
    const admin = gateways[0] ?? '';
    const merchants: Merchant[] = [];
    for (let index = 0; index < CLIENTS; index++) {
      const account = await expectStatus(201, admin, 'POST', '/admin/v1/accounts', ADMIN_TOKEN, {
        name: `Loja HA ${index + 1}`,
        email: `loja-ha${index + 1}@example.com`,
        emailVerified: true,
        city: 'Sao Paulo',
        responsible: { name: 'Ana Souza', cpf: HOLDER_CPF },
        kycStatus: 'approved',
      });
      const accountId = str(field(account, 'accountId')) ?? '';
      await expectStatus(200, admin, 'PATCH', `/admin/v1/accounts/${accountId}`, ADMIN_TOKEN, UNLIMITED);
      const key = await expectStatus(201, admin, 'POST', `/admin/v1/accounts/${accountId}/api-keys`, ADMIN_TOKEN);
      await expectStatus(201, admin, 'POST', `/admin/v1/accounts/${accountId}/adjustments`, ADMIN_TOKEN, {
        amountCents: FUND_CENTS,
        reason: 'fundos do teste HA',
      });
      await expectStatus(201, admin, 'POST', `/admin/v1/accounts/${accountId}/webhook-endpoints`, ADMIN_TOKEN, {
        url: `http://127.0.0.1:${cluster.receiverPort}/hooks/${index}`,
      });
      merchants.push({ index, accountId, apiKey: str(field(key, 'apiKey')) ?? '' });
    }
    log(`${CLIENTS} merchants, funded, each with a webhook endpoint`);

    // /readyz of both serves, polled throughout.
    const readyz: { at: number; gateway: number; status: number }[] = [];
    let polling = true;
    // A probe every 250 ms per serve, not waiting for the previous one: a probe stuck behind the
    // pool does not hide the next one's answer.
    const probes: Promise<void>[] = [];
    const poller = (async () => {
      while (polling) {
        for (const [index, url] of gateways.entries()) {
          const sentAt = now();
          probes.push(
            call(url, 'GET', '/readyz', '', undefined, 15_000).then((reply) => void readyz.push({ at: sentAt, gateway: index, status: reply.status })),
          );
        }
        await sleep(250);
      }
      await Promise.all(probes);
    })();

    const load = new Load(gateways, merchants);
    const loadStart = now();
    log(`load: ${CLIENTS} clients across both serves`);
    const clients = Promise.all(merchants.map((merchant) => load.client(merchant)));

    const failovers: Failover[] = [];
    await sleep(FIRST_KILL_AFTER_MS);
    for (let kill = 0; kill < 2; kill++) {
      if (kill > 0) {
        await waitForSyncStandby(cluster, 120_000);
        await sleep(BETWEEN_KILLS_MS);
      }
      load.switching = true;
      const failover = await killLeader(cluster);
      failovers.push(failover);
      // The switch lasts until the gateway's own probe is ready again on both serves.
      await waitFor('both serves ready', 60_000, async () => {
        for (const url of gateways) if ((await call(url, 'GET', '/readyz', '', undefined, 3_000)).status !== 200) return false;
        return true;
      });
      load.switching = false;
      failover.readyAt = now();
      log(`both serves ready ${((now() - failover.killedAt) / 1000).toFixed(1)}s after the kill`);
    }
    load.stop(Math.max(loadStart + MIN_LOAD_MS, now() + SETTLE_AFTER_MS));
    await clients;
    const loadEnd = now();
    log(`load stopped after ${((loadEnd - loadStart) / 1000).toFixed(0)}s: ${load.attempts.length} requests`);

    // Quiet: the old leaders rejoin, withdrawals and refunds settle, webhooks are delivered.
    const db = new pg.Pool({ connectionString: cluster.databaseUrl, max: 2 });
    db.on('error', () => undefined);
    const accountIds = merchants.map((merchant) => merchant.accountId);
    const q = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await db.query<R>(text, values)).rows;
    const rejoin = await waitFor(
      'the killed nodes to rejoin as replicas',
      150_000,
      async () => {
        const members = await clusterMembers(cluster);
        return members.length === 3 && members.every((member) => member.state === 'running') && runningLeader(members) ? members : null;
      },
      500,
    ).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    for (const failover of failovers) {
      const members = typeof rejoin === 'string' ? [] : rejoin;
      failover.wholeAt = members.some((member) => member.name === failover.killed && member.state === 'running') ? now() : null;
    }
    await waitFor(
      'withdrawals and refunds to settle',
      120_000,
      async () =>
        Number(
          (
            await q<{ n: string }>(
              `SELECT (SELECT count(*) FROM transactions WHERE account_id = ANY($1) AND status = 'processing')
                    + (SELECT count(*) FROM refunds WHERE account_id = ANY($1) AND status = 'processing') AS n`,
              [accountIds],
            )
          )[0]?.n,
        ) === 0,
      1_000,
    ).catch(() => undefined);
    await waitFor(
      'webhook deliveries to finish',
      150_000,
      async () => Number((await q<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`))[0]?.n) === 0,
      1_000,
    ).catch(() => undefined);
    polling = false;
    await poller;

    // ---------------------------------------------------------------- checks
    const { effects } = load;
    const txRows = await q<{
      id: string;
      account_id: string;
      type: string;
      status: string;
      external_ref: string | null;
      amount_cents: string;
      fee_cents: string;
      net_cents: string;
    }>(`SELECT id, account_id, type, status, external_ref, amount_cents, fee_cents, net_cents FROM transactions WHERE account_id = ANY($1)`, [accountIds]);
    const refundRows = await q<{ id: string; transaction_id: string; status: string; external_ref: string | null; amount_cents: string }>(
      `SELECT id, transaction_id, status, external_ref, amount_cents FROM refunds WHERE account_id = ANY($1)`,
      [accountIds],
    );
    const txById = new Map(txRows.map((row) => [row.id, row]));
    const refundById = new Map(refundRows.map((row) => [row.id, row]));

    // Every 2xx effect exists exactly once, through the API and in SQL.
    const answeredTx = [...effects.charges.keys(), ...effects.withdrawals.keys()];
    const readBack = await Promise.all(
      answeredTx.map(async (id) => {
        const charge = effects.charges.get(id);
        const withdrawal = effects.withdrawals.get(id);
        const merchant = merchants[charge?.merchant ?? withdrawal?.merchant ?? -1];
        return { id, reply: merchant ? await call(gateways[0] ?? '', 'GET', `/v1/transactions/${id}`, merchant.apiKey) : null };
      }),
    );
    const notReadable = readBack.filter((entry) => entry.reply?.status !== 200);
    check(
      'every 2xx charge and withdrawal is readable (GET /v1/transactions/{id})',
      notReadable.length === 0,
      `${answeredTx.length} ids${notReadable.length ? `; missing: ${notReadable.map((entry) => entry.id).join(', ')}` : ''}`,
    );
    const missingSql = answeredTx.filter((id) => !txById.has(id));
    const missingRefunds = [...effects.refunds.keys()].filter((id) => !refundById.has(id));
    check(
      'every 2xx effect is in the database (SQL via HAProxy)',
      missingSql.length === 0 && missingRefunds.length === 0,
      `${effects.charges.size} charges, ${effects.withdrawals.size} withdrawals, ${effects.refunds.size} refunds${missingSql.length + missingRefunds.length ? `; missing ${[...missingSql, ...missingRefunds].join(', ')}` : ''}`,
    );
    const unanswered = txRows.filter((row) => !effects.charges.has(row.id) && !effects.withdrawals.has(row.id));
    const unansweredRefunds = refundRows.filter((row) => !effects.refunds.has(row.id));
    check(
      'nothing in the database that no 2xx answered (no doubled effect)',
      unanswered.length === 0 && unansweredRefunds.length === 0,
      `${txRows.length} transactions, ${refundRows.length} refunds${unanswered.length + unansweredRefunds.length ? `; extra: ${[...unanswered.map((row) => `${row.type} ${row.id} ${row.external_ref ?? ''}`), ...unansweredRefunds.map((row) => `refund ${row.id}`)].join(', ')}` : ''}`,
    );
    const doubleRefs = await q<{ account_id: string; external_ref: string; n: string }>(
      `SELECT account_id, external_ref, count(*) AS n FROM transactions WHERE external_ref IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    const doubleRefundRefs = await q<{ external_ref: string; n: string }>(
      `SELECT account_id, external_ref, count(*) AS n FROM refunds WHERE external_ref IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    const refsWithTwoIds = [...effects.answeredIds.entries()].filter(([, ids]) => ids.size > 1);
    check(
      'every externalRef created at most once',
      doubleRefs.length === 0 && doubleRefundRefs.length === 0 && refsWithTwoIds.length === 0,
      `${effects.answeredIds.size} externalRefs answered${doubleRefs.length + doubleRefundRefs.length + refsWithTwoIds.length ? `; doubled: ${JSON.stringify([...doubleRefs, ...doubleRefundRefs, ...refsWithTwoIds.map(([ref, ids]) => ({ ref, ids: [...ids] }))])}` : ''}`,
    );
    const unpaid = [...effects.charges.entries()].filter(
      ([id, charge]) => charge.paid && !['paid', 'partially_refunded', 'refunded'].includes(txById.get(id)?.status ?? ''),
    );
    check('every payment answered 200 left its charge paid', unpaid.length === 0, unpaid.map(([id]) => id).join(', '));

    // Withdrawals: sent once to the provider, debited once.
    const withdrawalIds = txRows.filter((row) => row.type === 'withdrawal').map((row) => row.id);
    const sends = await q<{ transaction_id: string; n: string }>(
      `SELECT transaction_id, count(*) AS n FROM sandbox_withdrawals WHERE transaction_id = ANY($1) GROUP BY 1`,
      [withdrawalIds],
    );
    const sendCount = new Map(sends.map((row) => [row.transaction_id, Number(row.n)]));
    const badSends = withdrawalIds.filter((id) => sendCount.get(id) !== 1);
    const debits = await q<{ transaction_id: string; n: string }>(
      `SELECT transaction_id, count(DISTINCT movement_id) AS n FROM ledger_entries WHERE transaction_id = ANY($1) AND kind = 'withdrawal_debit' AND book = 'merchant' GROUP BY 1`,
      [withdrawalIds],
    );
    const debitCount = new Map(debits.map((row) => [row.transaction_id, Number(row.n)]));
    const badDebits = withdrawalIds.filter((id) => debitCount.get(id) !== 1);
    const providerSends = await q<{ id: string; n: string }>(`SELECT id, count(*) AS n FROM provider_sends WHERE id = ANY($1) GROUP BY 1`, [withdrawalIds]);
    const withdrawalStatuses = new Map<string, number>();
    for (const row of txRows.filter((r) => r.type === 'withdrawal')) withdrawalStatuses.set(row.status, (withdrawalStatuses.get(row.status) ?? 0) + 1);
    check(
      'no withdrawal sent twice to the provider, each debited exactly once',
      badSends.length === 0 && badDebits.length === 0 && providerSends.every((row) => Number(row.n) === 1),
      `${withdrawalIds.length} withdrawals (${[...withdrawalStatuses].map(([status, n]) => `${n} ${status}`).join(', ')}); simulator sends ${sends.length}, debit movements ${debits.length}${badSends.length + badDebits.length ? `; wrong: sends ${badSends.slice(0, 5).join(',')} debits ${badDebits.slice(0, 5).join(',')} (${badSends.length}, ${badDebits.length})` : ''}`,
    );

    // Ledger: doctor, and each merchant's balance against what the answers imply.
    const doctor = await runCli(cluster, 'doctor', env);
    check(
      '`node dist/cli.js doctor` via HAProxy exits 0 (ledger sums to zero, balances match entries)',
      doctor.code === 0,
      doctor.output.split('\n').slice(0, 5).join(' | '),
    );
    const balanceMismatches: string[] = [];
    for (const merchant of merchants) {
      let expected = FUND_CENTS;
      for (const [id, charge] of effects.charges)
        if (charge.merchant === merchant.index && charge.paid) expected += Number(txById.get(id)?.net_cents ?? Number.NaN);
      for (const refund of effects.refunds.values()) if (refund.merchant === merchant.index) expected -= refund.amountCents;
      for (const [id, withdrawal] of effects.withdrawals) {
        if (withdrawal.merchant !== merchant.index) continue;
        // A failed or returned withdrawal gives its debit back.
        if (['failed', 'cancelled', 'refunded'].includes(txById.get(id)?.status ?? '')) continue;
        expected -= withdrawal.totalDeducted;
      }
      for (const refundId of [...effects.refunds.keys()].filter((id) => refundById.get(id)?.status === 'failed')) {
        const refund = effects.refunds.get(refundId);
        if (refund?.merchant === merchant.index) expected += refund.amountCents;
      }
      const balance = await call(gateways[1] ?? '', 'GET', '/v1/balance', merchant.apiKey);
      const available = num(field(balance.body, 'available'));
      if (available !== expected) balanceMismatches.push(`merchant ${merchant.index}: balance ${available} vs ${expected} from the answers`);
    }
    check(
      'each balance (GET /v1/balance) equals funding + paid charges − refunds − withdrawals answered',
      balanceMismatches.length === 0,
      balanceMismatches.join('; '),
    );

    // Webhooks.
    const delivered = await q<{ event_id: string; name: string; transaction_id: string | null }>(
      `SELECT DISTINCT d.event_id, e.name, d.transaction_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.account_id = ANY($1) AND d.status = 'succeeded'`,
      [accountIds],
    );
    const notSucceeded = await q<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM webhook_deliveries WHERE account_id = ANY($1) AND status <> 'succeeded' GROUP BY 1`,
      [accountIds],
    );
    const receivedIds = new Set(receiver.received.map((entry) => entry.eventId));
    const lost = delivered.filter((row) => !receivedIds.has(row.event_id));
    check(
      'every event the database records as delivered was received',
      lost.length === 0,
      `${delivered.length} events delivered, ${receiver.received.length} requests received${
        lost.length
          ? `; never received: ${lost
              .slice(0, 10)
              .map((row) => `${row.name} ${row.event_id}`)
              .join(', ')}`
          : ''
      }`,
    );
    check(
      'every webhook delivery succeeded in the end',
      notSucceeded.length === 0,
      notSucceeded.map((row) => `${row.n} ${row.status}`).join(', ') || `${delivered.length} delivered`,
    );
    const idsPerEvent = new Map<string, Set<string>>();
    for (const entry of receiver.received) {
      const key = `${entry.event} ${entry.transactionId ?? '?'}`;
      const ids = idsPerEvent.get(key) ?? new Set<string>();
      ids.add(entry.eventId);
      idsPerEvent.set(key, ids);
    }
    const redelivered = receiver.received.length - receivedIds.size;
    const sameEventTwoIds = [...idsPerEvent.entries()].filter(([key, ids]) => ids.size > 1 && !key.startsWith('transaction.partially_refunded'));
    check(
      'duplicates only with the same event id',
      sameEventTwoIds.length === 0,
      `${redelivered} redeliveries of an already received event id${
        sameEventTwoIds.length
          ? `; one status change under several ids: ${sameEventTwoIds
              .slice(0, 5)
              .map(([key, ids]) => `${key}: ${[...ids].join(',')}`)
              .join('; ')}`
          : ''
      }`,
    );
    const events = await q<{ name: string; n: string }>(`SELECT name, count(*) AS n FROM events WHERE account_id = ANY($1) GROUP BY 1 ORDER BY 1`, [
      accountIds,
    ]);

    // Answers.
    const fiveHundreds = load.attempts.filter((attempt) => attempt.status >= 500 && attempt.status !== 502 && attempt.status !== 503);
    check(
      'no 500 (nor any 5xx other than the spec’s 502 and 503)',
      fiveHundreds.length === 0 && load.problems.length === 0,
      [...load.problems].slice(0, 10).join('; '),
    );
    const gone = processes.filter((child) => child.exit !== null);
    check('no gateway process exited', gone.length === 0, gone.map((child) => `${child.name} ${JSON.stringify(child.exit)}`).join(', '));

    const switchWindows = failovers.map((failover) => [failover.killedAt, Math.max(failover.writableAt, failover.readyAt) + 15_000] as const);
    const inSwitch = (at: number) => switchWindows.some(([from, to]) => at >= from && at <= to);
    const readyDuring = failovers.map((failover) => readyz.some((probe) => probe.status === 503 && inSwitch(probe.at) && probe.at >= failover.killedAt));
    const lastReady = gateways.map(
      (_, index) =>
        readyz
          .filter((probe) => probe.gateway === index)
          .sort((a, b) => a.at - b.at)
          .at(-1)?.status,
    );
    const otherReadyz = readyz.filter((probe) => probe.status !== 200 && probe.status !== 503);
    check(
      '/readyz answered 503 during each switch and 200 after',
      readyDuring.every(Boolean) && lastReady.every((status) => status === 200) && otherReadyz.length === 0,
      `503 seen per switch: ${readyDuring.join(', ')}; last: ${lastReady.join(', ')}; ${readyz.filter((probe) => probe.status === 503).length} × 503 of ${readyz.length} probes${otherReadyz.length ? `; ${otherReadyz.length} without an answer within 15 s` : ''}`,
    );

    const refused = load.attempts.filter((attempt) => attempt.status < 200 || attempt.status >= 300);
    const byAnswer = new Map<string, number>();
    const notRetryable: Attempt[] = [];
    for (const attempt of refused) {
      const message = attempt.message ?? attempt.error ?? '';
      let label: string;
      if (attempt.status === 0) label = `${attempt.op}: no answer (${(attempt.error ?? '').slice(0, 60)})`;
      else if (attempt.status === 503 && message === MSG.unavailable) label = `${attempt.op}: 503 ${message}`;
      else if (attempt.status === 502 && attempt.op === 'charge' && message === MSG.pixRetry) label = `charge: 502 ${message}`;
      else if (attempt.status === 502 && attempt.op === 'withdraw' && message === MSG.withdrawNotDebited) label = `withdraw: 502 ${message}`;
      else if (attempt.status === 502 && attempt.op === 'refund' && message === MSG.refundNotDebited) label = `refund: 502 ${message}`;
      else if (attempt.status === 502 && attempt.op === 'withdraw' && MSG.withdrawInterrupted.test(message))
        label = 'withdraw: 502 Saque iniciado mas confirmação interrompida. Consulte … (then queried)';
      else if (attempt.status === 422 && attempt.op === 'pay') label = 'pay: 422 after a lost answer (confirmed paid by GET)';
      else if (attempt.status === 404 && attempt.op === 'query')
        label = 'query after "Consulte …": 404 (the debit never committed on the new leader; sent again with the same externalRef)';
      else {
        label = `${attempt.op}: ${attempt.status} ${message}`;
        notRetryable.push(attempt);
      }
      byAnswer.set(label, (byAnswer.get(label) ?? 0) + 1);
    }
    const outsideSwitch = refused.filter((attempt) => !inSwitch(attempt.at) && attempt.status !== 422);
    check(
      'every refused request was retryable per the spec (503, 502 Tente novamente / não foi debitado, 502 Consulte → query)',
      notRetryable.length === 0,
      `${refused.length} refused of ${load.attempts.length}${
        notRetryable.length
          ? `; not retryable: ${notRetryable
              .slice(0, 5)
              .map((attempt) => `${attempt.op} ${attempt.status} ${attempt.message ?? ''}`)
              .join('; ')}`
          : ''
      }`,
    );
    check(
      'requests were refused only around the switches',
      outsideSwitch.length === 0,
      outsideSwitch.length
        ? outsideSwitch
            .slice(0, 5)
            .map((attempt) => `${elapsed(attempt.at)}s ${attempt.op} ${attempt.status} ${attempt.message ?? attempt.error ?? ''}`)
            .join('; ')
        : '',
    );
    check(
      'the leader had a synchronous standby when killed (synchronous_mode)',
      failovers.every((failover) => failover.standbys.some((standby) => standby.endsWith(' sync'))),
      failovers.map((failover, index) => `kill ${index + 1}: ${failover.standbys.join(', ')}`).join('; '),
    );
    check(
      'each kill moved the leadership to another node',
      failovers.length === 2 && failovers.every((failover) => failover.newLeader !== failover.killed),
      failovers.map((failover) => `${failover.killed} → ${failover.newLeader}`).join(', '),
    );
    check(
      'the killed nodes rejoined as replicas',
      typeof rejoin !== 'string',
      typeof rejoin === 'string' ? rejoin : rejoin.map((member) => `${member.name} ${member.role}`).join(', '),
    );

    // Gateway logs: errors worth reading.
    // A lost database is logged as a warning; one still logged as an error during a switch is
    // counted (the detail names it), any other error (or one outside the switches) fails.
    const DATABASE_GONE =
      /Connection terminated|connection error and is not queryable|unexpected postmaster exit|ECONNREFUSED|ECONNRESET|read-only transaction|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)/;
    const errorLines = processes.flatMap((child) =>
      readFileSync(child.logFile, 'utf8')
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line) || /"statusCode":500/.test(line))
        .map((line) => ({ child: child.name, line, at: num(field(parseJson(line), 'time')) ?? 0 })),
    );
    const expectedErrors = errorLines.filter((entry) => DATABASE_GONE.test(entry.line) && inSwitch(entry.at));
    const otherErrors = errorLines.filter((entry) => !expectedErrors.includes(entry));
    check(
      'no error in the gateway logs but lost-database ones during the switches',
      otherErrors.length === 0,
      `${expectedErrors.length} lost-database errors during the switches (${[...new Set(expectedErrors.map((entry) => entry.child))].join(', ')})${
        otherErrors.length
          ? `; others: ${otherErrors
              .slice(0, 5)
              .map((entry) => `${entry.child}: ${entry.line.slice(0, 300)}`)
              .join(' | ')}`
          : ''
      }`,
    );
    const lostConnections = processes.map(
      (child) =>
        `${child.name} ${
          readFileSync(child.logFile, 'utf8')
            .split('\n')
            .filter((line) => line.includes('database connection lost')).length
        }`,
    );

    await db.end();

    // ---------------------------------------------------------------- report
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const ops = new Map<string, { total: number; ok: number }>();
    for (const attempt of load.attempts) {
      const entry = ops.get(attempt.op) ?? { total: 0, ok: 0 };
      entry.total++;
      if (attempt.status >= 200 && attempt.status < 300) entry.ok++;
      ops.set(attempt.op, entry);
    }
    const passed = checks.every((entry) => entry.ok);
    report.push(
      `# HA test report (${new Date().toISOString()})`,
      '',
      `Result: **${passed ? 'PASS' : 'FAIL'}** — ${checks.filter((entry) => entry.ok).length}/${checks.length} checks.`,
      '',
      `Load: ${CLIENTS} clients, ${seconds(loadEnd - loadStart)} s, ${load.attempts.length} requests over 2 serves (1 worker), database through HAProxy.`,
      '',
      '| operation | requests | 2xx |',
      '|---|---:|---:|',
      ...[...ops].map(([op, entry]) => `| ${op} | ${entry.total} | ${entry.ok} |`),
      '',
      '## Failovers',
      '',
      '| kill | killed leader | new leader | s without a leader (Patroni) | s until HAProxy routes writes | s until both /readyz 200 | rejoined |',
      '|---|---|---|---:|---:|---:|---|',
      ...failovers.map(
        (failover, index) =>
          `| ${index + 1} (at ${elapsed(failover.killedAt)} s) | ${failover.killed} | ${failover.newLeader} | ${seconds(failover.leaderAt - failover.killedAt)} | ${seconds(failover.writableAt - failover.killedAt)} | ${seconds(failover.readyAt - failover.killedAt)} | ${failover.wholeAt ? 'yes' : 'no'} |`,
      ),
      '',
      '## Requests refused (each retried or queried per the spec)',
      '',
      '| answer | count |',
      '|---|---:|',
      ...[...byAnswer].sort((a, b) => b[1] - a[1]).map(([label, count]) => `| ${label.replace(/\|/g, '\\|')} | ${count} |`),
      '',
      `Withdrawals answered "Consulte …": ${load.interruptedFound} found by the query, ${load.interruptedNotFound} not found (commit lost with the old primary; sent again with the same externalRef).`,
      `Connections the gateway saw dropped (log "database connection lost"): ${lostConnections.join(', ')}.`,
      `Events recorded: ${events.map((row) => `${row.name} ${row.n}`).join(', ')}.`,
      '',
      '## Checks',
      '',
      ...checks.map((entry) => `- ${entry.ok ? 'PASS' : '**FAIL**'} ${entry.name}${entry.detail ? ` — ${entry.detail}` : ''}`),
      '',
      ...(load.notes.length ? ['## Notes', '', ...load.notes.slice(0, 30).map((note) => `- ${note}`), ''] : []),
    );
    const text = report.join('\n');
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/ha-report.md'), `${text}\n`);
    process.stdout.write(`\n${text}\n\n(saved to bench/results/ha-report.md)\n`);
    if (!passed) process.exitCode = 1;
  } finally {
    await Promise.all(processes.map(stopChild));
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`test:ha failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
