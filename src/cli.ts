import { join } from 'node:path';
import pino from 'pino';
import { buildApp } from './app.js';
import { readEnvironment, resolveSecrets, type Config, type Environment } from './config.js';
import { systemClock } from './platform/clock.js';
import { migrate, openDatabase } from './platform/database.js';
import { createServices, type Services } from './services.js';
import { startWorkers } from './worker.js';

/** First start of an empty database: a demo merchant with approved KYC and one API key. */
async function bootstrapDemoMerchant(services: Services): Promise<{ accountId: string; apiKey: string } | null> {
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
  return { accountId: account.id, apiKey: key.apiKey };
}

async function open(environment: Pick<Environment, 'database'>) {
  const database = await openDatabase(environment.database);
  await migrate(database.db);
  return database;
}

/** Where the data is, for the start-up line (never the server URL: it may hold a password). */
const describeDatabase = (config: Config): string =>
  config.database.kind === 'server' ? 'postgres' : config.database.kind === 'memory' ? 'memory://' : config.database.dataDir;

async function serve(environment: Environment): Promise<void> {
  const { config, adminTokenGenerated } = resolveSecrets(environment);
  const database = await open(config);
  const services = createServices(config, database.db, systemClock);
  const app = await buildApp(services);
  const demo = database.backend === 'pglite' ? await bootstrapDemoMerchant(services) : null;
  // On the embedded database this process is the only one: it runs the workers too.
  const stopWorkers = database.backend === 'pglite' ? startWorkers(services, app.log) : null;
  await app.listen({ port: config.port, host: config.host });

  // Printed to the terminal (not the log) once, when created: keep them.
  const lines = [`PIX gateway listening on ${config.publicBaseUrl} (database: ${describeDatabase(config)})`];
  if (adminTokenGenerated) {
    const kept = config.database.kind === 'embedded' ? `; kept in ${join(config.database.dataDir, 'secrets.json')}` : '';
    lines.push(`Admin token (shown once${kept}): ${config.adminToken}`);
  }
  if (demo) lines.push(`Demo merchant ${demo.accountId} — API key (shown once): ${demo.apiKey}`);
  lines.push(`API reference: ${config.publicBaseUrl}/docs`);
  process.stdout.write(`\n${lines.join('\n')}\n\n`);

  const shutdown = async () => {
    await app.close();
    await stopWorkers?.();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

async function worker(environment: Environment): Promise<void> {
  const { config } = resolveSecrets(environment);
  const database = await open(config);
  const services = createServices(config, database.db, systemClock);
  const logger = pino({ level: config.logLevel });
  const stop = startWorkers(services, logger);
  logger.info('worker started');
  const shutdown = async () => {
    await stop();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'serve';
  const environment = readEnvironment();
  switch (command) {
    case 'serve':
      return serve(environment);
    case 'worker':
      return worker(environment);
    case 'migrate': {
      const database = await openDatabase(environment.database);
      const applied = await migrate(database.db);
      await database.close();
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
      return;
    }
    case 'doctor': {
      const { config } = resolveSecrets(environment);
      const database = await open(config);
      const problems = await createServices(config, database.db, systemClock).ledger.findProblems();
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
