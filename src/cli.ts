import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { anyAccountExists } from './accounts/repository.js';
import { buildApp } from './app.js';
import { loadConfig, type Config } from './config.js';
import { findLedgerProblems } from './ledger/repository.js';
import { systemClock } from './platform/clock.js';
import { migrate, openDatabase } from './platform/database.js';
import { createServices, type Services } from './services.js';
import { startWorkers } from './worker.js';

type Secrets = { adminToken: string; secretKey: string; generatedAdminToken: boolean };

const generateSecret = () => randomBytes(32).toString('hex');

/**
 * Secrets not given in the environment: required with a server database; on the embedded one,
 * generated once and kept in the data folder (mode 0600), so restarts keep the same admin
 * token and recipient ids; on memory:// generated for this run.
 */
function resolveSecrets(config: Config): Secrets {
  const server = Boolean(config.databaseUrl?.startsWith('postgres'));
  if (server && !config.adminToken) throw new Error('Invalid configuration: ADMIN_TOKEN is required with a PostgreSQL server database');
  const storePath = config.databaseUrl ? null : join(config.dataDir, 'secrets.json');
  const stored: { adminToken?: string; secretKey?: string } = storePath && existsSync(storePath) ? JSON.parse(readFileSync(storePath, 'utf8')) : {};
  const generated = {
    adminToken: config.adminToken || stored.adminToken ? undefined : `adm_${generateSecret()}`,
    secretKey: config.secretKey || stored.secretKey ? undefined : generateSecret(),
  };
  if (storePath && (generated.adminToken || generated.secretKey)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(storePath, JSON.stringify({ ...stored, ...JSON.parse(JSON.stringify(generated)) }, null, 2), { mode: 0o600 });
  }
  return {
    adminToken: (config.adminToken ?? stored.adminToken ?? generated.adminToken) as string,
    secretKey: (config.secretKey ?? stored.secretKey ?? generated.secretKey) as string,
    generatedAdminToken: generated.adminToken !== undefined,
  };
}

/** First start of an empty database: a demo merchant with approved KYC and one API key. */
async function bootstrapDemoMerchant(services: Services): Promise<{ accountId: string; apiKey: string } | null> {
  if (await anyAccountExists(services.db)) return null;
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
  return { accountId: account.id, apiKey: key.apiKey };
}

async function open(config: Config) {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  await migrate(database.db);
  return database;
}

async function serve(config: Config): Promise<void> {
  const secrets = resolveSecrets(config);
  const database = await open(config);
  const services = createServices({ ...config, secretKey: secrets.secretKey }, database, systemClock);
  const app = await buildApp(services, { adminToken: secrets.adminToken });
  const demo = database.backend === 'pglite' ? await bootstrapDemoMerchant(services) : null;
  // On the embedded database this process is the only one: it runs the workers too.
  const stopWorkers = database.backend === 'pglite' ? startWorkers(services, app.log) : null;
  await app.listen({ port: config.port, host: config.host });

  // Printed to the terminal (not the log) once, when created: keep them.
  const lines = [`PIX gateway listening on ${config.publicBaseUrl} (database: ${database.backend === 'pglite' ? config.databaseUrl ?? config.dataDir : 'postgres'})`];
  if (secrets.generatedAdminToken) lines.push(`Admin token (shown once${config.databaseUrl ? '' : `; kept in ${join(config.dataDir, 'secrets.json')}`}): ${secrets.adminToken}`);
  if (demo) lines.push(`Demo merchant ${demo.accountId} — API key (shown once): ${demo.apiKey}`);
  lines.push(`API reference: ${config.publicBaseUrl}/docs`);
  process.stdout.write(`\n${lines.join('\n')}\n\n`);

  const shutdown = async () => {
    await app.close();
    await stopWorkers?.();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

async function worker(config: Config): Promise<void> {
  const secrets = resolveSecrets(config);
  const database = await open(config);
  const services = createServices({ ...config, secretKey: secrets.secretKey }, database, systemClock);
  const logger = pino({ level: config.logLevel });
  const stop = startWorkers(services, logger);
  logger.info('worker started');
  const shutdown = async () => {
    await stop();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'serve';
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'worker':
      return worker(config);
    case 'migrate': {
      const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
      const applied = await migrate(database.db);
      await database.close();
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
      return;
    }
    case 'doctor': {
      const database = await open(config);
      const problems = await findLedgerProblems(database.db);
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
