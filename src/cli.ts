import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import pino from 'pino';
import { buildApp } from './app.js';
import { readEnvironment, resolveSecrets, type Config, type Environment } from './config.js';
import { findLedgerProblems } from './ledger/repository.js';
import { findHoldProblems } from './holds/repository.js';
import { findWithdrawnSumProblems } from './payouts/repository.js';
import { startMetricsServer } from './operations/routes.js';
import { systemClock } from './platform/clock.js';
import { migrate, openDatabase } from './platform/database.js';
import { createServices, type Services } from './services.js';
import { startWorkers } from './worker.js';

/** First start of an empty database: a demo merchant with approved KYC, one API key and a dashboard owner. */
async function bootstrapDemoMerchant(services: Services): Promise<{ accountId: string; apiKey: string; ownerEmail: string; ownerPassword: string } | null> {
  if (await services.accounts.anyExists()) return null;
  const account = await services.accounts.createAccount({
    name: 'Loja Demo',
    email: 'demo@example.com',
    emailVerified: true,
    city: 'SAO PAULO',
    responsible: { name: 'Maria Demo', cpf: '52998224725' },
    company: { legalName: 'Loja Demo LTDA', cnpj: '11222333000181' },
    kycStatus: 'approved',
  });
  const key = await services.accounts.createApiKey(account.id);
  const ownerEmail = 'demo@example.com';
  const ownerPassword = randomBytes(12).toString('base64url');
  await services.users.createWithPassword(account.id, { email: ownerEmail, role: 'owner' }, ownerPassword);
  return { accountId: account.id, apiKey: key.apiKey, ownerEmail, ownerPassword };
}

/** First start without operators: an admin of the back-office, with a generated password (TOTP is enrolled at the first sign-in). */
async function bootstrapFirstOperator(services: Services): Promise<{ email: string; password: string } | null> {
  if (await services.operators.anyExists()) return null;
  const email = 'admin@example.com';
  const password = randomBytes(12).toString('base64url');
  await services.operators.createWithPassword({ email, role: 'admin' }, password);
  return { email, password };
}

/** Logs the connections the database server drops; the pool replaces them on the next query. */
const databaseLog = (level: string) => {
  const logger = pino({ level });
  // The error alone: pg-pool hangs the whole client object (its settings, its buffers) on it.
  return {
    onConnectionLost: (error: Error & { code?: string }) =>
      logger.warn({ err: { message: error.message, code: error.code } }, 'database connection lost; a new one is opened on the next query'),
  };
};

/** A start-up step on the terminal (stderr: stdout keeps the lines a script may read). */
const say = (line: string) => process.stderr.write(`${line}\n`);

async function open(environment: Pick<Environment, 'database' | 'logLevel'>, options: { talk: boolean } = { talk: false }) {
  const started = performance.now();
  if (options.talk) say(startingLine(environment.database));
  const database = await openDatabase(environment.database, databaseLog(environment.logLevel));
  const applied = await migrate(database.db);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (options.talk) say(`Database ready in ${seconds} s${applied.length ? ` (${applied.length} migrations applied)` : ''}; starting the HTTP server…`);
  return database;
}

/** The first start of the embedded database creates it (about five seconds): say so before the wait. */
function startingLine(database: Environment['database']): string {
  if (database.kind === 'server') return 'Connecting to PostgreSQL and applying pending migrations…';
  if (database.kind === 'memory') return 'Creating the in-memory database…';
  const exists = existsSync(join(database.dataDir, 'pglite'));
  return exists ? `Opening the embedded database in ${database.dataDir}…` : `Creating the embedded database in ${database.dataDir} (first start)…`;
}

/** How long requests in flight get to finish after SIGTERM/SIGINT before their sockets are closed. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Graceful shutdown on SIGTERM (orchestrators) and SIGINT (Ctrl-C): `close` finishes what is in
 * flight and releases the database; exit 0 then, 1 if closing failed. A second signal exits at once.
 */
function onShutdownSignal(logger: { info(message: string): void; error(details: object, message: string): void }, close: () => Promise<void>): void {
  let closing = false;
  const handle = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    logger.info(`${signal} received: finishing what is in flight, then exiting`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

/** Where the data is, for the start-up line (never the server URL: it may hold a password). */
const describeDatabase = (config: Config): string =>
  config.database.kind === 'server' ? 'postgres' : config.database.kind === 'memory' ? 'memory://' : config.database.dataDir;

/** What serve and worker both run on: the migrated database, the services, and with METRICS_PORT the metrics server. */
async function startRuntime(config: Config, options: { replica: boolean }) {
  const database = await open(config, { talk: true });
  // Only serve reads the replica (exports, the back-office list); it is never migrated: it follows the primary.
  const reads =
    options.replica && config.databaseReadUrl ? await openDatabase({ kind: 'server', url: config.databaseReadUrl }, databaseLog(config.logLevel)) : undefined;
  const services = createServices(config, database.db, systemClock, { poolStats: () => database.poolStats(), ...(reads ? { reads: reads.db } : {}) });
  const metricsServer = config.metricsPort === undefined ? null : await startMetricsServer(services.metrics, config.metricsPort, config.host);
  const close = async () => {
    await metricsServer?.close();
    await Promise.all(services.providerInbound.map((inbound) => inbound.close()));
    await reads?.close();
    await database.close();
  };
  return { backend: database.backend, services, close };
}

async function serve(environment: Environment): Promise<void> {
  const { config, adminTokenGenerated } = resolveSecrets(environment);
  const { backend, services, close } = await startRuntime(config, { replica: true });
  const app = await buildApp(services);
  const demo = backend === 'pglite' ? await bootstrapDemoMerchant(services) : null;
  const firstOperator = backend === 'pglite' ? await bootstrapFirstOperator(services) : null;
  // On the embedded database this process is the only one: it runs the workers too.
  const stopWorkers = backend === 'pglite' ? startWorkers(services, app.log) : null;
  await app.listen({ port: config.port, host: config.host });
  const notificationUrls = (await Promise.all(services.providerInbound.map((inbound) => inbound.listen()))).filter((url) => url !== null);

  // Printed to the terminal (not the log) once, when created: keep them.
  const lines = [`PIX gateway listening on ${config.publicBaseUrl} (database: ${describeDatabase(config)})`];
  if (adminTokenGenerated) {
    const kept = config.database.kind === 'embedded' ? `; kept in ${join(config.database.dataDir, 'secrets.json')}` : '';
    lines.push(`Admin token (shown once${kept}): ${config.adminToken}`);
  }
  if (demo) {
    lines.push(`Demo merchant ${demo.accountId} — API key (shown once): ${demo.apiKey}`);
    lines.push(`Dashboard: ${config.publicBaseUrl}/dashboard — sign in as ${demo.ownerEmail} with password ${demo.ownerPassword} (shown once)`);
  }
  if (firstOperator) {
    lines.push(
      `Back-office: ${config.publicBaseUrl}/backoffice — sign in as ${firstOperator.email} with password ${firstOperator.password} (shown once); enrol TOTP at the first sign-in`,
    );
  }
  lines.push(`API reference: ${config.publicBaseUrl}/docs`);
  for (const url of notificationUrls)
    lines.push(`PSP notifications: ${url} (register this host's public name, port and path as the webhook of the PSP's receiving key)`);
  process.stdout.write(`\n${lines.join('\n')}\n\n`);

  onShutdownSignal(app.log, async () => {
    // Stops accepting at once; requests in flight finish (idle keep-alive sockets close).
    const closing = app.close();
    const forced = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closing;
    clearTimeout(forced);
    await stopWorkers?.();
    await close();
  });
}

async function worker(environment: Environment): Promise<void> {
  const { config } = resolveSecrets(environment);
  const { services, close } = await startRuntime(config, { replica: false });
  const logger = pino({ level: config.logLevel });
  const stop = startWorkers(services, logger);
  logger.info('worker started');
  onShutdownSignal(logger, async () => {
    // Attempts in flight finish and are recorded (each within WEBHOOK_TIMEOUT_MS); nothing new is claimed.
    await stop();
    await close();
  });
}

/**
 * V8 lets a busy process's old generation grow to four times what is live before it collects:
 * a 1,000,000-row export (about 45 MB live) then peaked at 300 MiB. Growing by half bounds the
 * garbage for a few percent of CPU (docs/performance.md). It is read at every collection, so it
 * applies when set now; `node --heap-growing-percent=N` on the command line still wins.
 */
const HEAP_GROWING_PERCENT = 50;

function boundHeapGrowth(): void {
  if (!process.execArgv.some((flag) => flag.startsWith('--heap-growing-percent') || flag.startsWith('--heap_growing_percent')))
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'serve';
  if (command === 'serve' || command === 'worker') boundHeapGrowth();
  const environment = readEnvironment();
  switch (command) {
    case 'serve':
      return serve(environment);
    case 'worker':
      return worker(environment);
    case 'migrate': {
      const database = await openDatabase(environment.database, databaseLog(environment.logLevel));
      const applied = await migrate(database.db);
      await database.close();
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
      return;
    }
    case 'doctor': {
      // Reads only: no secret is needed (none is generated on an embedded folder).
      const database = await open(environment);
      const problems = [...(await findLedgerProblems(database.db)), ...(await findWithdrawnSumProblems(database.db)), ...(await findHoldProblems(database.db))];
      await database.close();
      process.stdout.write(problems.length ? `${problems.join('\n')}\n` : 'Ledger invariants hold.\n');
      process.exitCode = problems.length ? 1 : 0;
      return;
    }
    default:
      process.stderr.write(`Unknown command "${command}". Use: serve | worker | migrate | doctor\n`);
      process.exitCode = 2;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
